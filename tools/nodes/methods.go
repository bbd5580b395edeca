package nodes

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// The node.* gateway methods under the original's names, params and
// scopes (§5.2, method-scopes.ts): operators list, describe, pair and
// invoke nodes; node hosts answer invokes and report what they have.
func init() {
	op := func(name, summary, scope, schema string, run tools.Handler) {
		tools.Register(&tools.Action{Method: name, Summary: summary, Scope: scope, Where: tools.Gateway,
			Hidden: true, Schema: schema, Run: run})
	}
	node := func(name, summary, schema string, run tools.Handler) {
		tools.Register(&tools.Action{Method: name, Summary: summary, Roles: []string{protocol.RoleNode},
			Where: tools.Gateway, Hidden: true, Schema: schema, Run: run})
	}
	const empty = `{"type":"object","additionalProperties":false}`
	nodeID := `{"type":"object","required":["nodeId"],"properties":{"nodeId":{"type":"string","minLength":1}},"additionalProperties":false}`
	requestID := `{"type":"object","required":["requestId"],"properties":{"requestId":{"type":"string","minLength":1}},"additionalProperties":false}`

	op("node.list", "List paired, pending and connected nodes", protocol.ScopeRead, empty, listMethod)
	op("node.describe", "Describe one node", protocol.ScopeRead, nodeID, tools.Typed(describeMethod))
	op("node.rename", "Rename a paired node", protocol.ScopePairing,
		`{"type":"object","required":["nodeId","displayName"],"properties":{"nodeId":{"type":"string","minLength":1},"displayName":{"type":"string","minLength":1}},"additionalProperties":false}`,
		tools.Typed(func(ctx context.Context, env *tools.Env, p struct{ NodeID, DisplayName string }) (any, error) {
			h, err := hubOf(env, "node.rename")
			if err != nil {
				return nil, err
			}
			return h.rename(p.NodeID, p.DisplayName)
		}))
	op("node.pair.list", "List pending node surface requests and paired nodes", protocol.ScopePairing, empty,
		func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			h, err := hubOf(env, "node.pair.list")
			if err != nil {
				return nil, err
			}
			return h.pairList(), nil
		})
	op("node.pair.approve", "Approve a node's pending command surface", protocol.ScopePairing, requestID,
		tools.Typed(func(ctx context.Context, env *tools.Env, p struct{ RequestID string }) (any, error) {
			h, err := hubOf(env, "node.pair.approve")
			if err != nil {
				return nil, err
			}
			return h.approve(env, p.RequestID)
		}))
	op("node.pair.reject", "Reject a node's pending command surface", protocol.ScopePairing, requestID,
		tools.Typed(func(ctx context.Context, env *tools.Env, p struct{ RequestID string }) (any, error) {
			h, err := hubOf(env, "node.pair.reject")
			if err != nil {
				return nil, err
			}
			return h.reject(p.RequestID)
		}))
	op("node.pair.remove", "Remove a paired node (its device's node role is revoked)", protocol.ScopePairing, nodeID,
		tools.Typed(func(ctx context.Context, env *tools.Env, p struct{ NodeID string }) (any, error) {
			h, err := hubOf(env, "node.pair.remove")
			if err != nil {
				return nil, err
			}
			return h.remove(ctx, env, p.NodeID)
		}))
	tools.Register(&tools.Action{Method: "node.invoke", Summary: "Invoke a command on a connected node (admin for browser.proxy*, fs.listDir, terminal.upload)",
		Scope: protocol.ScopeWrite, CallScopes: invokeScopes, Where: tools.Gateway, Hidden: true, Schema: `{"type":"object","required":["nodeId","command","idempotencyKey"],"properties":{
			"nodeId":{"type":"string","minLength":1},"command":{"type":"string","minLength":1},"params":{},
			"timeoutMs":{"type":"integer","minimum":0},"idempotencyKey":{"type":"string","minLength":1},
			"sessionKey":{"type":"string","minLength":1},"turnSourceChannel":{"type":"string"},"turnSourceTo":{"type":"string"},
			"turnSourceAccountId":{"type":"string"},"turnSourceThreadId":{"type":["string","number"]}},"additionalProperties":false}`,
		Run: invokeMethod})
	op("node.pending.enqueue", "Queue a status or location request for a node", protocol.ScopeWrite,
		`{"type":"object","required":["nodeId","type"],"properties":{"nodeId":{"type":"string","minLength":1},
			"type":{"type":"string","enum":["status.request","location.request"]},"priority":{"type":"string","enum":["normal","high"]},
			"expiresInMs":{"type":"integer","minimum":1000,"maximum":86400000},"wake":{"type":"boolean"}},"additionalProperties":false}`,
		tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			NodeID, Type, Priority string
			ExpiresInMs            int64
		}) (any, error) {
			h, err := hubOf(env, "node.pending.enqueue")
			if err != nil {
				return nil, err
			}
			rev, item := h.enqueue(strings.TrimSpace(p.NodeID), p.Type, p.Priority, p.ExpiresInMs)
			return map[string]any{"nodeId": strings.TrimSpace(p.NodeID), "revision": rev, "queued": item, "wakeTriggered": false}, nil
		}))

	node("node.invoke.result", "A node's answer to node.invoke.request",
		`{"type":"object","required":["id","nodeId","ok"],"properties":{"id":{"type":"string","minLength":1},
			"nodeId":{"type":"string","minLength":1},"ok":{"type":"boolean"},"payload":{},"payloadJSON":{"type":["string","null"]},
			"error":{"type":["object","null"],"properties":{"code":{"type":"string"},"message":{"type":"string"}}}},"additionalProperties":false}`,
		resultMethod)
	node("node.invoke.progress", "Streamed output of a running node invoke",
		`{"type":"object","required":["invokeId","nodeId","seq","chunk"],"properties":{"invokeId":{"type":"string","minLength":1},
			"nodeId":{"type":"string","minLength":1},"seq":{"type":"integer","minimum":0},"chunk":{"type":"string","maxLength":16384}},"additionalProperties":false}`,
		tools.Typed(progressMethod))
	node("node.event", "An event from a node (node.host.stats, presence, exec.*)",
		`{"type":"object","required":["event"],"properties":{"event":{"type":"string","minLength":1},"payload":{},
			"payloadJSON":{"type":["string","null"]}},"additionalProperties":false}`, eventMethod)
	node("node.skills.update", "A node's agent-visible skills",
		`{"type":"object","required":["skills"],"properties":{"skills":{"type":"array","maxItems":64,"items":{"type":"object",
			"required":["name","description","content"],"properties":{"name":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"},
			"description":{"type":"string","minLength":1,"maxLength":1024},"content":{"type":"string","minLength":1,"maxLength":65536}},"additionalProperties":false}}},"additionalProperties":false}`,
		reportMethod("node.skills.update", "skills"))
	node("node.pluginTools.update", "A node's agent-visible plugin and MCP tools",
		`{"type":"object","required":["tools"],"properties":{"tools":{"type":"array","items":{"type":"object",
			"required":["pluginId","name","description"],"properties":{"pluginId":{"type":"string","minLength":1},
			"name":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[A-Za-z][A-Za-z0-9_-]{0,63}$"},"description":{"type":"string","minLength":1},
			"parameters":{"type":"object"},"command":{"type":"string","minLength":1},
			"mcp":{"type":"object","required":["server","tool"],"properties":{"server":{"type":"string","minLength":1},"tool":{"type":"string","minLength":1}},"additionalProperties":false}},
			"additionalProperties":false}}},"additionalProperties":false}`,
		reportMethod("node.pluginTools.update", "tools"))
	node("node.runnerInventory.update", "A node's worker runner inventory",
		`{"type":"object","required":["protocolFeatures"],"properties":{"protocolFeatures":{"type":"array","items":{"type":"string"}},"workerHost":{"type":"object"}}}`,
		reportMethod("node.runnerInventory.update", "runnerInventory"))
	node("skills.bins", "Executables the gateway's skills name (a node trusts them for exec allowlists)", empty,
		func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			// No skills are installed on this gateway: nothing to trust.
			return map[string]any{"bins": []string{}}, nil
		})
	node("node.pending.pull", "The node's deferred invokes", empty,
		func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			h, ln, err := callerHub(env, "node.pending.pull")
			if err != nil {
				return nil, err
			}
			return map[string]any{"nodeId": ln.nodeID, "actions": h.pullActions(ln.nodeID)}, nil
		})
	node("node.pending.ack", "Acknowledge deferred invokes the node consumed",
		`{"type":"object","required":["ids"],"properties":{"ids":{"type":"array","minItems":1,"items":{"type":"string","minLength":1}}},"additionalProperties":false}`,
		tools.Typed(func(ctx context.Context, env *tools.Env, p struct{ IDs []string }) (any, error) {
			h, ln, err := callerHub(env, "node.pending.ack")
			if err != nil {
				return nil, err
			}
			ids := normList(p.IDs)
			return map[string]any{"nodeId": ln.nodeID, "ackedIds": ids, "remainingCount": h.ackActions(ln.nodeID, ids)}, nil
		}))
	node("node.pending.drain", "Take the node's queued work (a baseline status request included)",
		`{"type":"object","properties":{"maxItems":{"type":"integer","minimum":1,"maximum":10}},"additionalProperties":false}`,
		tools.Typed(func(ctx context.Context, env *tools.Env, p struct{ MaxItems int }) (any, error) {
			h, ln, err := callerHub(env, "node.pending.drain")
			if err != nil {
				return nil, err
			}
			return h.drain(ln.nodeID, p.MaxItems), nil
		}))
}

