package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// The `nodes` agent tool (spec part C, classic action set plus the current
// which/invoke, and remove/rename for the CLI): every action runs on the
// gateway and reaches the node.* methods through tools.Invoke with the
// caller's own scopes. On the command line an action named a_b is
// `openclaw nodes a b` (camera_snap → nodes camera snap).

const (
	propNode          = `"node":{"type":"string","description":"Node id, display name (case and punctuation ignored: build-box finds \"Build Box\"), IP, id prefix (6+ characters) or a unique name prefix"}`
	propInvokeTimeout = `"invokeTimeout":{"type":"integer","minimum":1,"description":"Milliseconds the node has to answer (default: the action's)"}`
)

func obj(props ...string) string {
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false}`
}

func objReq(req []string, props ...string) string {
	b, _ := json.Marshal(req)
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":` + string(b) + `,"additionalProperties":false}`
}

func reg(a *tools.Action) {
	a.Tool = "nodes"
	a.Where = tools.Gateway
	hint(a)
	if a.Scope == "" {
		a.Scope = tools.ScopeWrite
	}
	if a.Render == nil {
		a.Render = renderText
	}
	tools.Register(a)
}

// simple registers an action that invokes one node command with fixed or
// passed-through params and answers the node's payload as JSON.
func simple(verb, command, summary string, timeoutMs int64, props []string, build func(p map[string]any) (map[string]any, error)) {
	reg(&tools.Action{Verb: verb, Summary: summary, Schema: objReq([]string{"node"}, append([]string{propNode, propInvokeTimeout}, props...)...),
		Run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
			p := map[string]any{}
			_ = json.Unmarshal(raw, &p)
			params := map[string]any{}
			if build != nil {
				var err error
				if params, err = build(p); err != nil {
					return nil, err
				}
			}
			n, err := resolveNode(ctx, env, str(p["node"]))
			if err != nil {
				return nil, err
			}
			res, err := invokeNode(ctx, env, n.NodeID, command, params, timeoutOf(p, timeoutMs))
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(jsonValue(res.Get("payload")))
		}})
}

