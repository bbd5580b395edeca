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