// callerHub is the service and the calling node, for node-role methods.
func callerHub(env *tools.Env, what string) (*hub, *liveNode, error) {
	h, err := hubOf(env, what)
	if err != nil {
		return nil, nil, err
	}
	ln, err := h.callerNode(env)
	if err != nil {
		return nil, nil, tools.Errorf(protocol.ErrInvalidRequest, "unknown nodeId")
	}
	return h, ln, nil
}

// canReadPairing: operators with operator.pairing (and in-process callers)
// see pending requests and declared surfaces in node.list/describe.
func canReadPairing(env *tools.Env) bool {
	return !env.Subject.ViaGateway() || protocol.ScopeSatisfied(env.Subject.Scopes, protocol.ScopePairing)
}

func listMethod(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
	h, err := hubOf(env, "node.list")
	if err != nil {
		return nil, err
	}
	return map[string]any{"ts": nowMs(), "nodes": h.entries(env.Config, "", canReadPairing(env))}, nil
}

func describeMethod(ctx context.Context, env *tools.Env, p struct{ NodeID string }) (any, error) {
	h, err := hubOf(env, "node.describe")
	if err != nil {
		return nil, err
	}
	list := h.entries(env.Config, strings.TrimSpace(p.NodeID), canReadPairing(env))
	if len(list) == 0 {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "unknown nodeId")
	}
	b, err := json.Marshal(list[0])
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	out["ts"] = nowMs()
	return out, nil
}

