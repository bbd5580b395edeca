package exectool

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// gatewayApproval holds a command that needs approval in the gateway's
// queue (exec.approval.requested goes to every operator with
// operator.approvals). With awaitApproval the call waits for the decision
// and then runs (or refuses) the command in the foreground; otherwise it
// answers PENDING_APPROVAL (exit 8) at once with the request id and the
// command that resolves it, and an allowing decision later starts the
// command as a background session (`openclaw process poll <id>`).
func gatewayApproval(ctx context.Context, env *tools.Env, q *approvalQueue, p execParams, cwd string, n *approvalNeed) (any, error) {
	req := approvalRequest{Command: p.Command, Cwd: cwd, Env: maps.Clone(p.Env), Host: "gateway", Security: n.sec, Ask: n.ask,
		AgentID: env.AgentID(), SessionKey: env.Subject.SessionKey, AllowedDecisions: n.allowedDecisions(), Missed: n.missed}
	// An allowed run is exactly what was shown: this command, in this cwd,
	// with these overrides (a run with other env is another request).
	p.Workdir, p.Env = cwd, maps.Clone(req.Env)
	if p.AwaitApproval {
		a, err := q.create(req, 0, n.fallback, n.matched, nil)
		if err != nil {
			return nil, err
		}
		env.Event("exec.approval.pending", map[string]any{"id": a.id, "approveCommand": approveCommand(a.id, req.AllowedDecisions)})
		if err := q.wait(ctx, a); err != nil {
			q.cancel(a, "requester-gone")
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, tools.Errorf(tools.CodeTimeout, "exec: gave up waiting for approval %s", a.id)
			}
			return nil, tools.Errorf(tools.CodeInterrupted, "exec: stopped waiting for approval %s", a.id)
		}
		if a.status != statusAllowed {
			return nil, deniedError(a)
		}
		p.approved = true
		return runExec(ctx, env, p)
	}
	// Nobody waits: the decision runs the command under the gateway's
	// lifetime, without this request's sink or context.
	detached := *env
	detached.Sink = nil
	onDecision := func(decision string) any {
		if decision != decisionAllowOnce && decision != decisionAllowAlways {
			return map[string]any{"status": "denied"}
		}
		run := p
		run.approved, run.Background, run.YieldMs = true, true, nil
		res, err := runExec(context.Background(), &detached, run)
		if err != nil {
			return map[string]any{"status": "failed", "error": tools.AsError(err).Message}
		}
		if r, ok := res.(*tools.Result); ok {
			if m, ok := r.Details.(map[string]any); ok {
				return map[string]any{"status": "running", "sessionId": m["sessionId"], "pid": m["pid"]}
			}
		}
		return map[string]any{"status": "running"}
	}
	a, err := q.create(req, 0, n.fallback, n.matched, onDecision)
	if err != nil {
		return nil, err
	}
	approve := approveCommand(a.id, req.AllowedDecisions)
	return nil, tools.Errorf(tools.CodePendingApproval,
		"Approval required (id %s, full %s): `%s` (host gateway, %s) needs approval (security=%s ask=%s).\n"+
			"Approve it with: openclaw approvals resolve %s allow-once   (decisions: %s; expires in %s)\n"+
			"Once allowed it runs in the background: follow it with `openclaw process list`.",
		a.id[:8], a.id, p.Command, describeEnv(cwd, req.Env), n.sec, n.ask, a.id, strings.Join(req.AllowedDecisions, ", "), a.expiresAt.Sub(a.createdAt).Round(1e9)).
		WithDetails(map[string]any{
			"status": "approval-pending", "approvalId": a.id, "approvalSlug": a.id[:8], "host": "gateway",
			"command": p.Command, "cwd": cwd, "env": envOrEmpty(req.Env), "approveCommand": approve, "allowedDecisions": req.AllowedDecisions,
			"missed": n.missed, "expiresAtMs": a.expiresAt.UnixMilli()})
}

// deniedError is the answer for a request that did not end allowed.
func deniedError(a *approval) error {
	why := "denied by an operator"
	switch a.status {
	case statusExpired:
		why = "approval timed out (askFallback " + a.fallback + ")"
	case statusCancelled:
		why = "approval cancelled (" + a.reason + ")"
	}
	return tools.Errorf(tools.CodeDenied, "exec denied: %s: `%s` (approval %s)", why, strings.TrimSpace(a.req.Command), a.id).
		WithDetails(map[string]any{"approvalId": a.id, "status": a.status, "decision": a.decision})
}

// describeEnv is "cwd DIR" and, when there are overrides, each one exactly
// (quoted), so an approver sees everything that will run.
func describeEnv(cwd string, env map[string]string) string {
	out := "cwd " + cwd
	if len(env) == 0 {
		return out
	}
	keys := slices.Sorted(maps.Keys(env))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, env[k])
	}
	return out + ", env " + strings.Join(parts, " ")
}
