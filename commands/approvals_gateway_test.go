package commands

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
)

// cliCmd is our CLI as a separate process against gateway g.
func cliCmd(t *testing.T, g *gatewayProc, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, ".openclaw"),
		"OPENCLAW_GATEWAY_URL="+g.url, "OPENCLAW_GATEWAY_TOKEN=sig", "NO_COLOR=1")
	return cmd
}

// runGwCLI runs one CLI command to its end: stdout, stderr, exit code.
func runGwCLI(t *testing.T, g *gatewayProc, args ...string) (string, string, int) {
	t.Helper()
	cmd := cliCmd(t, g, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return so.String(), se.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return so.String(), se.String(), 0
}

// writeApprovals puts an exec-approvals.json in the gateway's state dir.
func writeApprovals(t *testing.T, g *gatewayProc, doc string) {
	t.Helper()
	if err := os.MkdirAll(g.state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.state, "exec-approvals.json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// An exec the allowlist misses, relayed to the gateway, is held there: the
// CLI exits 8 with the request id and the command that resolves it; a
// second CLI process resolves it (allow-always runs the command and
// persists the allowlist entry; deny never runs it).
func TestGatewayExecApprovalResolvedFromSecondCLI(t *testing.T) {
	g := startGateway(t, "")
	writeApprovals(t, g, `{"version":1,"defaults":{"security":"allowlist","ask":"on-miss"}}`)
	work := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, events := eventConn(t, ctx, g.url)

	marker := filepath.Join(work, "ran")
	out, stderr, code := runGwCLI(t, g, "exec", "--remote", "--command", "touch "+marker)
	if code != 8 {
		t.Fatalf("exec needing approval: exit %d, want 8\n%s\n%s", code, out, stderr)
	}
	res := gjson.Parse(out)
	id := res.Get("error.details.approvalId").String()
	approve := res.Get("error.details.approveCommand").String()
	if id == "" || approve != "openclaw approvals resolve "+id+" allow-once|allow-always|deny" ||
		!strings.Contains(stderr, "openclaw approvals resolve "+id+" allow-once") {
		t.Fatalf("pending answer lacks the id or the approving command:\n%s\n%s", out, stderr)
	}
	ev := waitEvent(t, ctx, events, "exec.approval.requested")
	if gjson.GetBytes(ev.Payload, "id").String() != id || gjson.GetBytes(ev.Payload, "request.command").String() != "touch "+marker {
		t.Fatalf("requested event: %s", ev.Payload)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	list, _, code := runGwCLI(t, g, "approvals", "pending", "--json")
	if code != 0 || gjson.Get(list, "#").Int() != 1 || gjson.Get(list, "0.id").String() != id {
		t.Fatalf("approvals pending: %d %s", code, list)
	}

	// A second CLI process resolves it by its short id.
	out, stderr, code = runGwCLI(t, g, "approvals", "resolve", id[:8], "allow-always", "--json")
	if code != 0 || !gjson.Get(out, "applied").Bool() || gjson.Get(out, "approval.status").String() != "allowed" {
		t.Fatalf("resolve: %d %s %s", code, out, stderr)
	}
	ev = waitEvent(t, ctx, events, "exec.approval.resolved")
	if gjson.GetBytes(ev.Payload, "decision").String() != "allow-always" {
		t.Fatalf("resolved event: %s", ev.Payload)
	}
	sid := gjson.Get(out, "approval.execution.sessionId").String()
	if sid == "" {
		t.Fatalf("allowing did not start the command: %s", out)
	}
	// The tool's own wait (its "timeout" param, in ms: up to 10 s for the
	// exit). The CLI's --timeout is the call's deadline, not this param:
	// with it the poll answered at once and a loaded machine had not run
	// touch yet ("still running").
	poll, _, code := runGwCLI(t, g, "process", "poll", "--params", `{"sessionId":"`+sid+`","timeout":10000}`, "--json")
	if code != 0 || gjson.Get(poll, "details.status").String() != "completed" {
		t.Fatalf("poll: %d %s", code, poll)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("approved command did not run: %v", err)
	}
	doc, err := os.ReadFile(filepath.Join(g.state, "exec-approvals.json"))
	if err != nil {
		t.Fatal(err)
	}
	touch, _ := exec.LookPath("touch")
	touch, _ = filepath.EvalSymlinks(touch)
	entry := gjson.GetBytes(doc, `agents.main.allowlist.#(pattern=="`+touch+`")`)
	if !entry.Exists() || entry.Get("source").String() != "allow-always" {
		t.Fatalf("allow-always did not persist %s:\n%s", touch, doc)
	}
	// Now on the allowlist: runs at once.
	if out, stderr, code := runGwCLI(t, g, "exec", "--remote", "--command", "touch "+marker+"2"); code != 0 {
		t.Fatalf("allowlisted exec: %d %s %s", code, out, stderr)
	}

	// deny: the command never runs, and the request stays settled.
	denied := filepath.Join(work, "denied")
	out, _, code = runGwCLI(t, g, "exec", "--remote", "--command", "mkdir "+denied)
	id = gjson.Get(out, "error.details.approvalId").String()
	if code != 8 || id == "" {
		t.Fatalf("second pending: %d %s", code, out)
	}
	out, _, code = runGwCLI(t, g, "approvals", "resolve", id, "deny", "--json")
	if code != 0 || gjson.Get(out, "approval.status").String() != "denied" || gjson.Get(out, "approval.execution.sessionId").Exists() {
		t.Fatalf("deny: %d %s", code, out)
	}
	if _, err := os.Stat(denied); err == nil {
		t.Fatal("a denied command ran")
	}
	out, _, code = runGwCLI(t, g, "approvals", "resolve", id, "allow-once", "--json")
	if code != 0 || gjson.Get(out, "applied").Bool() || gjson.Get(out, "approval.decision").String() != "deny" {
		t.Fatalf("resolving a settled request changed it: %d %s", code, out)
	}
}

// awaitExec starts `exec --remote --await-approval` and returns it with
// the id of the request it raised (from the exec.approval.requested event).
func awaitExec(t *testing.T, ctx context.Context, g *gatewayProc, events chan protocol.Event, command string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	cmd := cliCmd(t, g, "exec", "--remote", "--await-approval", "--timeout", "60s", "--command", command)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, ctx, events, "exec.approval.requested")
	if gjson.GetBytes(ev.Payload, "request.command").String() != command {
		t.Fatalf("requested event: %s", ev.Payload)
	}
	return cmd, &so, &se, gjson.GetBytes(ev.Payload, "id").String()
}

// With --await-approval the caller waits: resolving from a second CLI runs
// the command in the waiting caller's foreground (its output, its exit
// code); deny refuses it with exit 3.
func TestGatewayExecAwaitApproval(t *testing.T) {
	g := startGateway(t, "")
	writeApprovals(t, g, `{"version":1,"defaults":{"security":"full","ask":"always"}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, events := eventConn(t, ctx, g.url)

	cmd, so, se, id := awaitExec(t, ctx, g, events, "echo waited-and-ran")
	if out, _, code := runGwCLI(t, g, "approvals", "resolve", id, "allow-once"); code != 0 || !strings.Contains(out, "allow-once") {
		t.Fatalf("resolve: %d %s", code, out)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("approved exec: %v\n%s\n%s", err, so, se)
	}
	if r := gjson.Get(so.String(), "details"); r.Get("status").String() != "completed" || r.Get("aggregated").String() != "waited-and-ran\n" {
		t.Fatalf("approved run: %s", so)
	}

	cmd, so, se, id = awaitExec(t, ctx, g, events, "echo refused")
	if _, _, code := runGwCLI(t, g, "approvals", "resolve", id, "deny"); code != 0 {
		t.Fatalf("deny: exit %d", code)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(se.String(), "denied by an operator") ||
		strings.Contains(so.String(), `"aggregated"`) {
		t.Fatalf("denied exec: %v\n%s\n%s", err, so, se)
	}
}

// Nobody answers: askFallback decides when the request expires — deny
// refuses (exit 3), full runs the command.
func TestGatewayExecApprovalTimeoutFallback(t *testing.T) {
	t.Setenv("OPENCLAW_EXEC_APPROVAL_TIMEOUT_MS", "300")
	g := startGateway(t, "")
	writeApprovals(t, g, `{"version":1,"defaults":{"security":"full","ask":"always","askFallback":"deny"}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, events := eventConn(t, ctx, g.url)

	out, stderr, code := runGwCLI(t, g, "exec", "--remote", "--await-approval", "--command", "echo never")
	if code != 3 || !strings.Contains(stderr, "approval timed out") || strings.Contains(out, `"aggregated"`) {
		t.Fatalf("timeout with askFallback deny: %d %s %s", code, out, stderr)
	}
	ev := waitEvent(t, ctx, events, "exec.approval.resolved")
	if gjson.GetBytes(ev.Payload, "status").String() != "expired" {
		t.Fatalf("expired event: %s", ev.Payload)
	}

	writeApprovals(t, g, `{"version":1,"defaults":{"security":"full","ask":"always","askFallback":"full"}}`)
	out, stderr, code = runGwCLI(t, g, "exec", "--remote", "--await-approval", "--command", "echo fallback-ran")
	if code != 0 || gjson.Get(out, "details.aggregated").String() != "fallback-ran\n" {
		t.Fatalf("timeout with askFallback full: %d %s %s", code, out, stderr)
	}
	ev = waitEvent(t, ctx, events, "exec.approval.resolved")
	if gjson.GetBytes(ev.Payload, "reason").String() != "timeout-fallback-full" {
		t.Fatalf("fallback event: %s", ev.Payload)
	}
}