func init() {
	reg(&tools.Action{Verb: "status", Summary: "List known nodes: paired, pending, connected (node.list)", Scope: tools.ScopeRead,
		Schema: obj(`"connected":{"type":"boolean","description":"Only connected nodes"}`,
			`"lastConnected":{"type":"string","description":"Only nodes connected within this duration (24h, 7d, 90m)"}`),
		Examples: []string{"openclaw nodes status", "openclaw nodes status --connected --json"},
		Run:      runStatus, Render: renderStatus})
	reg(&tools.Action{Verb: "describe", Summary: "Describe one node: surface, permissions, host stats, what it reports (node.describe)",
		Scope: tools.ScopeRead, Schema: objReq([]string{"node"}, propNode), Args: []string{"node"},
		Examples: []string{"openclaw nodes describe --node build-box"},
		Run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
			n, err := resolveNode(ctx, env, gjson.GetBytes(raw, "node").String())
			if err != nil {
				return nil, err
			}
			res, err := callMethod(ctx, env, "node.describe", map[string]any{"nodeId": n.NodeID})
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(jsonValue(res))
		}, Render: renderDescribe})
	reg(&tools.Action{Verb: "pending", Summary: "List nodes' pending command-surface requests (node.pair.list)", Scope: protocol.ScopePairing,
		Schema: obj(), Examples: []string{"openclaw nodes pending"},
		Run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
			res, err := callMethod(ctx, env, "node.pair.list", map[string]any{})
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(jsonValue(res))
		}, Render: renderPending})
	// Approving a surface with system.run needs operator.admin (the
	// request's requiredApproveScopes); the action asks for it up front.
	reg(&tools.Action{Verb: "approve", Summary: "Approve a node's pending command surface by request id (from nodes pending)",
		Scope: tools.ScopeAdmin, Schema: objReq([]string{"requestId"}, `"requestId":{"type":"string","minLength":1}`), Args: []string{"requestId"},
		Examples: []string{"openclaw nodes approve 4109363c-13d9-4fad-b8b5-b9a4f1af1d71"},
		Run:      pairAction("node.pair.approve", "requestId"), Render: renderResolved("Approved")})
	reg(&tools.Action{Verb: "reject", Summary: "Reject a node's pending command surface by request id",
		Scope: protocol.ScopePairing, Schema: objReq([]string{"requestId"}, `"requestId":{"type":"string","minLength":1}`), Args: []string{"requestId"},
		Run: pairAction("node.pair.reject", "requestId"), Render: renderResolved("Rejected")})
	reg(&tools.Action{Verb: "remove", Summary: "Remove a node: forget its surface and revoke its device's node role (its connection closes)",
		Scope: protocol.ScopePairing, Schema: objReq([]string{"node"}, propNode), Args: []string{"node"},
		Run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
			n, err := resolveNode(ctx, env, gjson.GetBytes(raw, "node").String())
			if err != nil {
				return nil, err
			}
			res, err := callMethod(ctx, env, "node.pair.remove", map[string]any{"nodeId": n.NodeID})
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(jsonValue(res))
		}, Render: renderResolved("Removed")})
	reg(&tools.Action{Verb: "rename", Summary: "Rename a paired node", Scope: protocol.ScopePairing,
		Schema: objReq([]string{"node", "name"}, propNode, `"name":{"type":"string","minLength":1,"description":"New display name"}`),
		Args:   []string{"node", "name"}, Examples: []string{"openclaw nodes rename --node 914fe1 --name build-box"},
		Run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
			n, err := resolveNode(ctx, env, gjson.GetBytes(raw, "node").String())
			if err != nil {
				return nil, err
			}
			res, err := callMethod(ctx, env, "node.rename", map[string]any{"nodeId": n.NodeID, "displayName": gjson.GetBytes(raw, "name").String()})
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(jsonValue(res))
		}, Render: renderRenamed})
	reg(&tools.Action{Verb: "invoke", Summary: "Invoke any node command with JSON params (node.invoke; system.run goes through `nodes run`)",
		Schema: objReq([]string{"node", "command"}, propNode, propInvokeTimeout,
			`"command":{"type":"string","minLength":1,"description":"Node command (system.which, device.info, ...)"}`,
			`"params":{"type":["object","string"],"description":"Command params: a JSON object (default {}); on the command line --tool-params JSON"}`,
			`"idempotencyKey":{"type":"string","minLength":1}`),
		Examples:   []string{`openclaw nodes invoke --node build-box --command system.which --tool-params '{"bins":["git"]}'`},
		CallScopes: invokeScopes, Run: runInvoke, Render: renderPayload})
	reg(&tools.Action{Verb: "which", Summary: "Resolve executables on a node's PATH (system.which)",
		Schema: objReq([]string{"node", "bins"}, propNode, propInvokeTimeout,
			`"bins":{"type":"array","minItems":1,"items":{"type":"string","minLength":1},"description":"Executable names"}`),
		Args: []string{"node", "bins..."},
		Run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
			p := map[string]any{}
			_ = json.Unmarshal(raw, &p)
			n, err := resolveNode(ctx, env, str(p["node"]))
			if err != nil {
				return nil, err
			}
			res, err := invokeNode(ctx, env, n.NodeID, "system.which", map[string]any{"bins": p["bins"]}, timeoutOf(p, 15000))
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(jsonValue(res.Get("payload")))
		}, Render: renderPayload})
	reg(&tools.Action{Verb: "notify", Summary: "Show a notification on a node (system.notify; needs a title or a body)",
		Schema: objReq([]string{"node"}, propNode, propInvokeTimeout, `"title":{"type":"string"}`, `"body":{"type":"string"}`,
			`"sound":{"type":"string"}`, `"priority":{"type":"string","enum":["passive","active","timeSensitive"]}`,
			`"delivery":{"type":"string","enum":["system","overlay","auto"]}`),
		Examples: []string{"openclaw nodes notify --node build-box --title Build --body done"},
		Run:      runNotify})
	simple("camera_list", "camera.list", "List a node's cameras (camera.list)", 15000, nil, nil)
	simple("location_get", "location.get", "A node's location (location.get)", 20000,
		[]string{`"maxAgeMs":{"type":"integer","minimum":0}`, `"locationTimeoutMs":{"type":"integer","minimum":1}`,
			`"desiredAccuracy":{"type":"string","enum":["coarse","balanced","precise"]}`},
		func(p map[string]any) (map[string]any, error) {
			out := map[string]any{}
			copyKeys(out, p, "maxAgeMs", "desiredAccuracy")
			if v, ok := p["locationTimeoutMs"]; ok {
				out["timeoutMs"] = v
			}
			return out, nil
		})
	simple("notifications_list", "notifications.list", "A node's notifications (notifications.list)", 15000, nil, nil)
	simple("notifications_action", "notifications.actions", "Open, dismiss or reply to a node's notification (notifications.actions)", 15000,
		[]string{`"notificationKey":{"type":"string","minLength":1}`, `"notificationAction":{"type":"string","enum":["open","dismiss","reply"]}`,
			`"notificationReplyText":{"type":"string"}`},
		func(p map[string]any) (map[string]any, error) {
			key, action := str(p["notificationKey"]), str(p["notificationAction"])
			if key == "" || action == "" {
				return nil, tools.Errorf(tools.CodeInvalidParams, "notificationKey and notificationAction required")
			}
			out := map[string]any{"key": key, "action": action}
			if action == "reply" {
				if strings.TrimSpace(str(p["notificationReplyText"])) == "" {
					return nil, tools.Errorf(tools.CodeInvalidParams, "notificationReplyText required when notificationAction=reply")
				}
				out["replyText"] = p["notificationReplyText"]
			}
			return out, nil
		})
	for _, d := range []string{"status", "info", "permissions", "health"} {
		simple("device_"+d, "device."+d, "A node's device "+d+" (device."+d+")", 15000, nil, nil)
	}
	registerMedia()
	registerRun()
}

