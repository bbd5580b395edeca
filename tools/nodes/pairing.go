package nodes

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// pairList is node.pair.list: pending requests newest first, paired nodes
// most recently approved first.
func (h *hub) pairList() map[string]any {
	h.reap()
	h.mu.Lock()
	defer h.mu.Unlock()
	pending := make([]pendingRequest, 0, len(h.pending))
	for _, p := range h.pending {
		pending = append(pending, *p)
	}
	sort.Slice(pending, func(i, j int) bool {
		if pending[i].TS != pending[j].TS {
			return pending[i].TS > pending[j].TS
		}
		return pending[i].RequestID < pending[j].RequestID
	})
	paired := make([]pairedNode, 0, len(h.paired))
	for _, p := range h.paired {
		cp := *p
		if ln := h.live[p.NodeID]; ln != nil && ln.hostStats != nil {
			cp.LastHostStats = ln.hostStatsRecord()
		}
		paired = append(paired, cp)
	}
	sort.Slice(paired, func(i, j int) bool {
		if paired[i].ApprovedAtMs != paired[j].ApprovedAtMs {
			return paired[i].ApprovedAtMs > paired[j].ApprovedAtMs
		}
		return paired[i].NodeID < paired[j].NodeID
	})
	out := map[string]any{"pending": pending, "paired": paired}
	if h.pendingDropped > 0 {
		// Not the original's: it drops the excess without a word.
		out["dropped"] = h.pendingDropped
		out["maxPending"] = maxPending
	}
	return out
}

// missingScope is the FORBIDDEN answer for an approver short of a scope.
func missingScope(scope string) error {
	return tools.Errorf(protocol.ErrForbidden, "missing scope: %s", scope).WithDetails(map[string]any{
		"code": protocol.DetailMissingScope, "missingScope": scope, "requiredScopes": []string{protocol.ScopePairing, scope}})
}

// approve grants a pending surface: the node's approved caps, commands and
// permissions become the request's; a connected node gets
// node.pair.resolved on its own connection too.
func (h *hub) approve(env *tools.Env, requestID string) (map[string]any, error) {
	h.mu.Lock()
	p := h.pending[requestID]
	if p == nil {
		h.mu.Unlock()
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "unknown requestId")
	}
	if env.Subject.ViaGateway() {
		for _, sc := range p.RequiredApproveScopes {
			if !protocol.ScopeSatisfied(env.Subject.Scopes, sc) {
				h.mu.Unlock()
				return nil, missingScope(sc)
			}
		}
	}
	now := nowMs()
	rec := h.paired[p.NodeID]
	if rec == nil {
		rec = &pairedNode{NodeID: p.NodeID, CreatedAtMs: now}
	}
	next := *rec
	next.ClientID, next.ClientMode, next.Platform = p.ClientID, p.ClientMode, p.Platform
	next.DeviceFamily, next.ModelIdentifier, next.RemoteIP = p.DeviceFamily, p.ModelIdentifier, p.RemoteIP
	if next.DisplayName == "" {
		next.DisplayName = p.DisplayName
	}
	if p.Version != "" {
		next.Version = p.Version
	}
	next.Caps, next.Commands = slices.Clone(p.Caps), slices.Clone(p.Commands)
	next.Permissions = maps.Clone(p.Permissions)
	next.ApprovedAtMs = now
	h.mu.Unlock()
	if err := h.persist(p.NodeID, &next); err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%v", err)
	}
	h.mu.Lock()
	if h.pending[requestID] != p { // resolved meanwhile by someone else
		h.mu.Unlock()
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "unknown requestId")
	}
	delete(h.pending, requestID)
	h.paired[p.NodeID] = &next
	connID := ""
	if ln := h.live[p.NodeID]; ln != nil {
		connID = ln.info.ConnID
	}
	h.mu.Unlock()
	resolved := map[string]any{"requestId": requestID, "nodeId": p.NodeID, "decision": "approved", "ts": now}
	if connID != "" && h.conns != nil {
		_ = h.conns.Send(connID, "node.pair.resolved", resolved)
	}
	h.publish("node.pair.resolved", resolved)
	return map[string]any{"requestId": requestID, "node": next}, nil
}

