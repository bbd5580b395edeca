package exectool

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/sandbox"
	"github.com/openclaw-go/openclaw/tools"
)

func sandboxEnv(t *testing.T, cfgJSON string) *tools.Env {
	t.Helper()
	env := localEnv(t)
	path := filepath.Join(env.StateDir, "openclaw.json")
	if err := os.WriteFile(path, []byte(cfgJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	env.Config = cfg
	return env
}

// A sandbox that cannot start (here: no bubblewrap on PATH) fails the call
// with one line saying what to install or set; the command never runs on
// the host instead.
func TestSandboxFailsClosed(t *testing.T) {
	saved := sandbox.Binary
	sandbox.Binary = "openclaw-test-no-such-bwrap"
	t.Cleanup(func() { sandbox.Binary = saved })
	for _, c := range []struct{ cfg, host string }{
		{`{"agents":{"defaults":{"sandbox":{"mode":"all"}}}}`, ""},
		{`{}`, "sandbox"},
		{`{"agents":{"defaults":{"sandbox":{"mode":"all","backend":"docker"}}}}`, ""},
	} {
		env := sandboxEnv(t, c.cfg)
		marker := filepath.Join(env.Workspace, "ran")
		b, _ := json.Marshal(map[string]any{"command": "touch " + marker, "host": c.host})
		_, err := invoke(t, env, string(b))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		want := "apt-get install bubblewrap"
		if strings.Contains(c.cfg, "docker") {
			want = `sandbox backend "docker" is not available in this build`
		}
		if code(err) != tools.CodeFailed || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("%s host=%q: %v, want one line with %q", c.cfg, c.host, err, want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s host=%q: the command ran on the host", c.cfg, c.host)
		}
	}
}

// elevated leaves the sandbox only when tools.elevated.enabled and the
// agent's own tools.elevated.enabled allow it; otherwise it is refused
// naming the failing keys (and nothing runs).
func TestElevatedGatesOutOfTheSandbox(t *testing.T) {
	for _, c := range []struct {
		cfg, agent string
		host       bool
		failing    string
	}{
		{`{"agents":{"defaults":{"sandbox":{"mode":"all"}}}}`, "", false, "tools.elevated.enabled"},
		{`{"tools":{"elevated":{"enabled":true}},"agents":{"defaults":{"sandbox":{"mode":"all"}}}}`, "", true, ""},
		{`{"tools":{"elevated":{"enabled":true}},"agents":{"defaults":{"sandbox":{"mode":"all"}},` +
			`"list":[{"id":"main","default":true},{"id":"ops","tools":{"elevated":{"enabled":false}}}]}}`, "ops", false, "agents.list[1].tools.elevated.enabled"},
	} {
		env := sandboxEnv(t, c.cfg)
		env.Subject.AgentID = c.agent
		marker := filepath.Join(env.Workspace, "ran")
		b, _ := json.Marshal(map[string]any{"command": "touch " + marker, "elevated": true})
		_, err := invoke(t, env, string(b))
		_, statErr := os.Stat(marker)
		if c.host {
			if err != nil || statErr != nil {
				t.Errorf("%s: elevated did not run on the host: %v %v", c.cfg, err, statErr)
			}
			continue
		}
		if code(err) != tools.CodeDenied || !strings.Contains(err.Error(), "Failing gates: "+c.failing) || statErr == nil {
			t.Errorf("%s: %v (marker %v), want denied naming %s", c.cfg, err, statErr, c.failing)
		}
	}
}

// A background session in the sandbox is a process session like any
// other: process write reaches its stdin, poll its output, and process
// kill ends it with what it left in its own session, its environment
// cleared (the sandbox's pid namespace ends with it).
func TestSandboxedBackgroundSession(t *testing.T) {
	env, _ := gatewayEnv(t)
	path := filepath.Join(env.StateDir, "openclaw.json")
	os.WriteFile(path, []byte(`{"agents":{"defaults":{"sandbox":{"mode":"all"}}}}`), 0o600)
	cfg, err := config.Load(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	env.Config = cfg
	m, err := invoke(t, env, `{"command":"env -i setsid sleep 3377 >/dev/null 2>&1 </dev/null & echo in=$OPENCLAW_SANDBOX; read line; echo got=$line; sleep 600","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	id := details(m)["sessionId"].(string)
	pollUntil(t, env, id, "in=1")
	if _, err := procCall(t, env, "write", `{"sessionId":"`+id+`","data":"hello\n"}`); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, env, id, "got=hello")
	var left []int
	for deadline := time.Now().Add(10 * time.Second); len(left) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		left = sleepPIDs("3377") // setsid forks before it runs sleep
	}
	if len(left) == 0 {
		out, _ := exec.Command("ps", "-eo", "pid,user,args").Output()
		t.Fatalf("the sandboxed sleep is not running:\n%s", out)
	}
	if _, err := procCall(t, env, "kill", `{"sessionId":"`+id+`"}`); err != nil {
		t.Fatal(err)
	}
	for _, pid := range left {
		if !gone(pid) {
			t.Errorf("process kill left the sandboxed sleep %d running", pid)
		}
	}
}

// sleepPIDs lists the pids running `sleep arg`.
func sleepPIDs(arg string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(b) == "sleep\x00"+arg+"\x00" {
			if pid, err := strconv.Atoi(e.Name()); err == nil && !dead(pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}