// str is a param as a trimmed string.
func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

func copyKeys(dst, src map[string]any, keys ...string) {
	for _, k := range keys {
		if v, ok := src[k]; ok {
			dst[k] = v
		}
	}
}

// timeoutOf is invokeTimeout, or def.
func timeoutOf(p map[string]any, def int64) int64 {
	switch v := p["invokeTimeout"].(type) {
	case float64:
		return int64(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
	}
	return def
}

// jsonValue decodes a gjson value for a result (nil for none).
func jsonValue(r gjson.Result) any {
	if !r.Exists() {
		return nil
	}
	var v any
	_ = json.Unmarshal([]byte(r.Raw), &v)
	return v
}

// callMethod runs a gateway method through the one door, as the caller.
func callMethod(ctx context.Context, env *tools.Env, method string, params any) (gjson.Result, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return gjson.Result{}, err
	}
	out, err := tools.Invoke(ctx, env, tools.Call{Method: method, Args: b})
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.ParseBytes(out), nil
}

// invokeNode is node.invoke of one command; a node timeout becomes TIMEOUT
// (exit 124), the rest keep the gateway's error.
func invokeNode(ctx context.Context, env *tools.Env, nodeID, command string, params any, timeoutMs int64) (gjson.Result, error) {
	args := map[string]any{"nodeId": nodeID, "command": command, "idempotencyKey": uuid.NewString()}
	if params != nil {
		args["params"] = params
	}
	if timeoutMs > 0 {
		args["timeoutMs"] = timeoutMs
	}
	res, err := callMethod(ctx, env, "node.invoke", args)
	if err != nil {
		if _, terr := invokeNodeErr(err, nodeID, command, timeoutMs); terr != nil {
			return gjson.Result{}, terr
		}
		return gjson.Result{}, err
	}
	return res, nil
}

// nodeRef is what resolving --node yields.
type nodeRef struct {
	NodeID, DisplayName string
	Commands            []string
	Connected           bool
}

// resolveNode finds the node --node names (Resolve: id, IP, display
// name with case and punctuation folded, id prefix).
func resolveNode(ctx context.Context, env *tools.Env, q string) (nodeRef, error) {
	n, err := Resolve(ctx, env, q)
	if err != nil {
		return nodeRef{}, err
	}
	return nodeRef{NodeID: n.NodeID, DisplayName: n.DisplayName, Commands: n.Commands, Connected: n.Connected}, nil
}

func runStatus(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	var p struct {
		Connected     bool   `json:"connected"`
		LastConnected string `json:"lastConnected"`
	}
	_ = json.Unmarshal(raw, &p)
	var within time.Duration
	if p.LastConnected != "" {
		d, err := parseAge(p.LastConnected)
		if err != nil {
			return nil, err
		}
		within = d
	}
	res, err := callMethod(ctx, env, "node.list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Raw), &out); err != nil {
		return nil, err
	}
	if p.Connected || within > 0 {
		nodes, _ := out["nodes"].([]any)
		kept := []any{}
		cutoff := time.Now().Add(-within).UnixMilli()
		for _, n := range nodes {
			m, _ := n.(map[string]any)
			connected, _ := m["connected"].(bool)
			last, _ := m["lastConnectedAtMs"].(float64)
			if p.Connected && !connected {
				continue
			}
			if within > 0 && !connected && int64(last) < cutoff {
				continue
			}
			kept = append(kept, m)
		}
		out["nodes"] = kept
	}
	return tools.JSONResult(out)
}

