package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// route maps one of the original's browser control routes onto a browser
// action. The action itself does the work (through tools.Invoke); a route
// only renames fields and reshapes the answer where the original's differs.
type route struct {
	method, pattern string
	verb            string            // browser action run for this route
	rename          map[string]string // original field → our param
	reshape         func(details map[string]any) any
	run             func(ctx context.Context, c *routeCall) (any, error) // whole route, when it takes more than one action
}

var urlToTarget = map[string]string{"url": "targetUrl"}

// routes is the original's route table (extensions/browser/src/browser/routes)
// restricted to what has a browser action here; everything else is 404.
var routes = sync.OnceValue(func() []*route {
	return []*route{
		{method: "GET", pattern: "/", verb: "status", reshape: statusView},
		{method: "POST", pattern: "/start", run: startRoute},
		{method: "POST", pattern: "/stop", run: stopRoute},
		{method: "POST", pattern: "/reset-profile", verb: "reset-profile"},
		{method: "GET", pattern: "/profiles", run: profilesRoute},
		{method: "POST", pattern: "/profiles/create", verb: "create-profile"},
		{method: "DELETE", pattern: "/profiles/:name", verb: "delete-profile"},
		{method: "GET", pattern: "/tabs", run: tabsRoute},
		{method: "POST", pattern: "/tabs/action", run: tabsActionRoute},
		{method: "POST", pattern: "/tabs/open", run: openRoute},
		{method: "POST", pattern: "/tabs/focus", verb: "focus"},
		{method: "DELETE", pattern: "/tabs/:targetId", verb: "close"},
		{method: "POST", pattern: "/navigate", verb: "navigate", rename: urlToTarget},
		{method: "GET", pattern: "/snapshot", verb: "snapshot", reshape: snapshotView},
		{method: "POST", pattern: "/screenshot", verb: "screenshot"},
		{method: "POST", pattern: "/pdf", verb: "pdf"},
		{method: "POST", pattern: "/act", run: actRoute},
		{method: "GET", pattern: "/console", verb: "console"},
		{method: "GET", pattern: "/requests", verb: "requests"},
		{method: "POST", pattern: "/hooks/dialog", verb: "dialog"},
		{method: "POST", pattern: "/hooks/file-chooser", verb: "upload"},
		{method: "GET", pattern: "/cookies", run: stateRoute("cookies", "get")},
		{method: "POST", pattern: "/cookies/set", run: cookiesSetRoute},
		{method: "POST", pattern: "/cookies/clear", run: stateRoute("cookies", "clear")},
		{method: "GET", pattern: "/storage/:kind", run: stateRoute("storage", "get")},
		{method: "POST", pattern: "/storage/:kind/set", run: stateRoute("storage", "set")},
		{method: "POST", pattern: "/storage/:kind/clear", run: stateRoute("storage", "clear")},
	}
}) // built on first use, not in every process's init