// invokeParams are node.invoke's params.
type invokeParams struct {
	NodeID         string          `json:"nodeId"`
	Command        string          `json:"command"`
	Params         json.RawMessage `json:"params"`
	TimeoutMs      *int64          `json:"timeoutMs"`
	IdempotencyKey string          `json:"idempotencyKey"`
	SessionKey     string          `json:"sessionKey"`
}

func invokeMethod(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	var p invokeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid node.invoke params: %v", err)
	}
	h, err := hubOf(env, "node.invoke")
	if err != nil {
		return nil, err
	}
	return h.invokeChecked(ctx, env, p, false)
}

// invokeChecked is node.invoke: the command rules (private controls and
// the approvals file are never reachable here; admin-only commands need
// operator.admin; the command must be effective on that node), system.run
// approval binding, then the dispatch. internal admits
// system.execApprovals.* for exec.approvals.node.get/set.
func (h *hub) invokeChecked(ctx context.Context, env *tools.Env, p invokeParams, internal bool) (any, error) {
	nodeID, command := strings.TrimSpace(p.NodeID), strings.TrimSpace(p.Command)
	if nodeID == "" || command == "" {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "nodeId and command required")
	}
	details := map[string]any{"command": command}
	if isPrivateCommand(command) {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "node.invoke does not allow private node controls").WithDetails(details)
	}
	if !internal && (command == "system.execApprovals.get" || command == "system.execApprovals.set") {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "node.invoke does not allow system.execApprovals.*; use exec.approvals.node.*").WithDetails(details)
	}
	if command == "agent.cli.claude.run.v1" {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "node.invoke does not allow %s", command).WithDetails(details)
	}
	var params any
	hasParams := len(p.Params) > 0 && string(p.Params) != "null"
	if hasParams {
		if err := json.Unmarshal(p.Params, &params); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "invalid node.invoke params: %v", err)
		}
	}
	if strings.HasPrefix(command, "browser.proxy") && browserProxyMutation(params) {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "node.invoke cannot mutate persistent browser profiles via %s", command).WithDetails(details)
	}
	if tables().adminInvoke[command] && env.Subject.ViaGateway() && !protocol.ScopeSatisfied(env.Subject.Scopes, protocol.ScopeAdmin) {
		return nil, tools.Errorf(protocol.ErrForbidden, "missing scope: %s", protocol.ScopeAdmin).WithDetails(map[string]any{
			"code": protocol.DetailMissingScope, "missingScope": protocol.ScopeAdmin, "requiredScopes": []string{protocol.ScopeAdmin}})
	}
	h.reap()
	h.mu.Lock()
	ln := h.live[nodeID]
	var effective []string
	if ln != nil {
		_, effective, _ = h.effective(env.Config, ln)
	}
	h.mu.Unlock()
	if ln == nil {
		return nil, invokeError(invokeOutcome{err: &nodeError{Code: "NOT_CONNECTED", Message: "node not connected"}}, false)
	}
	if reason := commandAllowed(command, effective, ln.allDeclared); reason != "" {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "%s", commandRejection(reason, command, ln.info.Client.Platform, ln.allDeclared, env.Config)).
			WithDetails(map[string]any{"reason": reason, "command": command})
	}
	if command == "system.run" {
		sanitized, err := h.sanitizeSystemRun(ctx, env, nodeID, params)
		if err != nil {
			return nil, err
		}
		params, hasParams = sanitized, true
	}
	timeout := time.Duration(0)
	if p.TimeoutMs != nil && *p.TimeoutMs > 0 {
		timeout = time.Duration(*p.TimeoutMs) * time.Millisecond
	}
	req := invokeRequest{nodeID: nodeID, command: command, params: params, hasParams: hasParams, timeout: timeout,
		idempotencyKey: p.IdempotencyKey, sessionKey: p.SessionKey,
		progress: func(seq int64, chunk string) {
			env.Event("node.invoke.progress", map[string]any{"nodeId": nodeID, "command": command, "seq": seq, "chunk": chunk})
		}}
	out, dispatched := h.dispatch(ctx, req)
	if out.err != nil || !out.ok {
		return nil, invokeError(out, dispatched)
	}
	answer, err := invokeAnswer(nodeID, command, out)
	if err != nil {
		return nil, err
	}
	return answer, nil
}

