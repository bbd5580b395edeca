package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/nodes"
)

// browser with target:"node" runs the action on a node host's own browser:
// the gateway sends the original's browser control route ({method, path,
// query, body, profile, timeoutMs}) to the node as the node command
// browser.proxy (node.invoke, operator.admin), and the node answers
// {result, files?}; files (screenshots, PDFs) are stored here and named in
// the result. gateway.nodes.browser.node names a default node (and with it
// every browser call goes there unless target:"host"); mode "off" refuses
// node targets.

const (
	propTargetNode = `"target":{"type":"string","enum":["host","node"],"description":"host (this machine, default) or node (a node host's browser, through browser.proxy)"},` +
		`"node":{"type":"string","description":"Node for target=node: id, display name (build-box finds \"Build Box\"), IP or id prefix (default gateway.nodes.browser.node)"}`
	maxProxyFileBytes = 32 << 20
)

// nodeRoute is how one action is said as a control route.
type nodeRoute struct {
	method, path string
	query        bool // params go in the query (GET), else the body
	kind         string
}

// proxyRoutes are the actions a node's browser runs; act kinds are added
// by nodeRouteFor.
var proxyRoutes = map[string]nodeRoute{
	"status": {method: "GET", path: "/", query: true}, "start": {method: "POST", path: "/start"},
	"stop": {method: "POST", path: "/stop"}, "profiles": {method: "GET", path: "/profiles", query: true},
	"tabs": {method: "GET", path: "/tabs", query: true}, "open": {method: "POST", path: "/tabs/open"},
	"focus": {method: "POST", path: "/tabs/focus"}, "navigate": {method: "POST", path: "/navigate"},
	"snapshot": {method: "GET", path: "/snapshot", query: true}, "screenshot": {method: "POST", path: "/screenshot"},
	"pdf": {method: "POST", path: "/pdf"}, "console": {method: "GET", path: "/console", query: true},
	"requests": {method: "GET", path: "/requests", query: true}, "dialog": {method: "POST", path: "/hooks/dialog"},
}

// proxyActKinds are the act verbs, sent as POST /act {kind, ...}.
var proxyActKinds = map[string]bool{"click": true, "type": true, "press": true, "hover": true, "drag": true, "select": true,
	"fill": true, "wait": true, "evaluate": true, "resize": true, "scrollintoview": true, "act": true}

func nodeRouteFor(verb string, p map[string]any) (nodeRoute, bool) {
	if r, ok := proxyRoutes[verb]; ok {
		return r, true
	}
	if verb == "close" {
		if id, _ := p["targetId"].(string); id != "" {
			return nodeRoute{method: "DELETE", path: "/tabs/" + url.PathEscape(id)}, true
		}
		return nodeRoute{method: "POST", path: "/act", kind: "close"}, true
	}
	if proxyActKinds[verb] {
		return nodeRoute{method: "POST", path: "/act", kind: verb}, true
	}
	return nodeRoute{}, false
}

// withNodeTarget adds target/node to an action's schema and routes
// target=node calls to a node (actions.go reg calls it).
func withNodeTarget(a *tools.Action) {
	if i := strings.Index(a.Schema, `"properties":{`); i >= 0 {
		at := i + len(`"properties":{`)
		sep := ","
		if strings.HasPrefix(strings.TrimSpace(a.Schema[at:]), "}") {
			sep = ""
		}
		a.Schema = a.Schema[:at] + propTargetNode + sep + a.Schema[at:]
	}
	a.CallScopes = nodeTargetScopes
	run, verb := a.Run, a.Verb
	a.Run = func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
		p := map[string]any{}
		_ = json.Unmarshal(raw, &p)
		node, toNode, err := nodeTargetOf(env, p)
		if err != nil {
			return nil, err
		}
		if !toNode {
			return run(ctx, env, raw)
		}
		return runOnNodeBrowser(ctx, env, verb, node, p)
	}
}

// nodeTargetOf decides host or node for a call.
func nodeTargetOf(env *tools.Env, p map[string]any) (string, bool, error) {
	target, _ := p["target"].(string)
	node, _ := p["node"].(string)
	var mode, def string
	if env.Config != nil {
		mode, def = env.Config.String("gateway.nodes.browser.mode", "auto"), env.Config.String("gateway.nodes.browser.node", "")
	}
	switch {
	case target == "host" && node != "":
		return "", false, tools.Errorf(tools.CodeInvalidParams, `browser: node requires target="node"`)
	case target == "host":
		return "", false, nil
	case target == "" && node == "" && (def == "" || mode == "off"):
		return "", false, nil
	case mode == "off":
		return "", false, tools.Errorf(tools.CodeDenied, "Node browser proxy is disabled (gateway.nodes.browser.mode=off).")
	}
	if node == "" {
		node = def
	}
	if node == "" {
		return "", false, tools.Errorf(tools.CodeInvalidParams, `browser target="node" needs node (id or name) or gateway.nodes.browser.node`)
	}
	return node, true, nil
}

