package exectool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
