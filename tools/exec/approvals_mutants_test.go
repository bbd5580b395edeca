package exectool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/flock"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// These tests pin approval lines that a one-line mutation (gremlins, `make
// mutate`) could change with every other test still passing (issue 17,
// item 20).

// A detached request (nobody waits) runs its command only when allowed:
// deny records "denied" and starts nothing; allow-always starts it, stores
// the program under the calling agent, and the operator snapshot shows the
// decision and where the request came from.
func TestDetachedRequestRunsOnlyWhenAllowed(t *testing.T) {
	env := approvalGatewayEnv(t)
	env.Subject.AgentID, env.Subject.SessionKey = "ops", "agent:ops:main"
	env.Config = config.Empty() // ops is a configured agent (an unknown one is refused)
	env.Config.Doc = map[string]any{"agents": map[string]any{"list": []any{map[string]any{"id": "main"}, map[string]any{"id": "ops"}}}}
	putApprovals(t, env, `{"version":1,"defaults":{"security":"allowlist","ask":"on-miss"}}`)
	marker := filepath.Join(env.Workspace, "ran")
	b, _ := json.Marshal(map[string]any{"command": "touch " + marker})

	d := pendingOf2(t, env, string(b))
	res, err := method(t, env, "exec.approval.resolve", `{"id":"`+d["approvalId"].(string)+`","decision":"deny"}`)
	if err != nil || res.Get("approval.status").String() != statusDenied || res.Get("approval.execution.status").String() != "denied" {
		t.Fatalf("deny: %s %v", res.Raw, err)
	}
	if res.Get("approval.execution.sessionId").Exists() {
		t.Fatalf("deny started a session: %s", res.Raw)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a denied request ran its command")
	}

	d = pendingOf2(t, env, string(b))
	id := d["approvalId"].(string)
	if dec, _ := json.Marshal(d["allowedDecisions"]); !strings.Contains(string(dec), decisionAllowAlways) {
		t.Fatalf("allow-always not offered for a plain miss: %s", dec)
	}
	res, err = method(t, env, "exec.approval.resolve", `{"id":"`+id+`","decision":"allow-always"}`)
	if err != nil || res.Get("approval.status").String() != statusAllowed || res.Get("approval.execution.status").String() != "running" {
		t.Fatalf("allow-always: %s %v", res.Raw, err)
	}
	snap, _ := method(t, env, "approval.get", `{"id":"`+id+`"}`)
	if snap.Get("approval.decision").String() != decisionAllowAlways || snap.Get("approval.source.agentId").String() != "ops" ||
		snap.Get("approval.source.sessionKey").String() != "agent:ops:main" {
		t.Errorf("snapshot: %s", snap.Raw)
	}
	doc, err := approvalsfile.Load(approvalsfile.Path(env.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if a := doc.Agents["ops"]; a == nil || len(a.Allowlist) != 1 || a.Allowlist[0].Pattern != "/usr/bin/touch" {
		t.Errorf("allow-always stored %+v, want /usr/bin/touch under agents.ops", doc.Agents)
	}
	if m := doc.Agents["main"]; m != nil && len(m.Allowlist) > 0 {
		t.Errorf("allow-always for agent ops wrote agents.main: %+v", m)
	}
}

// exec.approval.request: the host defaults to gateway; host=node needs a
// nodeId (and takes one); ask=always offers no allow-always; the final
// answer carries the decision when one was made, null when it expired.
func TestApprovalRequestFields(t *testing.T) {
	env := approvalEnv(t)
	request := func(params string) (string, tools.Final, error) {
		accepted, final, err := tools.InvokeDeferred(context.Background(), env, tools.Call{Method: "exec.approval.request", Args: json.RawMessage(params)})
		return gjson.GetBytes(accepted, "id").String(), final, err
	}

	id, final, err := request(`{"command":"make","twoPhase":true}`)
	if err != nil {
		t.Fatal(err)
	}
	get, _ := method(t, env, "exec.approval.get", `{"id":"`+id+`"}`)
	if get.Get("host").String() != "gateway" || !strings.Contains(get.Get("allowedDecisions").Raw, decisionAllowAlways) {
		t.Errorf("default host / decisions: %s", get.Raw)
	}
	if _, err := method(t, env, "approval.resolve", `{"id":"`+id+`","decision":"allow-once"}`); err != nil {
		t.Fatal(err)
	}
	if out, err := final(context.Background()); err != nil || gjson.GetBytes(out, "decision").String() != decisionAllowOnce {
		t.Errorf("final after allow-once: %s %v", out, err)
	}

	if _, _, err := request(`{"command":"make","host":"node","twoPhase":true}`); tools.AsError(err).Code != tools.CodeInvalidParams {
		t.Errorf("host=node without nodeId: %v", err)
	}
	id, _, err = request(`{"command":"make","host":"node","nodeId":"n1","ask":"always","twoPhase":true}`)
	if err != nil {
		t.Fatalf("host=node with nodeId: %v", err)
	}
	get, _ = method(t, env, "exec.approval.get", `{"id":"`+id+`"}`)
	if get.Get("host").String() != "node" || get.Get("nodeId").String() != "n1" ||
		get.Get("allowedDecisions").Raw != `["allow-once","deny"]` {
		t.Errorf("node request: %s", get.Raw)
	}

	_, final, err = request(`{"command":"make","timeoutMs":30,"twoPhase":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := final(context.Background()); err != nil || gjson.GetBytes(out, "decision").Type != gjson.Null {
		t.Errorf("final after expiry: %s %v, want decision null", out, err)
	}
}

// approval.resolve takes kind "" or "exec"; another kind is not ours and
// leaves the request pending. The resolver is named by the caller's
// session key when it has one.
func TestApprovalResolveKindAndResolver(t *testing.T) {
	env := approvalEnv(t)
	q := env.Services[approvalsService].(*approvalQueue)
	a, err := q.create(approvalRequest{Command: "make", Host: "gateway", AllowedDecisions: []string{decisionAllowOnce, decisionDeny}}, 0, "deny", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := method(t, env, "approval.resolve", `{"id":"`+a.id+`","kind":"plugin","decision":"deny"}`); tools.AsError(err).Code != tools.CodeNotFound {
		t.Errorf("kind plugin: %v, want not found", err)
	}
	if a.status != statusPending {
		t.Fatalf("kind plugin settled the exec request: %s", a.status)
	}
	caller := *env
	caller.Subject.SessionKey = "agent:main:ops"
	res, err := method(t, &caller, "approval.resolve", `{"id":"`+a.id+`","decision":"deny"}`)
	if err != nil || res.Get("approval.resolver.id").String() != "agent:main:ops" || res.Get("approval.decision").String() != decisionDeny {
		t.Errorf("kind omitted: %s %v", res.Raw, err)
	}
	b, _ := q.create(approvalRequest{Command: "make", Host: "gateway", AllowedDecisions: []string{decisionAllowOnce, decisionDeny}}, 0, "deny", false, nil)
	res, _ = method(t, env, "exec.approval.resolve", `{"id":"`+b.id+`","decision":"deny"}`)
	if r := res.Get("approval.resolver"); r.Get("kind").String() != "runtime" || r.Get("id").Exists() {
		t.Errorf("resolver without a session key: %s", r.Raw)
	}
}

// A zero (or unparsable) OPENCLAW_EXEC_APPROVAL_TIMEOUT_MS keeps the
// default wait; it does not make every request expire at once.
func TestApprovalTimeoutEnvZeroKeepsDefault(t *testing.T) {
	for _, v := range []string{"0", "-5", "soon"} {
		t.Setenv("OPENCLAW_EXEC_APPROVAL_TIMEOUT_MS", v)
		svc, err := newApprovalQueue(localEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		if got := svc.(*approvalQueue).timeout; got != defaultApprovalTimeout {
			t.Errorf("%s: timeout %v, want %v", v, got, defaultApprovalTimeout)
		}
	}
}

// Stop cancels each pending request (its waiter returns, nothing runs)
// and refuses new ones.
func TestApprovalQueueStopCancelsPending(t *testing.T) {
	svc, _ := newApprovalQueue(localEnv(t))
	q := svc.(*approvalQueue)
	ran := false
	a, _ := q.create(approvalRequest{Command: "make"}, 0, "full", false, func(string) any { ran = true; return nil })
	q.Stop(context.Background())
	if a.status != statusCancelled {
		t.Fatalf("after Stop: %s, want cancelled", a.status)
	}
	if err := q.wait(context.Background(), a); err != nil || ran {
		t.Fatalf("wait %v, ran %v", err, ran)
	}
	if _, err := q.create(approvalRequest{Command: "make"}, 0, "deny", false, nil); tools.AsError(err).Code != tools.CodeUnreachable {
		t.Errorf("create after Stop: %v", err)
	}
}

// find takes the full id or a unique prefix of at least 4 characters.
func TestApprovalFindPrefix(t *testing.T) {
	svc, _ := newApprovalQueue(localEnv(t))
	q := svc.(*approvalQueue)
	t.Cleanup(func() { q.Stop(context.Background()) })
	a, _ := q.create(approvalRequest{Command: "make"}, 0, "deny", false, nil)
	for _, p := range []string{a.id, a.id[:8], a.id[:4], " " + a.id[:6] + " "} {
		if got, err := q.find(p); err != nil || got != a {
			t.Errorf("find(%q): %v", p, err)
		}
	}
	if _, err := q.find(a.id[:3]); tools.AsError(err).Code != tools.CodeNotFound {
		t.Errorf("find of a 3-character prefix: %v, want not found", err)
	}
}

// At most maxSettledApprovals settled requests stay readable; the oldest
// goes first.
func TestApprovalSettledCap(t *testing.T) {
	svc, _ := newApprovalQueue(localEnv(t))
	q := svc.(*approvalQueue)
	var ids []string
	for i := 0; i <= maxSettledApprovals; i++ {
		a, err := q.create(approvalRequest{Command: "make"}, 0, "deny", false, nil)
		if err != nil {
			t.Fatal(err)
		}
		q.cancel(a, "test")
		ids = append(ids, a.id)
	}
	if len(q.byID) != maxSettledApprovals || q.byID[ids[0]] != nil || q.byID[ids[1]] == nil {
		t.Errorf("%d kept (first kept %v, second kept %v), want %d without the first",
			len(q.byID), q.byID[ids[0]] != nil, q.byID[ids[1]] != nil, maxSettledApprovals)
	}
}

type recordedEvents struct {
	mu  sync.Mutex
	got []map[string]any
}

func (r *recordedEvents) Publish(event string, payload any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if event == "exec.approval.resolved" {
		r.got = append(r.got, payload.(map[string]any))
	}
	return nil
}

// exec.approval.resolved names who resolved (an operator) and says
// nothing of a resolver when none did (a cancelled request).
func TestApprovalResolvedEventNamesTheResolver(t *testing.T) {
	env := localEnv(t)
	ev := &recordedEvents{}
	env.Events = ev
	svc, _ := newApprovalQueue(env)
	q := svc.(*approvalQueue)
	a, _ := q.create(approvalRequest{Command: "make", AllowedDecisions: []string{decisionAllowOnce, decisionDeny}}, 0, "deny", false, nil)
	if _, _, err := q.resolve(a.id, decisionDeny, map[string]any{"kind": "runtime", "id": "s1"}); err != nil {
		t.Fatal(err)
	}
	b, _ := q.create(approvalRequest{Command: "make"}, 0, "deny", false, nil)
	q.cancel(b, "requester-gone")
	if len(ev.got) != 2 {
		t.Fatalf("%d resolved events, want 2", len(ev.got))
	}
	if r, _ := ev.got[0]["resolvedBy"].(map[string]any); r["id"] != "s1" {
		t.Errorf("resolved event: %v", ev.got[0])
	}
	if _, ok := ev.got[1]["resolvedBy"]; ok {
		t.Errorf("cancelled event names a resolver: %v", ev.got[1])
	}
	// A cancelled request shows no decision in its snapshot.
	if _, ok := q.snapshot(b)["decision"]; ok {
		t.Errorf("cancelled snapshot has a decision: %v", q.snapshot(b))
	}
}

// allow-always waits for the approvals file's lock (another writer holds
// it for a moment) instead of failing at once; without an agent it stores
// under main.
func TestAllowAlwaysWaitsForTheFileLock(t *testing.T) {
	env := localEnv(t)
	svc, _ := newApprovalQueue(env)
	q := svc.(*approvalQueue)
	path := approvalsfile.Path(env.StateDir)
	unlock, err := flock.Lock(context.Background(), path+".lock")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- q.persistAllowAlways(&approval{req: approvalRequest{Command: "make", Missed: []string{"/usr/bin/make"}}})
	}()
	time.Sleep(200 * time.Millisecond) // how long the other writer holds it; the result does not depend on it
	unlock()
	if err := <-done; err != nil {
		t.Fatalf("allow-always behind a held lock: %v", err)
	}
	doc, err := approvalsfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := doc.Agents["main"]; m == nil || len(m.Allowlist) != 1 || m.Allowlist[0].Pattern != "/usr/bin/make" {
		t.Errorf("stored %+v", doc.Agents)
	}
}

// askFallback: the agent's own value, else the defaults', else deny.
func TestAskFallbackOrder(t *testing.T) {
	doc := &policy.ExecApprovals{Defaults: policy.ExecApprovalAgent{AskFallback: "allowlist"}, Agents: map[string]*policy.ExecApprovalAgent{
		"ops": {AskFallback: "full"}, "plain": {Security: "deny"},
	}}
	for agent, want := range map[string]string{"ops": "full", "plain": "allowlist", "absent": "allowlist"} {
		if got := askFallback(doc, agent); got != want {
			t.Errorf("%s: %q, want %q", agent, got, want)
		}
	}
	if got := askFallback(policy.NewExecApprovals(), "main"); got != "deny" {
		t.Errorf("nothing set: %q, want deny", got)
	}
}

// Without a gateway the pending answer says how to approve: allowlist what
// missed, or (for shell syntax the allowlist cannot vouch for) full.
func TestLocalApprovalCommand(t *testing.T) {
	env := localEnv(t)
	putApprovals(t, env, `{"version":1,"defaults":{"security":"allowlist","ask":"on-miss"}}`)
	for cmd, want := range map[string]string{
		"touch x":      "openclaw approvals allow /usr/bin/touch",
		"echo hi > f":  "openclaw approvals set --security full",
		"make | touch": "openclaw approvals allow /usr/bin/make /usr/bin/touch",
	} {
		b, _ := json.Marshal(map[string]any{"command": cmd})
		_, err := invoke(t, env, string(b))
		if code(err) != tools.CodePendingApproval {
			t.Fatalf("%s: %v", cmd, err)
		}
		if got := tools.AsError(err).Details.(map[string]any)["approveCommand"]; got != want {
			t.Errorf("%s: approve with %q, want %q", cmd, got, want)
		}
	}
}

// A bare "*" entry allows even what no entry can vouch for (a shell); a
// "*" bound to an argPattern does not.
func TestStarEntryAndRefusedWrappers(t *testing.T) {
	env := localEnv(t)
	putApprovals(t, env, `{"version":1,"defaults":{"security":"allowlist","ask":"off","allowlist":[{"pattern":"*"}]}}`)
	m, err := invoke(t, env, `{"command":"sh -c 'echo star-ok'"}`)
	if err != nil || !strings.Contains(text(m), "star-ok") {
		t.Fatalf("sh -c under a bare *: %v %v", m, err)
	}
	putApprovals(t, env, `{"version":1,"defaults":{"security":"allowlist","ask":"off","allowlist":[{"pattern":"*","argPattern":"^never$"}]}}`)
	if _, err := invoke(t, env, `{"command":"sh -c 'echo star-ok'"}`); code(err) != tools.CodeDenied {
		t.Fatalf("sh -c under * with an argPattern: %v, want denied", err)
	}
}

// Every agent entry of an approvals file is checked, not only the defaults:
// a bad value under agents.<id> is refused and named.
func TestValidateApprovalsChecksEveryAgent(t *testing.T) {
	for _, bad := range []policy.ExecApprovalAgent{{Security: "bogus"}, {AskFallback: "bogus"}, {Ask: "bogus"},
		{Allowlist: []policy.AllowlistEntry{{Pattern: ""}}}} {
		d := &policy.ExecApprovals{Agents: map[string]*policy.ExecApprovalAgent{"good": {Security: "full"}, "ops": &bad}}
		err := validateApprovals(d)
		if err == nil || !strings.Contains(err.Error(), "agents.ops.") {
			t.Errorf("%+v: %v, want it refused under agents.ops", bad, err)
		}
	}
	if err := validateApprovals(&policy.ExecApprovals{Agents: map[string]*policy.ExecApprovalAgent{"a": {Security: "full"}, "b": nil}}); err != nil {
		t.Errorf("valid agents refused: %v", err)
	}
}