// runOnNodeBrowser relays one action through browser.proxy.
func runOnNodeBrowser(ctx context.Context, env *tools.Env, verb, node string, p map[string]any) (any, error) {
	rt, ok := nodeRouteFor(verb, p)
	if !ok {
		names := make([]string, 0, len(proxyRoutes))
		for k := range proxyRoutes {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, tools.Errorf(tools.CodeInvalidParams, "browser %s does not run on a node; on a node: %s, close and the act kinds", verb, strings.Join(names, ", "))
	}
	if _, onGateway := env.Services["nodes"]; !onGateway {
		return nil, tools.Errorf(tools.CodeUsage, `browser target="node" goes through a gateway's node connections: add --remote (or --url), with `+"`openclaw serve`"+` running`)
	}
	nodeID, err := resolveBrowserNode(ctx, env, node)
	if err != nil {
		return nil, err
	}
	args := map[string]any{}
	for k, v := range p {
		switch k {
		case "target", "node", "profile", "browserProfile", "timeoutMs":
			continue
		case "targetUrl":
			args["url"] = v
		default:
			args[k] = v
		}
	}
	if rt.kind != "" {
		args["kind"] = rt.kind
	}
	proxy := map[string]any{"method": rt.method, "path": rt.path, "errorEnvelope": true}
	if rt.query {
		q := map[string]any{}
		for k, v := range args {
			switch x := v.(type) {
			case string:
				q[k] = x
			case nil:
			default:
				b, _ := json.Marshal(x)
				q[k] = strings.Trim(string(b), `"`)
			}
		}
		proxy["query"] = q
	} else if rt.method != "DELETE" {
		proxy["body"] = args
	}
	if prof := firstNonEmpty(str(p["profile"]), str(p["browserProfile"])); prof != "" {
		proxy["profile"] = prof
	}
	timeout := int64(30000)
	if v, ok := p["timeoutMs"].(float64); ok && v > 0 {
		timeout = int64(v)
	}
	proxy["timeoutMs"] = timeout
	inv, _ := json.Marshal(map[string]any{"nodeId": nodeID, "command": "browser.proxy", "params": proxy,
		"timeoutMs": timeout + 5000, "idempotencyKey": uuid.NewString()})
	out, err := tools.Invoke(ctx, env, tools.Call{Method: "node.invoke", Args: inv})
	if err != nil {
		return nil, err
	}
	payload := gjson.GetBytes(out, "payload")
	if e := payload.Get("error"); e.Exists() && !payload.Get("result").Exists() {
		msg := firstNonEmpty(e.Get("body.error").String(), e.Get("message").String(), e.Raw)
		return nil, tools.Errorf(tools.CodeFailed, "browser %s on node %s: %s", verb, node, msg).
			WithDetails(map[string]any{"status": e.Get("status").Int(), "error": jsonAny(e)})
	}
	if !payload.Get("result").Exists() {
		return nil, tools.Errorf(tools.CodeFailed, "browser %s: node %s returned an invalid browser.proxy answer (no result)", verb, node)
	}
	result := jsonAny(payload.Get("result"))
	refs, err := saveProxyFiles(ctx, env, payload.Get("files"), &result)
	if err != nil {
		return nil, err
	}
	if len(refs) > 0 {
		res := &tools.Result{Details: map[string]any{"result": result, "media": refs, "node": nodeID}}
		for _, ref := range refs {
			res.Content = append(res.Content, tools.TextBlock("MEDIA:"+ref.Path))
		}
		return res, nil
	}
	return tools.JSONResult(result)
}

// saveProxyFiles stores the node's files and points the result's paths
// at the stored copies.
func saveProxyFiles(ctx context.Context, env *tools.Env, files gjson.Result, result *any) ([]tools.MediaRef, error) {
	if !files.IsArray() || len(files.Array()) == 0 {
		return nil, nil
	}
	m, err := env.NeedMedia("browser files from a node")
	if err != nil {
		return nil, err
	}
	mapping := map[string]string{}
	var refs []tools.MediaRef
	for _, f := range files.Array() {
		path, b64 := f.Get("path").String(), f.Get("base64").String()
		if path == "" || base64.StdEncoding.DecodedLen(len(b64)) > maxProxyFileBytes {
			return nil, tools.Errorf(tools.CodeFailed, "browser proxy returned an invalid file envelope")
		}
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "browser proxy file contains malformed base64 data")
		}
		ref, err := m.Save(ctx, bytes.NewReader(data), f.Get("mimeType").String(), "node-browser")
		if err != nil {
			return nil, fmt.Errorf("store browser file from node: %w", err)
		}
		mapping[path] = ref.Path
		refs = append(refs, ref)
	}
	*result = rewritePaths(*result, mapping)
	return refs, nil
}

func rewritePaths(v any, mapping map[string]string) any {
	switch x := v.(type) {
	case string:
		if p, ok := mapping[x]; ok {
			return p
		}
	case map[string]any:
		for k, e := range x {
			x[k] = rewritePaths(e, mapping)
		}
	case []any:
		for i, e := range x {
			x[i] = rewritePaths(e, mapping)
		}
	}
	return v
}

// resolveBrowserNode is the node's id, resolved as every family resolves
// --node (nodes.Resolve; node.list as the caller).
func resolveBrowserNode(ctx context.Context, env *tools.Env, q string) (string, error) {
	n, err := nodes.Resolve(ctx, env, q)
	if err != nil {
		e := tools.AsError(err)
		return "", tools.Errorf(e.Code, "browser: %s", e.Message)
	}
	return n.NodeID, nil
}

func jsonAny(r gjson.Result) any {
	var v any
	_ = json.Unmarshal([]byte(r.Raw), &v)
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// nodeTargetScopes: browser.proxy on a node needs operator.admin, so a
// relayed call that names target "node" asks for it. A default node from
// gateway.nodes.browser.node is only known on the gateway: such calls need
// a connection that has admin already (the gateway's own check says so).
func nodeTargetScopes(raw json.RawMessage) []string {
	if gjson.GetBytes(raw, "target").String() == "node" || gjson.GetBytes(raw, "node").String() != "" {
		return []string{tools.ScopeAdmin}
	}
	return nil
}
