package nodes

import (
	"context"

	"encoding/json"
	"github.com/google/uuid"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// exec.approvals.node.get|set (operator.admin) read and replace a node's
// own exec approvals file through its system.execApprovals.get|set, which
// node.invoke refuses to relay: the node's answer ({path, exists, hash,
// file}) is the result, and set is compare-and-set on baseHash there.
func init() {
	reg := func(name, summary, schema, command string, params func(raw map[string]json.RawMessage) any) {
		tools.Register(&tools.Action{Method: name, Summary: summary, Scope: protocol.ScopeAdmin, Where: tools.Gateway,
			Hidden: true, Schema: schema,
			Run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(raw, &m); err != nil {
					return nil, tools.Errorf(tools.CodeInvalidParams, "invalid %s params: %v", name, err)
				}
				var nodeID string
				_ = json.Unmarshal(m["nodeId"], &nodeID)
				h, err := hubOf(env, name)
				if err != nil {
					return nil, err
				}
				return h.relayApprovals(ctx, env, strings.TrimSpace(nodeID), command, params(m))
			}})
	}
	reg("exec.approvals.node.get", "Read a node's exec approvals file ({path, exists, hash, file})",
		`{"type":"object","required":["nodeId"],"properties":{"nodeId":{"type":"string","minLength":1}},"additionalProperties":false}`,
		"system.execApprovals.get", func(map[string]json.RawMessage) any { return map[string]any{} })
	reg("exec.approvals.node.set", "Replace a node's exec approvals file (baseHash: compare-and-set on the node)",
		`{"type":"object","required":["nodeId","file"],"properties":{"nodeId":{"type":"string","minLength":1},"file":{"type":"object"},"baseHash":{"type":["string","null"]}},"additionalProperties":false}`,
		"system.execApprovals.set", func(m map[string]json.RawMessage) any {
			out := map[string]any{"file": m["file"]}
			if b, ok := m["baseHash"]; ok && string(b) != "null" {
				out["baseHash"] = b
			}
			return out
		})
}

// relayApprovals invokes system.execApprovals.* on the node when its
// surface carries the command, and answers with the node's payload.
func (h *hub) relayApprovals(ctx context.Context, env *tools.Env, nodeID, command string, params any) (any, error) {
	if nodeID == "" {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "nodeId required")
	}
	nodeID = h.resolveID(nodeID)
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	res, err := h.invokeChecked(ctx, env, invokeParams{NodeID: nodeID, Command: command, Params: b,
		IdempotencyKey: uuid.NewString()}, true)
	if err != nil {
		if te := tools.AsError(err); te.Code == protocol.ErrInvalidRequest && strings.HasPrefix(te.Message, "node command not allowed") {
			return nil, tools.Errorf(protocol.ErrInvalidRequest, "node command not allowed: %s (%v)", command, reasonOf(te)).WithDetails(te.Details)
		}
		return nil, err
	}
	var payload any
	if answer, ok := res.(*invokeReply); ok {
		_ = json.Unmarshal(answer.Payload, &payload)
	}
	if command == "system.execApprovals.get" {
		if m, ok := payload.(map[string]any); !ok || m["file"] == nil {
			return nil, tools.Errorf(protocol.ErrInvalidRequest, "node returned invalid exec approvals payload")
		}
	}
	return payload, nil
}

func reasonOf(e *tools.Error) any {
	if d, ok := e.Details.(map[string]any); ok {
		return d["reason"]
	}
	return "not allowed"
}

// resolveID turns what names a known node (Match) into its id; no match,
// or several, leaves the query as given (an exact id of a node not known
// here is the node's own business).
func (h *hub) resolveID(q string) string {
	h.mu.Lock()
	var all []Listed
	seen := map[string]bool{}
	for id, ln := range h.live {
		seen[id] = true
		all = append(all, Listed{NodeID: id, DisplayName: first(h.nameOf(id), ln.info.Client.DisplayName), RemoteIP: ln.info.RemoteIP, Connected: true})
	}
	for id, p := range h.paired {
		if !seen[id] {
			all = append(all, Listed{NodeID: id, DisplayName: p.DisplayName, RemoteIP: p.RemoteIP})
		}
	}
	h.mu.Unlock()
	if n, err := Match(all, q); err == nil {
		return n.NodeID
	}
	return q
}

// nameOf is a paired node's display name (h.mu held).
func (h *hub) nameOf(id string) string {
	if p := h.paired[id]; p != nil {
		return p.DisplayName
	}
	return ""
}
