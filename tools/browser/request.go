package browser

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// requestMethod is the original's gateway method for its browser CLI: every
// `openclaw browser <verb>` of the original sends one browser.request with
// the route of its browser control HTTP API ({method, path, query, body,
// timeoutMs}); the gateway answers with that route's JSON body.
const requestMethod = "browser.request"

// requestParams is browser.request's params as the original CLI sends them.
type requestParams struct {
	Method    string          `json:"method"`
	Path      string          `json:"path"`
	Query     map[string]any  `json:"query"`
	Body      json.RawMessage `json:"body"`
	TimeoutMs int             `json:"timeoutMs"`
	Target    string          `json:"target"`
	Node      string          `json:"node"`
}

func init() {
	tools.Register(&tools.Action{
		Method: requestMethod,
		Summary: "The original OpenClaw CLI's browser wire method: a browser control route " +
			"(GET /, POST /tabs/open, GET /snapshot, POST /act, ...) run as the matching browser action",
		Description: "Each route maps onto one `browser` action (status, start, open, snapshot, act kinds, ...); " +
			"the answer is that route's JSON as the original's control server returns it. " +
			"Unknown routes fail with INVALID_REQUEST and details {error, status: 404}.",
		Hidden: true, // a wire method for the original CLI; ours relays the browser actions themselves
		Schema: `{"type":"object","required":["method","path"],"properties":{` +
			`"method":{"type":"string","description":"GET, POST or DELETE"},` +
			`"path":{"type":"string","description":"Control route, e.g. /tabs/open"},` +
			`"query":{"type":"object","description":"Query parameters (strings)"},` +
			`"body":{"description":"JSON body of POST routes"},` +
			`"timeoutMs":{"type":"integer","minimum":1,"description":"Budget for the whole request"},` +
			`"target":{"type":"string","description":"host (default); node routing is not supported here"},` +
			`"node":{"type":"string"}}}`,
		Run: tools.Typed(runRequest),
	})
}

// runRequest finds the route and runs it through the one door.
func runRequest(ctx context.Context, env *tools.Env, p requestParams) (any, error) {
	method := strings.ToUpper(strings.TrimSpace(p.Method))
	path := normalizeRoutePath(p.Path)
	switch {
	case p.Target != "" && p.Target != "host" && p.Target != "node", p.Node != "" && p.Target != "node":
		return nil, routeError(400, `target must be "host" or "node"; node requires target="node" and a nonempty selector`)
	case p.Target == "node":
		return nil, routeError(400, "browser.request: node routing is not supported by this gateway; the browser runs on the gateway host (omit target)")
	case method == "" || path == "":
		return nil, routeError(400, "method and path are required")
	case method != "GET" && method != "POST" && method != "DELETE":
		return nil, routeError(400, "method must be GET, POST, or DELETE")
	}
	if p.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	rt, pathArgs := matchRoute(method, path)
	if rt == nil {
		return nil, unknownRoute(method, path)
	}
	body, err := bodyObject(p.Body)
	if err != nil {
		return nil, err
	}
	return rt.runRoute(ctx, &routeCall{env: env, query: p.Query, body: body, path: pathArgs})
}

// normalizeRoutePath gives the path one leading slash and no trailing one,
// as the original's normalizeBrowserRequestPath.
func normalizeRoutePath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if t := strings.TrimRight(p, "/"); t != "" {
		return t
	}
	return "/"
}

// bodyObject decodes a POST body: absent or null is empty; anything but an
// object is a 400 as the original's routes treat it.
func bodyObject(raw json.RawMessage) (map[string]any, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return map[string]any{}, nil
	}
	if s[0] != '{' {
		return nil, routeError(400, "body must be a JSON object")
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, routeError(400, "invalid body: "+err.Error())
	}
	return m, nil
}
