package exectool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

// approvalEnv is an Env with a started approvals queue, as in the gateway.
func approvalEnv(t *testing.T) *tools.Env {
	t.Helper()
	env := localEnv(t)
	svc, err := newApprovalQueue(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(context.Background()) })
	env.Services = map[string]tools.Service{approvalsService: svc}
	return env
}

func method(t *testing.T, env *tools.Env, name, params string) (gjson.Result, error) {
	t.Helper()
	out, err := tools.Invoke(context.Background(), env, tools.Call{Method: name, Args: json.RawMessage(params)})
	return gjson.ParseBytes(out), err
}

// exec.approvals.set is compare-and-set on the file's hash, as the
// original: a stale baseHash is refused and changes nothing.
func TestApprovalsFileGetSetCAS(t *testing.T) {
	env := approvalEnv(t)
	snap, err := method(t, env, "exec.approvals.get", `{}`)
	if err != nil || snap.Get("exists").Bool() || !strings.HasPrefix(snap.Get("hash").String(), "missing:") {
		t.Fatalf("get without a file: %s %v", snap.Raw, err)
	}
	set, err := method(t, env, "exec.approvals.set", `{"file":{"defaults":{"security":"allowlist","ask":"on-miss"}}}`)
	if err != nil || !set.Get("exists").Bool() || set.Get("file.defaults.security").String() != "allowlist" {
		t.Fatalf("first set: %s %v", set.Raw, err)
	}
	hash := set.Get("hash").String()
	if _, err := method(t, env, "exec.approvals.set", `{"file":{"defaults":{"security":"full"}},"baseHash":"stale"}`); tools.AsError(err).Code != tools.CodeInvalidParams {
		t.Fatalf("stale baseHash: %v", err)
	}
	if _, err := method(t, env, "exec.approvals.set", `{"file":{"defaults":{"security":"everything"}},"baseHash":"`+hash+`"}`); tools.AsError(err).Code != tools.CodeInvalidParams {
		t.Fatalf("bad security accepted: %v", err)
	}
	got, _ := method(t, env, "exec.approvals.get", `{}`)
	if got.Get("hash").String() != hash {
		t.Fatalf("a refused set changed the file: %s", got.Raw)
	}
	if set, err = method(t, env, "exec.approvals.set", `{"file":{"defaults":{"security":"full"}},"baseHash":"`+hash+`"}`); err != nil || set.Get("hash").String() == hash {
		t.Fatalf("set with the current hash: %s %v", set.Raw, err)
	}
}

// exec.approval.request (twoPhase) answers accepted, then the decision an
// operator gives through approval.resolve; approval.get shows it settled.
func TestApprovalRequestResolve(t *testing.T) {
	env := approvalEnv(t)
	accepted, final, err := tools.InvokeDeferred(context.Background(), env, tools.Call{Method: "exec.approval.request",
		Args: json.RawMessage(`{"command":"rm -rf build","host":"gateway","ask":"on-miss","twoPhase":true}`)})
	if err != nil || final == nil || gjson.GetBytes(accepted, "status").String() != "accepted" {
		t.Fatalf("request: %s %v", accepted, err)
	}
	id := gjson.GetBytes(accepted, "id").String()
	list, _ := method(t, env, "exec.approval.list", `{}`)
	if list.Get("#").Int() != 1 || list.Get("0.request.command").String() != "rm -rf build" {
		t.Fatalf("list: %s", list.Raw)
	}
	get, err := method(t, env, "approval.get", `{"id":"`+id+`"}`)
	if err != nil || get.Get("approval.status").String() != "pending" || get.Get("approval.presentation.kind").String() != "exec" {
		t.Fatalf("approval.get: %s %v", get.Raw, err)
	}
	res, err := method(t, env, "approval.resolve", `{"id":"`+id+`","kind":"exec","decision":"deny"}`)
	if err != nil || !res.Get("applied").Bool() || res.Get("approval.decision").String() != "deny" {
		t.Fatalf("resolve: %s %v", res.Raw, err)
	}
	out, err := final(context.Background())
	if err != nil || gjson.GetBytes(out, "decision").String() != "deny" {
		t.Fatalf("final: %s %v", out, err)
	}
	if _, err := method(t, env, "approval.get", `{"id":"nope-nope"}`); tools.AsError(err).Code != tools.CodeNotFound {
		t.Fatalf("unknown id: %v", err)
	}
}