// matchRoute finds the route for method and path and the path parameters
// it names (":targetId"), decoded as the original's dispatcher does.
func matchRoute(method, path string) (*route, map[string]string) {
	segs := strings.Split(path, "/")
	for _, rt := range routes() {
		if rt.method != method {
			continue
		}
		pat := strings.Split(rt.pattern, "/")
		if len(pat) != len(segs) {
			continue
		}
		args := map[string]string{}
		ok := true
		for i, p := range pat {
			switch {
			case strings.HasPrefix(p, ":") && segs[i] != "":
				args[p[1:]] = unescapePath(segs[i])
			case p != segs[i]:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			return rt, args
		}
	}
	return nil, nil
}

// unescapePath decodes %XX in a path segment (the CLI encodeURIComponent's
// tab ids and profile names); an invalid escape is kept as written.
func unescapePath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			var c byte
			if _, err := fmt.Sscanf(s[i+1:i+3], "%02x", &c); err == nil {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// run runs a plain route: its one action with the request's fields.
func (rt *route) runRoute(ctx context.Context, c *routeCall) (any, error) {
	if rt.run != nil {
		return rt.run(ctx, c)
	}
	args, err := c.args(rt.verb, rt.rename)
	if err != nil {
		return nil, err
	}
	details, err := c.invoke(ctx, rt.verb, args)
	if err != nil {
		return nil, err
	}
	if rt.reshape != nil {
		return rt.reshape(details), nil
	}
	return details, nil
}

// startRoute is POST /start: the original answers {ok, profile}; the status
// fields ride along (its CLI reads them with a GET / right after).
func startRoute(ctx context.Context, c *routeCall) (any, error) {
	args, err := c.args("start", nil)
	if err != nil {
		return nil, err
	}
	st, err := c.invoke(ctx, "start", args)
	if err != nil {
		return nil, err
	}
	st["ok"] = true
	return st, nil
}

// stopRoute is POST /stop: {ok, stopped, profile}, where stopped says a
// running browser was ended by this call.
func stopRoute(ctx context.Context, c *routeCall) (any, error) {
	args, err := c.args("stop", nil)
	if err != nil {
		return nil, err
	}
	before, err := c.invoke(ctx, "status", args)
	if err != nil {
		return nil, err
	}
	after, err := c.invoke(ctx, "stop", args)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "profile": after["profile"],
		"stopped": before["running"] == true && after["running"] != true}, nil
}

// profilesRoute is GET /profiles: the profiles action's list with the
// fields the original CLI prints per profile: driver (ours are all CDP
// "openclaw" profiles) and, for a running one, tabCount from its tabs.
func profilesRoute(ctx context.Context, c *routeCall) (any, error) {
	args, err := c.args("profiles", nil)
	if err != nil {
		return nil, err
	}
	out, err := c.invoke(ctx, "profiles", args)
	if err != nil {
		return nil, err
	}
	list, _ := out["profiles"].([]any)
	for _, x := range list {
		p, ok := x.(map[string]any)
		if !ok {
			continue
		}
		setDefault(p, "driver", "openclaw")
		if p["running"] != true {
			continue
		}
		if tabs, err := c.invoke(ctx, "tabs", map[string]any{"profile": p["name"]}); err == nil {
			n, _ := tabs["tabs"].([]any)
			setDefault(p, "tabCount", len(n))
		}
	}
	return out, nil
}

// openRoute is POST /tabs/open {url, label?}: as the original it launches
// the profile's browser when it is not running, then opens the tab.
func openRoute(ctx context.Context, c *routeCall) (any, error) {
	args, err := c.args("open", urlToTarget)
	if err != nil {
		return nil, err
	}
	startArgs := map[string]any{}
	if p, ok := args["profile"]; ok {
		startArgs["profile"] = p
	}
	if _, err := c.invoke(ctx, "start", startArgs); err != nil {
		return nil, err
	}
	return c.invoke(ctx, "open", args)
}

// actRoute is POST /act {kind, ...}: each kind runs as its own browser
// action (click, type, ..., whose schema knows the kind's fields); kinds
// outside the act action's list are refused as the original refuses an
// unknown kind.
func actRoute(ctx context.Context, c *routeCall) (any, error) {
	kind, _ := c.body["kind"].(string)
	if kind == "" {
		return nil, routeErrorCode(400, "ACT_KIND_REQUIRED", "kind is required")
	}
	if !actKindSupported(kind) {
		return nil, routeErrorCode(400, "ACT_INVALID_REQUEST", fmt.Sprintf("act kind %q is not supported here (supported: %s)", kind, strings.Join(actKinds(), ", ")))
	}
	verb := "act"
	if hasVerb(kind) {
		verb = kind
		delete(c.body, "kind")
	}
	args, err := c.args(verb, nil)
	if err != nil {
		return nil, err
	}
	return c.invoke(ctx, verb, args)
}
