package exectool

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// approvalsService is the gateway service holding pending exec approvals.
const approvalsService = "exec.approvals"

// Approval lifetimes: the classic 120 s wait (OPENCLAW_EXEC_APPROVAL_TIMEOUT_MS
// overrides it on the gateway, up to the later 30 min ceiling), and how many
// settled requests stay readable for approval.get after they end.
const (
	defaultApprovalTimeout = 120 * time.Second
	maxApprovalTimeout     = 30 * time.Minute
	maxSettledApprovals    = 200
)

// Approval statuses and decisions (the original's words).
const (
	statusPending   = "pending"
	statusAllowed   = "allowed"
	statusDenied    = "denied"
	statusExpired   = "expired"
	statusCancelled = "cancelled"

	decisionAllowOnce   = "allow-once"
	decisionAllowAlways = "allow-always"
	decisionDeny        = "deny"
)

func init() {
	tools.RegisterService(tools.ServiceSpec{Name: approvalsService, New: newApprovalQueue})
}

// approvalRequest is what an operator is asked to decide (the `request`
// of exec.approval.requested).
type approvalRequest struct {
	Command     string   `json:"command"`
	CommandArgv []string `json:"commandArgv,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	// Env are the exact environment overrides the command runs with (the
	// operator sees them; an allowed run uses these and no others).
	Env              map[string]string `json:"env,omitempty"`
	Host             string            `json:"host"`
	NodeID           *string           `json:"nodeId"`
	Security         string            `json:"security,omitempty"`
	Ask              string            `json:"ask,omitempty"`
	AgentID          string            `json:"agentId,omitempty"`
	SessionKey       string            `json:"sessionKey,omitempty"`
	AllowedDecisions []string          `json:"allowedDecisions"`
	// Missed are the executables allow-always adds to the allowlist.
	Missed []string `json:"missed,omitempty"`
}

// approval is one request, pending or settled.
type approval struct {
	id        string
	req       approvalRequest
	createdAt time.Time
	expiresAt time.Time
	// fallback is the askFallback applied when nobody decides in time;
	// allowlistOK says the command matched the allowlist (ask=always), so
	// an "allowlist" fallback may run it.
	fallback    string
	allowlistOK bool
	// onDecision runs once the request settles (allowed, denied, expired):
	// an exec nobody waits for starts here. Its value is kept as the
	// request's outcome (e.g. the background session it started).
	onDecision func(decision string) any

	status     string
	decision   string
	reason     string
	resolvedAt time.Time
	resolver   map[string]any
	outcome    any
	timer      *time.Timer
	done       chan struct{}
}

// approvalQueue is the exec.approvals service: the pending queue, its
// timeouts, and the events operators watch.
type approvalQueue struct {
	events   tools.Events
	stateDir string
	timeout  time.Duration

	mu      sync.Mutex
	byID    map[string]*approval
	settled []string // settled ids, oldest first
	closed  bool
}

func newApprovalQueue(env *tools.Env) (tools.Service, error) {
	timeout := defaultApprovalTimeout
	if ms, err := strconv.Atoi(os.Getenv("OPENCLAW_EXEC_APPROVAL_TIMEOUT_MS")); err == nil && ms > 0 {
		timeout = millisDuration(float64(ms), maxApprovalTimeout)
	}
	return &approvalQueue{events: env.Events, stateDir: env.StateDir, timeout: timeout, byID: map[string]*approval{}}, nil
}

// Start has nothing to run: each request carries its own timer.
func (q *approvalQueue) Start(ctx context.Context) error { return nil }

// Stop cancels every pending request (waiters return, nothing runs) and
// refuses new ones.
func (q *approvalQueue) Stop(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	var pending []*approval
	for _, a := range q.byID {
		if a.status == statusPending {
			pending = append(pending, a)
		}
	}
	q.mu.Unlock()
	for _, a := range pending {
		q.settle(a, statusCancelled, "", "gateway-stopping", nil)
	}
	return nil
}

// approvalQueueOf returns the running queue, or an UNREACHABLE error.
func approvalQueueOf(env *tools.Env, what string) (*approvalQueue, error) {
	svc, err := env.Service(approvalsService, what)
	if err != nil {
		return nil, err
	}
	return svc.(*approvalQueue), nil
}

// create adds a pending request and announces it (exec.approval.requested).
func (q *approvalQueue) create(req approvalRequest, timeout time.Duration, fallback string, allowlistOK bool, onDecision func(string) any) (*approval, error) {
	if timeout <= 0 {
		timeout = q.timeout
	}
	timeout = min(timeout, maxApprovalTimeout)
	now := time.Now()
	a := &approval{id: uuid.NewString(), req: req, createdAt: now, expiresAt: now.Add(timeout),
		fallback: fallback, allowlistOK: allowlistOK, onDecision: onDecision,
		status: statusPending, done: make(chan struct{})}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil, tools.Errorf(tools.CodeUnreachable, "gateway is shutting down: no new approval requests")
	}
	q.byID[a.id] = a
	a.timer = time.AfterFunc(timeout, func() { q.expire(a) })
	q.mu.Unlock()
	q.publish("exec.approval.requested", q.requestedEvent(a))
	return a, nil
}

func (q *approvalQueue) requestedEvent(a *approval) map[string]any {
	return map[string]any{"approvalKind": "exec", "id": a.id, "request": a.req,
		"createdAtMs": a.createdAt.UnixMilli(), "expiresAtMs": a.expiresAt.UnixMilli()}
}

func (q *approvalQueue) publish(event string, payload any) {
	if q.events != nil {
		_ = q.events.Publish(event, payload)
	}
}

// find returns the request with this id, or the only one whose id starts
// with it (the 8-character slug shown to people).
func (q *approvalQueue) find(id string) (*approval, error) {
	id = strings.TrimSpace(id)
	q.mu.Lock()
	defer q.mu.Unlock()
	if a := q.byID[id]; a != nil {
		return a, nil
	}
	var hit *approval
	if len(id) >= 4 {
		for k, a := range q.byID {
			if strings.HasPrefix(k, id) {
				if hit != nil {
					return nil, tools.Errorf(tools.CodeInvalidParams, "approval id %q is ambiguous: give more of it", id)
				}
				hit = a
			}
		}
	}
	if hit == nil {
		return nil, tools.Errorf(tools.CodeNotFound, "approval not found: %s", id).
			WithDetails(map[string]any{"reason": "APPROVAL_NOT_FOUND"})
	}
	return hit, nil
}

// pending lists the pending requests, newest first.
func (q *approvalQueue) pending() []*approval {
	q.mu.Lock()
	var out []*approval
	for _, a := range q.byID {
		if a.status == statusPending {
			out = append(out, a)
		}
	}
	q.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].createdAt.After(out[j].createdAt) })
	return out
}

// resolve applies an operator's decision. applied is false when the
// request had already settled (its recorded decision stands).
func (q *approvalQueue) resolve(id, decision string, resolver map[string]any) (a *approval, applied bool, err error) {
	a, err = q.find(id)
	if err != nil {
		return nil, false, err
	}
	switch decision {
	case decisionAllowOnce, decisionAllowAlways, decisionDeny:
	default:
		return nil, false, tools.Errorf(tools.CodeInvalidParams, "decision must be allow-once, allow-always or deny, got %q", decision)
	}
	if decision != decisionDeny && !contains(a.req.AllowedDecisions, decision) {
		return nil, false, tools.Errorf(tools.CodeInvalidParams, "%s is unavailable for this command; allowed decisions: %s",
			decision, strings.Join(a.req.AllowedDecisions, ", ")).WithDetails(map[string]any{"reason": "APPROVAL_ALLOW_ALWAYS_UNAVAILABLE"})
	}
	if decision == decisionAllowAlways {
		if err := q.persistAllowAlways(a); err != nil {
			return nil, false, err
		}
	}
	status := statusAllowed
	if decision == decisionDeny {
		status = statusDenied
	}
	return a, q.settle(a, status, decision, "operator", resolver), nil
}

// expire applies askFallback to a request nobody decided in time: full
// runs it, allowlist runs it only when the allowlist vouched for it, deny
// (the default) refuses it.
func (q *approvalQueue) expire(a *approval) {
	switch {
	case a.fallback == "full", a.fallback == "allowlist" && a.allowlistOK:
		q.settle(a, statusAllowed, decisionAllowOnce, "timeout-fallback-"+a.fallback, nil)
	default:
		q.settle(a, statusExpired, decisionDeny, "timeout", nil)
	}
}

// settle records the end of a pending request once, announces it
// (exec.approval.resolved), runs its onDecision and wakes its waiters.
func (q *approvalQueue) settle(a *approval, status, decision, reason string, resolver map[string]any) bool {
	q.mu.Lock()
	if a.status != statusPending {
		q.mu.Unlock()
		return false
	}
	a.status, a.decision, a.reason, a.resolvedAt, a.resolver = status, decision, reason, time.Now(), resolver
	if a.timer != nil {
		a.timer.Stop()
	}
	q.settled = append(q.settled, a.id)
	for len(q.settled) > maxSettledApprovals {
		delete(q.byID, q.settled[0])
		q.settled = q.settled[1:]
	}
	run := a.onDecision
	q.mu.Unlock()

	if run != nil && status != statusCancelled {
		out := run(decision)
		q.mu.Lock()
		a.outcome = out
		q.mu.Unlock()
	}
	close(a.done)
	ev := map[string]any{"id": a.id, "decision": decision, "status": status, "reason": reason,
		"ts": a.resolvedAt.UnixMilli(), "request": a.req}
	if resolver != nil {
		ev["resolvedBy"] = resolver
	}
	q.publish("exec.approval.resolved", ev)
	return true
}

// wait blocks until the request settles or ctx ends.
func (q *approvalQueue) wait(ctx context.Context, a *approval) error {
	select {
	case <-a.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cancel withdraws a pending request (its waiter went away).
func (q *approvalQueue) cancel(a *approval, reason string) {
	q.settle(a, statusCancelled, "", reason, nil)
}

// persistAllowAlways adds the request's missed executables to the agent's
// allowlist in exec-approvals.json (under the writers' lock, atomic
// write), as source allow-always.
func (q *approvalQueue) persistAllowAlways(a *approval) error {
	if len(a.req.Missed) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := approvalsfile.Update(ctx, approvalsfile.Path(q.stateDir), func(cur *approvalsfile.Snapshot) error {
		agent := a.req.AgentID
		if agent == "" {
			agent = "main"
		}
		entry := cur.Doc.Agent(agent)
		now := time.Now().UnixMilli()
		for _, exe := range a.req.Missed {
			found := false
			for _, e := range entry.Allowlist {
				found = found || (e.Pattern == exe && e.ArgPattern == "")
			}
			if !found {
				entry.Allowlist = append(entry.Allowlist, policy.AllowlistEntry{Pattern: exe, Source: decisionAllowAlways,
					LastUsedAt: now, LastUsedCommand: a.req.Command, LastResolvedPath: exe})
			}
		}
		return nil
	})
	if err != nil {
		return tools.Errorf(tools.CodeFailed, "allow-always: %v", err)
	}
	return nil
}

// snapshot is the original's operator approval snapshot (approval.get,
// approval.resolve): presentation, status, and once settled the decision.
func (q *approvalQueue) snapshot(a *approval) map[string]any {
	q.mu.Lock()
	defer q.mu.Unlock()
	m := map[string]any{
		"id": a.id, "status": a.status,
		"presentation": map[string]any{"kind": "exec", "title": "Exec approval", "commandText": a.req.Command,
			"host": a.req.Host, "cwd": a.req.Cwd, "env": envOrEmpty(a.req.Env), "allowedDecisions": a.req.AllowedDecisions},
		"urlPath":     "/approve/" + a.id,
		"createdAtMs": a.createdAt.UnixMilli(), "expiresAtMs": a.expiresAt.UnixMilli(),
	}
	if a.status == statusPending {
		return m
	}
	m["resolvedAtMs"] = a.resolvedAt.UnixMilli()
	m["reason"] = a.reason
	if a.decision != "" && a.status != statusCancelled {
		m["decision"] = a.decision
	}
	src := map[string]any{}
	if a.req.AgentID != "" {
		src["agentId"] = a.req.AgentID
	}
	if a.req.SessionKey != "" {
		src["sessionKey"] = a.req.SessionKey
	}
	m["source"] = src
	if a.resolver != nil {
		m["resolver"] = a.resolver
	}
	if a.outcome != nil {
		m["execution"] = a.outcome
	}
	return m
}

// approveCommand is the exact command line that resolves a request, with
// the decisions it accepts.
func approveCommand(id string, decisions []string) string {
	return fmt.Sprintf("openclaw approvals resolve %s %s", id, strings.Join(decisions, "|"))
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// envOrEmpty shows "no overrides" as {} rather than leaving it out.
func envOrEmpty(env map[string]string) map[string]string {
	if env == nil {
		return map[string]string{}
	}
	return env
}
