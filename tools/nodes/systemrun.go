package nodes

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// systemRunFields are the system.run params forwarded to a node (the
// original's pickSystemRunParams); the approval flags are added only here.
var systemRunFields = []string{"command", "rawCommand", "systemRunPlan", "cwd", "env", "timeoutMs",
	"needsScreenRecording", "agentId", "sessionKey", "runId", "suppressNotifyOnExit"}

// approvalRefused is the INVALID_REQUEST of a system.run whose approval
// flags no exec approval record backs (details.code as the original's).
func approvalRefused(code, message, runID string) error {
	d := map[string]any{"code": code}
	if runID != "" {
		d["runId"] = runID
	}
	return tools.Errorf(protocol.ErrInvalidRequest, "%s", message).WithDetails(d)
}

// sanitizeSystemRun gates system.run's approval flags (approved,
// approvalDecision, approvalSource) behind a real exec approval: the
// params' runId must name an approval for host=node on this node, for this
// exact command, cwd and environment keys, decided allow-once (usable
// once) or allow-always. Without flags the node's own approvals decide.
// An operator with operator.write cannot so bypass the node's approvals by
// writing approved:true.
func (h *hub) sanitizeSystemRun(ctx context.Context, env *tools.Env, nodeID string, params any) (map[string]any, error) {
	m, _ := params.(map[string]any)
	if m == nil {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "system.run params must be an object with command (argv)")
	}
	argv, ok := stringList(m["command"])
	if !ok || len(argv) == 0 {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "system.run requires command (a non-empty argv array)")
	}
	// The node resolves its approvals by this agent id: one the gateway
	// does not know is refused here, so a caller cannot pick an agent the
	// node has no policy for (the original's UNKNOWN_AGENT_ID).
	if id, present := m["agentId"]; present && id != nil {
		s, ok := id.(string)
		if !ok {
			return nil, tools.Errorf(protocol.ErrInvalidRequest, "system.run agentId must be a string")
		}
		if err := tools.CheckAgentID(env.Config, strings.TrimSpace(s)); err != nil {
			return nil, err
		}
	}
	next := map[string]any{}
	for _, k := range systemRunFields {
		if v, ok := m[k]; ok {
			next[k] = v
		}
	}
	runID, _ := m["runId"].(string)
	runID = strings.TrimSpace(runID)
	if runID == "" {
		runID = uuid.NewString()
	}
	next["runId"] = runID
	approved, _ := m["approved"].(bool)
	decision, _ := m["approvalDecision"].(string)
	_, hasSource := m["approvalSource"]
	if !approved && decision == "" && !hasSource {
		return next, nil
	}
	if hasSource {
		return nil, approvalRefused("INVALID_APPROVAL_SOURCE", "approval source invalid", runID)
	}
	if _, given := m["runId"].(string); !given {
		return nil, approvalRefused("MISSING_RUN_ID", "approval override requires params.runId", "")
	}
	rec, err := h.approvalRecord(ctx, env, runID)
	if err != nil {
		return nil, err
	}
	if rec.nodeID == "" {
		return nil, approvalRefused("APPROVAL_NODE_BINDING_MISSING", "approval id missing node binding", runID)
	}
	if rec.host != "node" {
		return nil, approvalRefused("APPROVAL_REQUEST_MISMATCH", "approval id does not match request", runID)
	}
	if rec.nodeID != nodeID {
		return nil, approvalRefused("APPROVAL_NODE_MISMATCH", "approval id not valid for this node", runID)
	}
	raw, _ := m["rawCommand"].(string)
	text := raw
	if text == "" {
		text = shellJoin(argv)
	}
	cwd, _ := m["cwd"].(string)
	envKeys := []string{}
	if e, ok := m["env"].(map[string]any); ok {
		envKeys = slices.Sorted(maps.Keys(e))
	}
	if strings.TrimSpace(rec.commandText) != strings.TrimSpace(text) || rec.cwd != cwd || !slices.Equal(rec.envKeys, envKeys) {
		return nil, approvalRefused("APPROVAL_REQUEST_MISMATCH", "approval id does not match request", runID)
	}
	switch rec.decision {
	case "allow-always":
	case "allow-once":
		h.mu.Lock()
		spent := h.consumed[runID] != 0
		if !spent {
			h.consumed[runID] = rec.expiresAtMs
			for id, exp := range h.consumed { // bounded: forget expired ones
				if exp < nowMs() {
					delete(h.consumed, id)
				}
			}
		}
		h.mu.Unlock()
		if spent {
			return nil, approvalRefused("APPROVAL_REQUIRED", "approval required", runID)
		}
	default:
		return nil, approvalRefused("APPROVAL_REQUIRED", "approval required", runID)
	}
	next["approved"] = true
	next["approvalDecision"] = rec.decision
	return next, nil
}

// approvalFacts is what an exec approval record says.
type approvalFacts struct {
	host, nodeID, commandText, cwd, decision string
	envKeys                                  []string
	expiresAtMs                              int64
}

// approvalRecord reads exec approval id through the exec approval methods.
// This is the gateway checking a claim, not the caller acting: it reads
// the record as the gateway itself (no caller scopes), as the original
// reads its approval manager.
func (h *hub) approvalRecord(ctx context.Context, env *tools.Env, id string) (approvalFacts, error) {
	internal := *env
	internal.Subject = tools.Subject{}
	internal.Sink = nil
	args, _ := json.Marshal(map[string]string{"id": id})
	rec, err := tools.Invoke(ctx, &internal, tools.Call{Method: "exec.approval.get", Args: args})
	if err != nil {
		if tools.AsError(err).Code == tools.CodeNotFound {
			return approvalFacts{}, approvalRefused("UNKNOWN_APPROVAL_ID", "unknown or expired approval id", id)
		}
		return approvalFacts{}, approvalRefused("APPROVALS_UNAVAILABLE", "exec approvals unavailable", id)
	}
	snap, err := tools.Invoke(ctx, &internal, tools.Call{Method: "approval.get", Args: args})
	if err != nil {
		return approvalFacts{}, approvalRefused("APPROVALS_UNAVAILABLE", "exec approvals unavailable", id)
	}
	r := gjson.ParseBytes(rec)
	f := approvalFacts{host: r.Get("host").String(), nodeID: r.Get("nodeId").String(), commandText: r.Get("commandText").String(),
		cwd: r.Get("cwd").String(), expiresAtMs: r.Get("expiresAtMs").Int(), envKeys: []string{}}
	r.Get("env").ForEach(func(k, _ gjson.Result) bool { f.envKeys = append(f.envKeys, k.String()); return true })
	slices.Sort(f.envKeys)
	s := gjson.GetBytes(snap, "approval")
	if s.Get("status").String() == "allowed" {
		f.decision = s.Get("decision").String()
	}
	return f, nil
}

func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// shellJoin quotes argv for a POSIX shell (what an approver reads).
func shellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shellQuote(a)
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '=' || r == ',' || r == '+' || r == '@' || r == '%' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