// commandAllowed is "" when command may run, else the original's reason.
func commandAllowed(command string, effective, declared []string) string {
	switch {
	case isPrivateCommand(command):
		return "command not allowlisted"
	case len(effective) == 0:
		return "node did not declare commands"
	}
	for _, c := range effective {
		if c == command {
			return ""
		}
	}
	for _, c := range declared {
		if c == command {
			return "command not allowlisted"
		}
	}
	return "command not declared by node"
}

// browserProxyMutation: creating, deleting or resetting a persistent
// browser profile is not an operator's to do through a node.
func browserProxyMutation(params any) bool {
	m, _ := params.(map[string]any)
	if m == nil {
		return false
	}
	method, _ := m["method"].(string)
	path, _ := m["path"].(string)
	method, path = strings.ToUpper(strings.TrimSpace(method)), strings.TrimSpace(path)
	if method == "" || path == "" {
		return false
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	path = strings.TrimRight(path, "/")
	if method == "POST" && (path == "/profiles/create" || path == "/reset-profile") {
		return true
	}
	if method == "DELETE" && strings.HasPrefix(path, "/profiles/") {
		rest := strings.TrimPrefix(path, "/profiles/")
		return rest != "" && !strings.Contains(rest, "/")
	}
	return false
}

// resultParams are node.invoke.result's params.
type resultParams struct {
	ID          string          `json:"id"`
	NodeID      string          `json:"nodeId"`
	OK          bool            `json:"ok"`
	Payload     json.RawMessage `json:"payload"`
	PayloadJSON *string         `json:"payloadJSON"`
	Error       *nodeError      `json:"error"`
}

func resultMethod(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	var p resultParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid node.invoke.result params: %v", err)
	}
	h, ln, err := callerHub(env, "node.invoke.result")
	if err != nil {
		return nil, err
	}
	if ln.nodeID != p.NodeID {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "nodeId mismatch")
	}
	o := invokeOutcome{ok: p.OK, payloadJSON: p.PayloadJSON, err: p.Error}
	if string(p.Payload) != "null" {
		o.payload = p.Payload
	}
	if !p.OK && o.err == nil {
		o.err = &nodeError{}
	}
	if p.OK {
		o.err = nil
	}
	h.touch(ln, "invoke")
	return ack{OK: true, Ignored: !h.result(env.ConnID, p.ID, o)}, nil
}

