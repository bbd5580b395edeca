package exectool

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// The gateway's exec approval methods, under the original's wire names
// and scopes (operator.approvals for the queue, operator.admin for the
// policy file). They read the exec.approvals service; outside the gateway
// they fail with exit 5.
func init() {
	method := func(name, summary, scope, schema string, run tools.Handler) {
		tools.Register(&tools.Action{Method: name, Summary: summary, Scope: scope, Where: tools.Gateway,
			Hidden: true, Schema: schema, Run: run})
	}
	// The methods whose params the original validates as closed objects:
	// an unknown property is refused with its message (see closedParams).
	closed := func(name, summary, scope, schema string, run tools.Handler) {
		method(name, summary, scope, schema, closedParams(name, schema, run))
	}
	idSchema := `{"type":"object","properties":{"id":{"type":"string","minLength":1}},"required":["id"]}`
	// The properties after twoPhase are the original's too: accepted (its
	// node hosts and agent runners send them) and not used here.
	closed("exec.approval.request", "Ask operators to approve a command (waits for the decision; twoPhase answers accepted first)",
		protocol.ScopeApprovals, `{"type":"object","properties":{
			"id":{"type":"string"},"command":{"type":"string","minLength":1},"commandArgv":{"type":"array","items":{"type":"string"}},
			"cwd":{"type":["string","null"]},"env":{"type":"object","additionalProperties":{"type":"string"}},"host":{"type":["string","null"]},"security":{"type":["string","null"]},"ask":{"type":["string","null"]},
			"agentId":{"type":["string","null"]},"sessionKey":{"type":["string","null"]},"nodeId":{"type":["string","null"]},
			"timeoutMs":{"type":"integer","minimum":1},"twoPhase":{"type":"boolean"},
			"systemRunPlan":{"type":"object"},"warningText":{"type":["string","null"]},"scope":{},
			"unavailableDecisions":{"type":"array","items":{"type":"string"}},"commandSpans":{"type":"array"},
			"resolvedPath":{"type":["string","null"]},"sessionId":{"type":["string","null"]},"runId":{"type":["string","null"]},
			"toolCallId":{"type":["string","null"]},"turnSourceChannel":{"type":["string","null"]},"turnSourceTo":{"type":["string","null"]},
			"turnSourceAccountId":{"type":["string","null"]},"turnSourceThreadId":{"type":["string","number","null"]},
			"approvalReviewerDeviceIds":{"type":"array","items":{"type":"string"}},"requireDeliveryRoute":{"type":"boolean"},
			"suppressDelivery":{"type":"boolean"},"deliverToApprovalClientsOnly":{"type":"boolean"}},"required":["command"]}`,
		tools.Typed(approvalRequestMethod))
	method("exec.approval.waitDecision", "Wait for the decision on an approval request (null when it expired undecided)",
		protocol.ScopeApprovals, idSchema, tools.Typed(approvalWaitMethod))
	closed("exec.approval.get", "Show one exec approval request", protocol.ScopeApprovals, idSchema, tools.Typed(approvalGetMethod))
	method("exec.approval.list", "List pending exec approval requests", protocol.ScopeApprovals, `{"type":"object","properties":{}}`,
		func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			q, err := approvalQueueOf(env, "exec.approval.list")
			if err != nil {
				return nil, err
			}
			out := []map[string]any{}
			for _, a := range q.pending() {
				out = append(out, q.requestedEvent(a))
			}
			return out, nil
		})
	closed("exec.approval.resolve", "Resolve an exec approval: allow-once, allow-always or deny", protocol.ScopeApprovals,
		`{"type":"object","properties":{"id":{"type":"string","minLength":1},"decision":{"type":"string","enum":["allow-once","allow-always","deny"]},
			"reviewer":{},"grantExpiresInDays":{"type":"integer","minimum":1,"maximum":3650}},"required":["id","decision"]}`,
		tools.Typed(execApprovalResolveMethod))
	method("approval.get", "Show one approval (any kind) as an operator snapshot", protocol.ScopeApprovals, idSchema,
		func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
			var p struct{ ID string }
			_ = json.Unmarshal(raw, &p)
			q, err := approvalQueueOf(env, "approval.get")
			if err != nil {
				return nil, err
			}
			a, err := q.find(p.ID)
			if err != nil {
				return nil, err
			}
			return map[string]any{"approval": q.snapshot(a)}, nil
		})
	method("approval.resolve", "Resolve an approval (any kind) by id", protocol.ScopeApprovals,
		`{"type":"object","properties":{"id":{"type":"string","minLength":1},"kind":{"type":"string"},
			"decision":{"type":"string","enum":["allow-once","allow-always","deny"]},"grantExpiresInDays":{"type":"integer"},"reviewer":{}},
			"required":["id","decision"]}`, tools.Typed(approvalResolveMethod))
	// This gateway raises exec approvals only; the other kinds' queues are
	// empty (the original CLI's `approvals pending` asks all three).
	for _, kind := range []string{"plugin", "openclaw"} {
		method(kind+".approval.list", "List pending "+kind+" approvals (none: this gateway raises exec approvals only)",
			protocol.ScopeApprovals, `{"type":"object","properties":{}}`,
			func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) { return []any{}, nil })
	}
	closed("exec.approvals.get", "Read the gateway host's exec approvals file ({path, exists, hash, file, resolvedDefaults})", protocol.ScopeAdmin,
		`{"type":"object","properties":{}}`,
		func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			return approvalsSnapshot(env)
		})
	closed("exec.approvals.set", "Replace the gateway host's exec approvals file (baseHash: compare-and-set)", protocol.ScopeAdmin,
		`{"type":"object","properties":{"file":{"type":"object"},"baseHash":{"type":["string","null"]}},"required":["file"]}`,
		tools.Typed(approvalsSetMethod))
}

