package exectool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// approvalGatewayEnv is an Env with the job runner, the exec sessions and
// the approvals queue, as in `openclaw serve`.
func approvalGatewayEnv(t *testing.T) *tools.Env {
	t.Helper()
	env, _ := gatewayEnv(t)
	q, err := newApprovalQueue(env)
	if err != nil {
		t.Fatal(err)
	}
	q.Start(context.Background())
	t.Cleanup(func() { q.Stop(context.Background()) })
	env.Services[approvalsService] = q
	return env
}

// A pending approval shows the exact env overrides and cwd that will run
// (issue 17 item 3: a relayed command's env was hidden), and the approval
// binds to them: the allowed run sees exactly those, a run with other env
// is a new request, and allow-always (which cannot bind env) is not offered.
func TestApprovalShowsAndBindsEnv(t *testing.T) {
	env := approvalGatewayEnv(t)
	putApprovals(t, env, `{"version":1,"defaults":{"security":"allowlist","ask":"on-miss"}}`)
	d := pendingOf2(t, env, `{"command":"printenv GREETING","env":{"GREETING":"hi there"}}`)
	id := d["approvalId"].(string)
	if !strings.Contains(tools.AsError(d["err"].(error)).Message, `env GREETING="hi there"`) {
		t.Errorf("pending message hides the env: %s", tools.AsError(d["err"].(error)).Message)
	}

	list, err := method(t, env, "exec.approval.list", `{}`)
	if err != nil || list.Get("0.id").String() != id || list.Get("0.request.env.GREETING").String() != "hi there" ||
		list.Get("0.request.cwd").String() != env.Workspace {
		t.Fatalf("exec.approval.list does not show env and cwd: %s %v", list.Raw, err)
	}
	if strings.Contains(list.Get("0.request.allowedDecisions").Raw, "allow-always") {
		t.Errorf("allow-always offered for a request with env overrides: %s", list.Get("0.request.allowedDecisions").Raw)
	}
	get, _ := method(t, env, "exec.approval.get", `{"id":"`+id+`"}`)
	if get.Get("env.GREETING").String() != "hi there" || get.Get("cwd").String() != env.Workspace {
		t.Fatalf("exec.approval.get: %s", get.Raw)
	}
	snap, _ := method(t, env, "approval.get", `{"id":"`+id+`"}`)
	if snap.Get("approval.presentation.env.GREETING").String() != "hi there" {
		t.Fatalf("approval.get presentation: %s", snap.Raw)
	}
	if _, err := method(t, env, "exec.approval.resolve", `{"id":"`+id+`","decision":"allow-always"}`); tools.AsError(err).Code != tools.CodeInvalidParams {
		t.Fatalf("allow-always with env overrides: %v, want refused", err)
	}

	// Another run with other env is its own request, not covered by the first.
	d2 := pendingOf2(t, env, `{"command":"printenv GREETING","env":{"GREETING":"other"}}`)
	if d2["approvalId"] == id {
		t.Fatal("a run with other env reused the approval")
	}

	// Allowing the first runs it with exactly the env shown.
	res, err := method(t, env, "exec.approval.resolve", `{"id":"`+id+`","decision":"allow-once"}`)
	if err != nil {
		t.Fatal(err)
	}
	sid := res.Get("approval.execution.sessionId").String()
	if sid == "" {
		t.Fatalf("allow-once did not start the command: %s", res.Raw)
	}
	out, _ := pollUntil(t, env, sid, "hi there")
	if strings.Contains(out, "other") {
		t.Fatalf("the approved run saw another request's env: %q", out)
	}
}

// pendingOf2 runs an exec (raw params) that must answer pending approval;
// it returns the details with the error under "err".
func pendingOf2(t *testing.T, env *tools.Env, params string) map[string]any {
	t.Helper()
	var p map[string]any
	json.Unmarshal([]byte(params), &p)
	_, err := invoke(t, env, params)
	if code(err) != tools.CodePendingApproval {
		t.Fatalf("%s: %v, want pending approval", params, err)
	}
	d := tools.AsError(err).Details.(map[string]any)
	d["err"] = err
	return d
}