// exec.approval.get|request|resolve and exec.approvals.get|set are closed
// objects, as the original's: an unknown property is refused with the
// original's message (checked against the original 2026.9.6 gateway), the
// first one in the order sent; the original's own optional properties are
// accepted. Methods the original leaves open stay open.
func TestApprovalMethodsRejectUnknownParams(t *testing.T) {
	env := approvalEnv(t)
	for _, c := range []struct{ name, params, want string }{
		{"exec.approval.get", `{"id":"x","bogus":1}`, "invalid exec.approval.get params: at root: unexpected property 'bogus'"},
		{"exec.approval.request", `{"command":"ls","zzz":2,"bogus":1}`, "invalid exec.approval.request params: at root: unexpected property 'zzz'"},
		{"exec.approval.resolve", `{"id":"x","decision":"deny","bogus":1}`, "invalid exec.approval.resolve params: at root: unexpected property 'bogus'"},
		{"exec.approvals.set", `{"file":{"version":1},"bogus":1}`, "invalid exec.approvals.set params: at root: unexpected property 'bogus'"},
		{"exec.approvals.get", `{"bogus":1}`, "invalid exec.approvals.get params: at root: unexpected property 'bogus'"},
	} {
		_, err := method(t, env, c.name, c.params)
		if te := tools.AsError(err); err == nil || te.Code != tools.CodeInvalidParams || te.Message != c.want {
			t.Errorf("%s %s: %v, want %q", c.name, c.params, err, c.want)
		}
	}
	// The original's node hosts and runners send these: accepted.
	accepted, final, err := tools.InvokeDeferred(context.Background(), env, tools.Call{Method: "exec.approval.request",
		Args: json.RawMessage(`{"command":"ls","twoPhase":true,"runId":"r1","toolCallId":"t1","turnSourceThreadId":7,"warningText":null,"suppressDelivery":true}`)})
	if err != nil || final == nil {
		t.Fatalf("request with the original's optional properties: %s %v", accepted, err)
	}
	id := gjson.GetBytes(accepted, "id").String()
	if _, err := method(t, env, "exec.approval.resolve", `{"id":"`+id+`","decision":"deny","grantExpiresInDays":3}`); err != nil {
		t.Fatalf("resolve with grantExpiresInDays: %v", err)
	}
	// exec.approval.list and waitDecision ignore unknown params, as the original.
	if _, err := method(t, env, "exec.approval.list", `{"bogus":1}`); err != nil {
		t.Fatalf("list: %v", err)
	}
}

// exec.approvals.get|set carry resolvedDefaults in the original's shape:
// the file's defaults, the built-in ones (full, off, deny, false) for what
// it leaves out.
func TestApprovalsResolvedDefaults(t *testing.T) {
	env := approvalEnv(t)
	snap, err := method(t, env, "exec.approvals.get", `{}`)
	if err != nil || snap.Get("resolvedDefaults").Raw != `{"security":"full","ask":"off","askFallback":"deny","autoAllowSkills":false}` {
		t.Fatalf("no file: %s %v", snap.Get("resolvedDefaults").Raw, err)
	}
	set, err := method(t, env, "exec.approvals.set", `{"file":{"version":1,"defaults":{"security":"allowlist","askFallback":"allowlist","autoAllowSkills":true},"agents":{"main":{"security":"deny"}}}}`)
	if err != nil || set.Get("resolvedDefaults").Raw != `{"security":"allowlist","ask":"off","askFallback":"allowlist","autoAllowSkills":true}` {
		t.Fatalf("set: %s %v", set.Get("resolvedDefaults").Raw, err)
	}
	snap, _ = method(t, env, "exec.approvals.get", `{}`)
	if snap.Get("resolvedDefaults").Raw != set.Get("resolvedDefaults").Raw {
		t.Fatalf("get after set: %s", snap.Raw)
	}
}