type approvalRequestParams struct {
	ID          string            `json:"id"`
	Command     string            `json:"command"`
	CommandArgv []string          `json:"commandArgv"`
	Env         map[string]string `json:"env"`
	Cwd         *string           `json:"cwd"`
	Host        *string           `json:"host"`
	Security    *string           `json:"security"`
	Ask         *string           `json:"ask"`
	AgentID     *string           `json:"agentId"`
	SessionKey  *string           `json:"sessionKey"`
	NodeID      *string           `json:"nodeId"`
	TimeoutMs   int64             `json:"timeoutMs"`
	TwoPhase    bool              `json:"twoPhase"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// decisionAnswer is the final answer of exec.approval.request and
// exec.approval.waitDecision: the decision, null when none was made.
func decisionAnswer(a *approval) map[string]any {
	m := map[string]any{"id": a.id, "decision": nil, "createdAtMs": a.createdAt.UnixMilli(), "expiresAtMs": a.expiresAt.UnixMilli()}
	if a.status == statusAllowed || a.status == statusDenied {
		m["decision"] = a.decision
	}
	return m
}

// approvalRequestMethod raises a request for another runtime (a node host,
// an agent runner): the decision is returned, nothing runs here.
func approvalRequestMethod(ctx context.Context, env *tools.Env, p approvalRequestParams) (any, error) {
	q, err := approvalQueueOf(env, "exec.approval.request")
	if err != nil {
		return nil, err
	}
	if p.ID != "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "explicit approval ids are not supported: omit id")
	}
	host := str(p.Host)
	if host == "" {
		host = "gateway"
	}
	if host == "node" && str(p.NodeID) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "nodeId is required for host=node")
	}
	req := approvalRequest{Command: p.Command, CommandArgv: p.CommandArgv, Cwd: str(p.Cwd), Env: p.Env, Host: host, NodeID: p.NodeID,
		Security: str(p.Security), Ask: str(p.Ask), AgentID: str(p.AgentID), SessionKey: str(p.SessionKey),
		AllowedDecisions: []string{decisionAllowOnce, decisionAllowAlways, decisionDeny}}
	if req.Ask == "always" {
		req.AllowedDecisions = []string{decisionAllowOnce, decisionDeny}
	}
	a, err := q.create(req, millisDuration(float64(p.TimeoutMs), maxApprovalTimeout), "deny", false, nil)
	if err != nil {
		return nil, err
	}
	final := func(ctx context.Context) (any, error) {
		if err := q.wait(ctx, a); err != nil {
			return nil, err
		}
		return decisionAnswer(a), nil
	}
	if p.TwoPhase {
		return &tools.Deferred{Accepted: map[string]any{"status": "accepted", "id": a.id,
			"createdAtMs": a.createdAt.UnixMilli(), "expiresAtMs": a.expiresAt.UnixMilli()}, Final: final}, nil
	}
	return final(ctx)
}

func approvalWaitMethod(ctx context.Context, env *tools.Env, p struct {
	ID string `json:"id"`
}) (any, error) {
	q, err := approvalQueueOf(env, "exec.approval.waitDecision")
	if err != nil {
		return nil, err
	}
	a, err := q.find(p.ID)
	if err != nil {
		return nil, err
	}
	if err := q.wait(ctx, a); err != nil {
		return nil, err
	}
	return decisionAnswer(a), nil
}

func approvalGetMethod(ctx context.Context, env *tools.Env, p struct {
	ID string `json:"id"`
}) (any, error) {
	q, err := approvalQueueOf(env, "exec.approval.get")
	if err != nil {
		return nil, err
	}
	a, err := q.find(p.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": a.id, "commandText": a.req.Command, "cwd": a.req.Cwd, "env": envOrEmpty(a.req.Env),
		"allowedDecisions": a.req.AllowedDecisions,
		"host":             a.req.Host, "nodeId": a.req.NodeID, "agentId": a.req.AgentID, "expiresAtMs": a.expiresAt.UnixMilli(),
		"status": a.status}, nil
}

type resolveParams struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Decision string `json:"decision"`
}

// resolverOf names who resolved a request, from the calling connection.
func resolverOf(env *tools.Env) map[string]any {
	r := map[string]any{"kind": "runtime"}
	if env.Subject.SessionKey != "" {
		r["id"] = env.Subject.SessionKey
	}
	return r
}

func execApprovalResolveMethod(ctx context.Context, env *tools.Env, p resolveParams) (any, error) {
	q, err := approvalQueueOf(env, "exec.approval.resolve")
	if err != nil {
		return nil, err
	}
	a, applied, err := q.resolve(p.ID, p.Decision, resolverOf(env))
	if err != nil {
		return nil, err
	}
	snap := q.snapshot(a)
	return map[string]any{"ok": true, "id": a.id, "decision": snap["decision"], "applied": applied, "approval": snap}, nil
}

func approvalResolveMethod(ctx context.Context, env *tools.Env, p resolveParams) (any, error) {
	if p.Kind != "" && p.Kind != "exec" {
		return nil, tools.Errorf(tools.CodeNotFound, "approval not found: %s", p.ID).
			WithDetails(map[string]any{"reason": "APPROVAL_NOT_FOUND"})
	}
	q, err := approvalQueueOf(env, "approval.resolve")
	if err != nil {
		return nil, err
	}
	a, applied, err := q.resolve(p.ID, p.Decision, resolverOf(env))
	if err != nil {
		return nil, err
	}
	return map[string]any{"applied": applied, "approval": q.snapshot(a)}, nil
}

// approvalsSnapshot is the original's {path, exists, hash, file}: hash is
// the SHA-256 of the file's bytes, the compare-and-set token for set.
func approvalsSnapshot(env *tools.Env) (map[string]any, error) {
	path := approvalsfile.Path(env.StateDir)
	snap, err := approvalsfile.Read(path)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%v", err)
	}
	return snapshotAnswer(path, snap), nil
}

// snapshotAnswer is the original's exec.approvals.get|set answer, with
// resolvedDefaults: what the file's defaults come to once the built-in
// ones fill what it leaves out (or sets to a value the policy does not know).
func snapshotAnswer(path string, s *approvalsfile.Snapshot) map[string]any {
	return map[string]any{"path": path, "exists": s.Exists, "hash": s.Hash, "file": s.Doc,
		"resolvedDefaults": resolvedDefaults(s.Doc)}
}

// The built-in exec approval defaults: what an approvals file that says
// nothing comes to (the original's, and checkApproval's when neither the
// config nor the file says).
const (
	builtinSecurity    = "full"
	builtinAsk         = "off"
	builtinAskFallback = "deny"
)

type approvalDefaults struct {
	Security        string `json:"security"`
	Ask             string `json:"ask"`
	AskFallback     string `json:"askFallback"`
	AutoAllowSkills bool   `json:"autoAllowSkills"`
}

// resolvedDefaults is the file's defaults block resolved as the original
// resolves it: each field the file's value when the policy knows it, else
// the built-in default.
func resolvedDefaults(doc *policy.ExecApprovals) approvalDefaults {
	out := approvalDefaults{Security: builtinSecurity, Ask: builtinAsk, AskFallback: builtinAskFallback}
	if doc == nil {
		return out
	}
	d := doc.Defaults
	if v := policy.TightestSecurity(d.Security); v != "" {
		out.Security = v
	}
	if v := policy.StrictestAsk(d.Ask); v != "" {
		out.Ask = v
	}
	if v := policy.TightestSecurity(d.AskFallback); v != "" {
		out.AskFallback = v
	}
	if d.AutoAllowSkills != nil {
		out.AutoAllowSkills = *d.AutoAllowSkills
	}
	return out
}

// closedParams refuses params naming a property the method's schema does
// not declare, with the original's message ("invalid exec.approval.get
// params: at root: unexpected property 'bogus'", the first such property
// in the order sent), before run sees them. The schema checks the declared
// properties first, so a call with other faults too gets their message.
func closedParams(name, schema string, run tools.Handler) tools.Handler {
	known := sync.OnceValue(func() map[string]bool {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal([]byte(schema), &s); err != nil {
			panic(name + ": schema: " + err.Error()) // registered schemas compile (tools.Register)
		}
		out := make(map[string]bool, len(s.Properties))
		for k := range s.Properties {
			out[k] = true
		}
		return out
	})
	return func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
		if k, ok := firstUnknown(raw, known()); ok {
			return nil, tools.Errorf(tools.CodeInvalidParams, "invalid %s params: at root: unexpected property '%s'", name, k)
		}
		return run(ctx, env, raw)
	}
}

// firstUnknown is the first key of the JSON object raw, in document order,
// that known lacks.
func firstUnknown(raw json.RawMessage, known map[string]bool) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false // not an object: the schema has refused it already
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := t.(string)
		if !known[k] {
			return k, true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// approvalsSetMethod replaces the file under the writers' lock, comparing
// the hash inside it: a change made in between (by the CLI, another
// operator, an allow-always) is refused, never lost.
func approvalsSetMethod(ctx context.Context, env *tools.Env, p struct {
	File     json.RawMessage `json:"file"`
	BaseHash *string         `json:"baseHash"`
}) (any, error) {
	if _, err := approvalQueueOf(env, "exec.approvals.set"); err != nil {
		return nil, err
	}
	doc := policy.NewExecApprovals()
	if err := json.Unmarshal(p.File, doc); err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "exec approvals file: %v", err)
	}
	doc.Normalize()
	if err := validateApprovals(doc); err != nil {
		return nil, err
	}
	doc.Version = 1
	path := approvalsfile.Path(env.StateDir)
	snap, err := approvalsfile.Update(ctx, path, func(cur *approvalsfile.Snapshot) error {
		if (p.BaseHash != nil && *p.BaseHash != cur.Hash) || (cur.Exists && p.BaseHash == nil) {
			return tools.Errorf(tools.CodeInvalidParams, "exec approvals changed since they were read (baseHash mismatch): read them again with exec.approvals.get")
		}
		cur.Doc = doc
		return nil
	})
	if err != nil {
		if te := tools.AsError(err); te.Code == tools.CodeInvalidParams {
			return nil, err
		}
		return nil, tools.Errorf(tools.CodeFailed, "%v", err)
	}
	return snapshotAnswer(path, snap), nil
}

// validateApprovals refuses values the policy does not know (fails closed
// rather than storing a file every exec would then refuse to read).
func validateApprovals(d *policy.ExecApprovals) error {
	check := func(where string, a *policy.ExecApprovalAgent) error {
		if a == nil {
			return nil
		}
		for _, c := range []struct{ field, v string }{{"security", a.Security}, {"askFallback", a.AskFallback}} {
			if c.v != "" && policy.TightestSecurity(c.v) == "" {
				return tools.Errorf(tools.CodeInvalidParams, "%s.%s must be deny, allowlist or full, got %q", where, c.field, c.v)
			}
		}
		if a.Ask != "" && policy.StrictestAsk(a.Ask) == "" {
			return tools.Errorf(tools.CodeInvalidParams, "%s.ask must be off, on-miss or always, got %q", where, a.Ask)
		}
		for i, e := range a.Allowlist {
			if e.Pattern == "" {
				return tools.Errorf(tools.CodeInvalidParams, "%s.allowlist[%d].pattern is required", where, i)
			}
		}
		return nil
	}
	if err := check("defaults", &d.Defaults); err != nil {
		return err
	}
	for id, a := range d.Agents {
		if err := check("agents."+id, a); err != nil {
			return err
		}
	}
	return nil
}