// parseAge reads 90m, 24h, 7d (and Go durations).
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "d") {
		var n float64
		if _, err := fmt.Sscanf(strings.TrimSuffix(s, "d"), "%g", &n); err == nil && n > 0 {
			return time.Duration(n * float64(24*time.Hour)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, tools.Errorf(tools.CodeInvalidParams, "lastConnected: %q is not a duration (90m, 24h, 7d)", s)
	}
	return d, nil
}

func pairAction(method, key string) tools.Handler {
	return func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
		res, err := callMethod(ctx, env, method, map[string]any{key: gjson.GetBytes(raw, key).String()})
		if err != nil {
			return nil, err
		}
		return tools.JSONResult(jsonValue(res))
	}
}

func runInvoke(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	p := map[string]any{}
	_ = json.Unmarshal(raw, &p)
	command := str(p["command"])
	if command == "system.run" || command == "system.run.prepare" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "nodes invoke does not run %s: use `openclaw nodes run` or exec with host=node (they go through exec approvals)", command)
	}
	var params any = map[string]any{}
	switch v := p["params"].(type) {
	case string:
		if strings.TrimSpace(v) != "" {
			if err := json.Unmarshal([]byte(v), &params); err != nil {
				return nil, tools.Errorf(tools.CodeInvalidParams, "params is not JSON: %v", err)
			}
		}
	case map[string]any:
		params = v
	}
	if _, ok := params.(map[string]any); !ok {
		return nil, tools.Errorf(tools.CodeInvalidParams, "params must be a JSON object")
	}
	n, err := resolveNode(ctx, env, str(p["node"]))
	if err != nil {
		return nil, err
	}
	args := map[string]any{"nodeId": n.NodeID, "command": command, "params": params, "idempotencyKey": first(str(p["idempotencyKey"]), uuid.NewString())}
	args["timeoutMs"] = timeoutOf(p, 15000)
	res, err := callMethod(ctx, env, "node.invoke", args)
	if err != nil {
		if _, terr := invokeNodeErr(err, n.NodeID, command, timeoutOf(p, 15000)); terr != nil {
			return nil, terr
		}
		return nil, err
	}
	return tools.JSONResult(jsonValue(res))
}

// invokeNodeErr maps a node timeout to TIMEOUT, as invokeNode does.
func invokeNodeErr(err error, nodeID, command string, timeoutMs int64) (bool, error) {
	var te *tools.Error
	if errors.As(err, &te) {
		if d, ok := te.Details.(map[string]any); ok {
			if ne, ok := d["nodeError"].(*nodeError); ok && ne.Code == "TIMEOUT" {
				return true, tools.Errorf(tools.CodeTimeout, "%s (node %s, command %s, after %d ms)", te.Message, short(nodeID), command, timeoutMs).WithDetails(d)
			}
		}
	}
	return false, nil
}

func runNotify(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	p := map[string]any{}
	_ = json.Unmarshal(raw, &p)
	if str(p["title"]) == "" && str(p["body"]) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "notify needs a title or a body")
	}
	n, err := resolveNode(ctx, env, str(p["node"]))
	if err != nil {
		return nil, err
	}
	params := map[string]any{"title": str(p["title"]), "body": str(p["body"])}
	copyKeys(params, p, "sound", "priority", "delivery")
	if _, err := invokeNode(ctx, env, n.NodeID, "system.notify", params, timeoutOf(p, 15000)); err != nil {
		return nil, err
	}
	return tools.JSONResult(map[string]any{"ok": true})
}

// hint sets an action's behaviour hints (tools.Action.ReadOnly…): every
// nodes action reaches another device, so all are open-world.
func hint(a *tools.Action) {
	a.OpenWorld = true
	switch a.Verb {
	case "status", "describe", "pending", "camera_list", "camera_snap", "camera_clip", "screen_record",
		"device_health", "device_info", "device_permissions", "device_status", "location_get",
		"notifications_list", "which":
		a.ReadOnly, a.Idempotent = true, true
	case "approve", "reject", "rename":
		a.Idempotent = true
	case "remove":
		a.Destructive, a.Idempotent = true, true
	case "invoke", "run", "notifications_action":
		a.Destructive = true
	}
}
