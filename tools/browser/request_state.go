package browser

import (
	"context"
)

// stateRoute is a cookies or storage route: the action with its
// op (get, set, clear) and the request's fields. A bad storage kind
// in the path is the original's 400 before anything runs.
func stateRoute(verb, op string) func(ctx context.Context, c *routeCall) (any, error) {
	return func(ctx context.Context, c *routeCall) (any, error) {
		if k, ok := c.path["kind"]; ok && k != "local" && k != "session" {
			return nil, routeError(400, "kind must be local|session")
		}
		// The path's :kind is the action's store (kind is the act kind in
		// the agent's flat schema).
		args, err := c.args(verb, map[string]string{"kind": "store"})
		if err != nil {
			return nil, err
		}
		args["op"] = op
		return c.invoke(ctx, verb, args)
	}
}

// cookiesSetRoute is POST /cookies/set {targetId?, cookie: {name, value,
// url | domain+path, expires?, httpOnly?, secure?, sameSite?}}: the cookie
// object's fields become the cookies action's.
func cookiesSetRoute(ctx context.Context, c *routeCall) (any, error) {
	cookie, ok := c.body["cookie"].(map[string]any)
	if !ok {
		return nil, routeError(400, "cookie is required")
	}
	delete(c.body, "cookie")
	for k, v := range cookie {
		c.body[k] = v
	}
	return stateRoute("cookies", "set")(ctx, c)
}