// reject drops a pending surface; what was approved before stays.
func (h *hub) reject(requestID string) (map[string]any, error) {
	h.mu.Lock()
	p := h.pending[requestID]
	if p == nil {
		h.mu.Unlock()
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "unknown requestId")
	}
	delete(h.pending, requestID)
	h.mu.Unlock()
	h.publish("node.pair.resolved", map[string]any{"requestId": requestID, "nodeId": p.NodeID, "decision": "rejected", "ts": nowMs()})
	return map[string]any{"requestId": requestID, "nodeId": p.NodeID}, nil
}

// remove forgets a node's approved surface and pending request, and revokes
// its device's node role: a node-only device is unpaired (its connections
// close), a device that is also an operator loses its node token. Both go
// through the device.* methods with the caller's own scopes.
func (h *hub) remove(ctx context.Context, env *tools.Env, nodeID string) (map[string]any, error) {
	nodeID = strings.TrimSpace(nodeID)
	h.mu.Lock()
	_, known := h.paired[nodeID]
	_, online := h.live[nodeID]
	pend := h.pendingFor(nodeID)
	h.mu.Unlock()
	if !known && !online && pend == nil {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "unknown nodeId")
	}
	if err := h.persist(nodeID, nil); err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%v", err)
	}
	h.mu.Lock()
	delete(h.paired, nodeID)
	for id, p := range h.pending {
		if p.NodeID == nodeID {
			delete(h.pending, id)
		}
	}
	delete(h.work, nodeID)
	delete(h.actions, nodeID)
	h.mu.Unlock()
	h.publish("node.pair.resolved", map[string]any{"requestId": "", "nodeId": nodeID, "decision": "removed", "ts": nowMs()})
	if err := revokeNodeDevice(ctx, env, nodeID); err != nil {
		return nil, err
	}
	return map[string]any{"nodeId": nodeID}, nil
}

// revokeNodeDevice takes the node role from the node's paired device.
func revokeNodeDevice(ctx context.Context, env *tools.Env, deviceID string) error {
	list, err := tools.Invoke(ctx, env, tools.Call{Method: "device.pair.list", Args: json.RawMessage(`{}`)})
	if err != nil {
		return err
	}
	var roles []string
	found := false
	gjson.GetBytes(list, "paired").ForEach(func(_, d gjson.Result) bool {
		if d.Get("deviceId").String() != deviceID {
			return true
		}
		found = true
		d.Get("roles").ForEach(func(_, r gjson.Result) bool { roles = append(roles, r.String()); return true })
		return false
	})
	if !found || !slices.Contains(roles, protocol.RoleNode) {
		return nil
	}
	args, _ := json.Marshal(map[string]string{"deviceId": deviceID, "role": protocol.RoleNode})
	method := "device.token.revoke"
	if len(roles) == 1 {
		method = "device.pair.remove"
		args, _ = json.Marshal(map[string]string{"deviceId": deviceID})
	}
	_, err = tools.Invoke(ctx, env, tools.Call{Method: method, Args: args})
	return err
}

// rename sets a paired node's display name.
func (h *hub) rename(nodeID, name string) (map[string]any, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "displayName required")
	}
	h.mu.Lock()
	rec := h.paired[nodeID]
	if rec == nil {
		h.mu.Unlock()
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "unknown nodeId")
	}
	next := *rec
	next.DisplayName = name
	h.mu.Unlock()
	if err := h.persist(nodeID, &next); err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%v", err)
	}
	h.mu.Lock()
	if cur := h.paired[nodeID]; cur != nil {
		cur.DisplayName = name
	}
	h.mu.Unlock()
	return map[string]any{"nodeId": nodeID, "displayName": name}, nil
}
