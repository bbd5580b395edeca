package exectool_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

const gwToken = "exec-policy-token"

// policyGateway is a real gateway on loopback with configJSON as its
// openclaw.json and doc as its exec approvals file, and an operator.write
// connection to it (what a write-scoped attacker holds).
func policyGateway(t *testing.T, configJSON string, doc *policy.ExecApprovals) (*gatewaytest.Gateway, *client.Conn) {
	t.Helper()
	dir := t.TempDir()
	if configJSON != "" {
		if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(configJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if doc != nil {
		if _, err := approvalsfile.Update(context.Background(), approvalsfile.Path(dir), func(s *approvalsfile.Snapshot) error {
			s.Doc = doc
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	g := gatewaytest.Start(t, dir, gwToken, 0)
	c, err := client.Dial(context.Background(), client.Options{URL: g.URL, Token: gwToken, Scopes: []string{protocol.ScopeWrite}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return g, c
}

// invokeExec calls tools.invoke {name: exec} and returns its payload
// ({ok, output | error}).
func invokeExec(t *testing.T, c *client.Conn, args map[string]any, extra map[string]any) gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	params := map[string]any{"name": "exec", "args": args}
	for k, v := range extra {
		params[k] = v
	}
	out, err := c.Call(ctx, "tools.invoke", params)
	if err != nil {
		t.Fatalf("tools.invoke exec: %v", err)
	}
	return gjson.ParseBytes(out)
}

func mainAllowlist(entries ...policy.AllowlistEntry) *policy.ExecApprovals {
	doc := policy.NewExecApprovals()
	m := doc.Agent("main")
	m.Security, m.Ask, m.Allowlist = "allowlist", "off", entries
	return doc
}

// issue 30 item 2: `approvals set` writes agents.main; tools.invoke for an
// agent id nobody configured ran `id` under the defaults (built-in
// security full) while main's allowlist refused it.
func TestExecForAnUnknownAgentIsRefused(t *testing.T) {
	doc := mainAllowlist()
	// What allow-always leaves for an agent that had no entry: an
	// allowlist and no security of its own.
	doc.Agent("ops").Allowlist = []policy.AllowlistEntry{{Pattern: "true", Source: "allow-always"}}
	_, w := policyGateway(t, `{"agents":{"list":[{"id":"main","default":true},{"id":"work"},{"id":"ops"}]}}`, doc)
	dir := t.TempDir()
	touch := func(marker string) map[string]any {
		return map[string]any{"command": "touch " + filepath.Join(dir, marker), "workdir": dir}
	}
	if r := invokeExec(t, w, touch("main-ran"), map[string]any{"agentId": "main"}); r.Get("ok").Bool() ||
		!strings.Contains(r.Get("error.message").String(), "allowlist miss") {
		t.Errorf("main: %s", r.Raw)
	}
	r := invokeExec(t, w, touch("zzz-ran"), map[string]any{"agentId": "zzz"})
	if r.Get("ok").Bool() || !strings.Contains(r.Get("error.message").String(), `unknown agent id "zzz"`) ||
		r.Get("error.details.code").String() != "UNKNOWN_AGENT_ID" {
		t.Errorf("unknown agent: %s", r.Raw)
	}
	// A session key naming an unknown agent is the same unknown agent.
	if r := invokeExec(t, w, touch("key-ran"), map[string]any{"sessionKey": "agent:zzz:main"}); r.Get("ok").Bool() ||
		!strings.Contains(r.Get("error.message").String(), `unknown agent id "zzz"`) {
		t.Errorf("unknown agent by session key: %s", r.Raw)
	}
	// A configured agent without an approvals entry: no looser than main.
	if r := invokeExec(t, w, touch("work-ran"), map[string]any{"agentId": "work"}); r.Get("ok").Bool() ||
		!strings.Contains(r.Get("error.message").String(), "allowlist miss") {
		t.Errorf("work: %s", r.Raw)
	}
	if r := invokeExec(t, w, touch("ops-ran"), map[string]any{"agentId": "ops"}); r.Get("ok").Bool() ||
		!strings.Contains(r.Get("error.message").String(), "allowlist miss") {
		t.Errorf("ops: %s", r.Raw)
	}
	if r := invokeExec(t, w, map[string]any{"command": "true", "workdir": dir}, map[string]any{"agentId": "ops"}); !r.Get("ok").Bool() {
		t.Errorf("ops, its allowlisted true: %s", r.Raw)
	}
	for _, m := range []string{"main-ran", "zzz-ran", "key-ran", "work-ran", "ops-ran"} {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			t.Errorf("%s: the command ran", m)
		}
	}
}

// issue 30 item 3: an argument-pattern entry vouches for argv, not for
// what a program's own environment variables make it do. With git
// allowlisted as ^status$, GIT_CONFIG_* set core.fsmonitor to a command
// that git status ran; TAR_OPTIONS did the same for `tar tf a.tar`. In
// allowlist mode an env override (the call's, or an env wrapper's in the
// line) is a miss unless the entry that vouches names the key.
func TestEnvOverridesAreAnAllowlistMiss(t *testing.T) {
	for _, bin := range []string{"git", "tar"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is needed on PATH: %v", bin, err)
		}
	}
	dir := t.TempDir()
	for _, argv := range [][]string{{"git", "init", "-q"}, {"sh", "-c", "echo a > f"}, {"git", "add", "f"},
		{"git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}, {"tar", "cf", "a.tar", "f"}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", argv, err, out)
		}
	}
	_, w := policyGateway(t, "", mainAllowlist(
		policy.AllowlistEntry{Pattern: "git", ArgPattern: "^status$", Env: []string{"GIT_PAGER"}},
		policy.AllowlistEntry{Pattern: "tar", ArgPattern: `^tf a\.tar$`}))
	run := func(command string, env map[string]any) gjson.Result {
		args := map[string]any{"command": command, "workdir": dir}
		if env != nil {
			args["env"] = env
		}
		return invokeExec(t, w, args, map[string]any{"agentId": "main"})
	}
	denied := func(what string, r gjson.Result, keys ...string) {
		t.Helper()
		msg := r.Get("error.message").String()
		if r.Get("ok").Bool() || !strings.Contains(msg, "allowlist miss") {
			t.Errorf("%s: %s", what, r.Raw)
		}
		for _, k := range keys {
			if !strings.Contains(msg, k) {
				t.Errorf("%s: the refusal does not name %s: %s", what, k, msg)
			}
		}
	}
	// What the entries allow still runs, with the variable an entry names.
	if r := run("git status", nil); !r.Get("ok").Bool() {
		t.Fatalf("git status: %s", r.Raw)
	}
	if r := run("git status", map[string]any{"GIT_PAGER": "cat"}); !r.Get("ok").Bool() {
		t.Errorf("git status with GIT_PAGER named by its entry: %s", r.Raw)
	}
	if r := run("tar tf a.tar", nil); !r.Get("ok").Bool() {
		t.Errorf("tar tf a.tar: %s", r.Raw)
	}
	gitHook := map[string]any{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "touch PWNED; echo"}
	denied("git with GIT_CONFIG_*", run("git status", gitHook), "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0")
	denied("tar with TAR_OPTIONS", run("tar tf a.tar", map[string]any{"TAR_OPTIONS": "--checkpoint=1 --checkpoint-action='exec=touch PWNED'"}), "TAR_OPTIONS")
	// The same variables set by an env wrapper in the line.
	denied("env wrapper", run(`env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor "GIT_CONFIG_VALUE_0=touch PWNED; echo" git status`, nil), "GIT_CONFIG_COUNT")
	// A named key does not let the others through.
	denied("named plus unnamed", run("git status", map[string]any{"GIT_PAGER": "cat", "GIT_CONFIG_COUNT": "1",
		"GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "touch PWNED; echo"}), "GIT_CONFIG_COUNT")
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("an env override ran a hook: PWNED exists")
	}
}

// issue 30 item 5: with agents.defaults.sandbox.mode "all" an agent's exec
// ran on the host; then (no backend) it was refused. Now a call the
// config sandboxes runs in the bubblewrap sandbox (it cannot see the
// host's directory it tries to write): "all" every session, "non-main"
// every session but the agent's main one, a per-agent mode that agent
// only; host=gateway does not take a sandboxed call out. Without
// bubblewrap the call fails closed (TestSandboxFailsClosed).
func TestSandboxedCallsRunInTheSandboxNotOnTheHost(t *testing.T) {
	dir := t.TempDir()
	touch := func(marker string) map[string]any {
		return map[string]any{"command": "echo in=$OPENCLAW_SANDBOX; touch " + filepath.Join(dir, marker), "workdir": dir}
	}
	sandboxed := func(what string, r gjson.Result) {
		t.Helper()
		if !r.Get("ok").Bool() || !strings.Contains(r.Get("output.details.aggregated").String(), "in=1\n") {
			t.Errorf("%s: not run in the sandbox: %s", what, r.Raw)
		}
	}
	ran := func(what string, r gjson.Result) {
		t.Helper()
		if !r.Get("ok").Bool() || r.Get("output.details.exitCode").Int() != 0 {
			t.Errorf("%s: %s", what, r.Raw)
		}
	}

	g, w := policyGateway(t, `{"agents":{"defaults":{"sandbox":{"mode":"all"}}}}`, nil)
	sandboxed("mode all, main session", invokeExec(t, w, touch("all-main"), map[string]any{"sessionKey": "agent:main:main"}))
	sandboxed("mode all, no session", invokeExec(t, w, touch("all-direct"), nil))
	args := touch("all-gw")
	args["host"] = "gateway"
	sandboxed("mode all, host=gateway asked", invokeExec(t, w, args, nil))
	log, err := os.ReadFile(filepath.Join(g.Dir, "logs", "gateway.log"))
	if err != nil || !strings.Contains(string(log), `agents.defaults.sandbox.mode is "all": every session's commands run in the sandbox`) {
		t.Errorf("the gateway did not say at start that sessions run in the sandbox (%v):\n%s", err, log)
	}

	_, w = policyGateway(t, `{"agents":{"defaults":{"sandbox":{"mode":"non-main"}}}}`, nil)
	ran("non-main, main session", invokeExec(t, w, touch("nm-main"), map[string]any{"sessionKey": "agent:main:main"}))
	sandboxed("non-main, a group session", invokeExec(t, w, touch("nm-group"), map[string]any{"sessionKey": "agent:main:discord:group:123"}))

	_, w = policyGateway(t, `{"agents":{"list":[{"id":"main","default":true},{"id":"coder","sandbox":{"mode":"all"}}]}}`, nil)
	ran("per-agent mode, another agent", invokeExec(t, w, touch("pa-main"), map[string]any{"agentId": "main"}))
	sandboxed("per-agent mode", invokeExec(t, w, touch("pa-coder"), map[string]any{"agentId": "coder"}))

	for _, m := range []string{"all-main", "all-direct", "all-gw", "nm-group", "pa-coder"} {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			t.Errorf("%s: a sandboxed command wrote on the host", m)
		}
	}
	for _, m := range []string{"nm-main", "pa-main"} {
		if _, err := os.Stat(filepath.Join(dir, m)); err != nil {
			t.Errorf("%s: an unsandboxed command did not run: %v", m, err)
		}
	}
}

// The same hole in any tool's policy (issue 30 item 2): main's per-agent
// tools.deny held for main, while tools.invoke naming an agent nobody
// configured got the defaults' tool policy and wrote the file. The
// gateway's tools.invoke and tools.effective refuse an unknown agent id.
func TestToolsInvokeRefusesAnUnknownAgentForEveryTool(t *testing.T) {
	dir := t.TempDir()
	_, w := policyGateway(t, `{"agents":{"defaults":{"workspace":"`+dir+`"},"list":[{"id":"main","default":true,"tools":{"deny":["write"]}}]}}`, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	write := func(agent, name string) gjson.Result {
		out, err := w.Call(ctx, "tools.invoke", map[string]any{"name": "write", "agentId": agent,
			"args": map[string]any{"path": filepath.Join(dir, name), "content": "x"}})
		if err != nil {
			t.Fatalf("tools.invoke write: %v", err)
		}
		return gjson.ParseBytes(out)
	}
	if r := write("main", "main.txt"); r.Get("ok").Bool() || r.Get("error.code").String() != "DENIED" {
		t.Errorf("main: %s", r.Raw)
	}
	if r := write("zzz", "zzz.txt"); r.Get("ok").Bool() || !strings.Contains(r.Get("error.message").String(), `unknown agent id "zzz"`) {
		t.Errorf("unknown agent: %s", r.Raw)
	}
	for _, f := range []string{"main.txt", "zzz.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	if _, err := w.Call(ctx, "tools.effective", map[string]any{"agentId": "zzz"}); err == nil || !strings.Contains(err.Error(), `unknown agent id "zzz"`) {
		t.Errorf("tools.effective for an unknown agent: %v", err)
	}
}