func progressMethod(ctx context.Context, env *tools.Env, p struct {
	InvokeID, NodeID, Chunk string
	Seq                     int64
}) (any, error) {
	h, ln, err := callerHub(env, "node.invoke.progress")
	if err != nil {
		return nil, err
	}
	if ln.nodeID != p.NodeID {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "nodeId mismatch")
	}
	if len(p.Chunk) > 16384 {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "progress chunk too large")
	}
	return struct {
		OK      bool `json:"ok"`
		Ignored bool `json:"ignored"`
	}{true, !h.progressed(env.ConnID, p.InvokeID, p.Seq, p.Chunk)}, nil
}

// ack is node.invoke.result's answer: {ok:true}, or {ok:true,
// ignored:true} when nobody waits for that result any more.
type ack struct {
	OK      bool `json:"ok"`
	Ignored bool `json:"ignored,omitempty"`
}

// touch records that a node was seen.
func (h *hub) touch(ln *liveNode, reason string) {
	h.mu.Lock()
	ln.lastSeenAtMs, ln.lastSeenReason = nowMs(), reason
	h.mu.Unlock()
}

// reportMethod keeps what a node reports about itself (skills, plugin
// tools, runner inventory) on its live record; node.describe shows it.
func reportMethod(method, kind string) tools.Handler {
	return func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
		h, ln, err := callerHub(env, method)
		if err != nil {
			return nil, err
		}
		if len(raw) > maxReportBytes {
			return nil, tools.Errorf(protocol.ErrInvalidRequest, "node %s report too large (%d bytes, at most %d)", kind, len(raw), maxReportBytes)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "invalid params: %v", err)
		}
		if kind == "skills" {
			var skills []struct{ Name string }
			_ = json.Unmarshal(m["skills"], &skills)
			for i, sk := range skills {
				if strings.Contains(sk.Name, "--") {
					return nil, tools.Errorf(tools.CodeInvalidParams, "invalid node.skills.update params: /skills/%d/name must not contain \"--\"", i)
				}
			}
		}
		h.mu.Lock()
		switch kind {
		case "skills":
			ln.skills = m["skills"]
		case "tools":
			ln.pluginTools = m["tools"]
		case "runnerInventory":
			ln.runnerInventory = json.RawMessage(append([]byte(nil), raw...))
		}
		h.mu.Unlock()
		switch kind {
		case "skills":
			return map[string]any{"nodeId": ln.nodeID, "skills": m["skills"]}, nil
		case "tools":
			return map[string]any{"nodeId": ln.nodeID, "tools": m["tools"]}, nil
		}
		return map[string]any{"nodeId": ln.nodeID}, nil
	}
}

// invokeScopes: a node command that reads files or drives the node's
// browser needs operator.admin besides node.invoke's write, so the CLI asks
// for it with such a call (and only then).
func invokeScopes(raw json.RawMessage) []string {
	if tables().adminInvoke[gjson.GetBytes(raw, "command").String()] {
		return []string{protocol.ScopeAdmin}
	}
	return nil
}
