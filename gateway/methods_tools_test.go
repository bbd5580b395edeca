package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

// tools.invoke checks the named tool's own scope: a write-scoped client
// reaches write tools but not the gateway tool's admin-only actions
// (issue 6), and the refusal is the method's FORBIDDEN, not a tool result.
func TestToolsInvokeChecksTheToolsScope(t *testing.T) {
	ts := startServer(t, Options{})
	w := dialConnected(t, ts.url, func(p map[string]any) { p["scopes"] = []string{"operator.write"} })
	for _, action := range []string{"config.patch", "config.apply", "restart", "update.run"} {
		f := w.call("tools.invoke", map[string]any{"name": "gateway", "args": map[string]any{"action": action, "raw": "{}"}})
		if f.OK || f.Error.Code != "FORBIDDEN" || f.Error.Message != "missing scope: operator.admin" {
			t.Errorf("writer gateway %s: ok=%v %s %+v", action, f.OK, f.Payload, f.Error)
		}
	}
	// A read action of the same tool is fine for a writer (write implies read).
	if f := w.call("tools.invoke", map[string]any{"name": "gateway", "args": map[string]any{"action": "config.get"}}); !f.OK ||
		!strings.Contains(string(f.Payload), `"ok":true`) {
		t.Errorf("writer gateway config.get: %s %+v", f.Payload, f.Error)
	}
	ts.s.restart.mu.Lock()
	scheduled := ts.s.restart.timer != nil
	ts.s.restart.mu.Unlock()
	if scheduled {
		t.Error("a writer scheduled a restart")
	}
}

// Relative paths given to tools.invoke resolve in the calling agent's
// workspace: agents.list[].workspace for that agent, else
// agents.defaults.workspace (issue 6). The agent comes from agentId or
// from the session key.
func TestToolsInvokeAgentWorkspace(t *testing.T) {
	dir := t.TempDir()
	opsWS, defWS := filepath.Join(dir, "ops-ws"), filepath.Join(dir, "default-ws")
	for ws, text := range map[string]string{opsWS: "from ops", defWS: "from default"} {
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(ws, "notes.md"), text)
	}
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{agents: {defaults: {workspace: "`+defWS+`"}, list: [{id: "main"}, {id: "ops", workspace: "`+opsWS+`"}]}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}})
	c := dialConnected(t, ts.url)
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"agentId": "ops"}, "from ops"},
		{map[string]any{"sessionKey": "agent:ops:main"}, "from ops"},
		{map[string]any{"agentId": "main"}, "from default"},
		{map[string]any{}, "from default"},
	} {
		tc.params["name"] = "read"
		tc.params["args"] = map[string]any{"path": "notes.md"}
		f := c.call("tools.invoke", tc.params)
		if !f.OK || !strings.Contains(string(f.Payload), tc.want) {
			t.Errorf("%v: %s %+v, want %q", tc.params, f.Payload, f.Error, tc.want)
		}
	}
}

// tools.effective takes the agent from sessionKey when agentId is absent
// (the original requires sessionKey; we stay lenient).
func TestToolsEffectiveSessionKey(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{agents: {list: [{id: "main"}, {id: "ops", tools: {deny: ["test_echo"]}}]}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}})
	c := dialConnected(t, ts.url)
	f := c.call("tools.effective", map[string]any{"sessionKey": "agent:ops:main"})
	if !f.OK || !strings.Contains(string(f.Payload), `"agentId":"ops"`) || strings.Contains(string(f.Payload), `"allowed":["test_echo"`) {
		t.Fatalf("effective by session key: %s %+v", f.Payload, f.Error)
	}
	if strings.Contains(string(f.Payload), `"id":"test_echo"`) {
		t.Errorf("ops denies test_echo: %s", f.Payload)
	}
	f = c.call("tools.effective", map[string]any{})
	if !f.OK || !strings.Contains(string(f.Payload), `"agentId":"main"`) || !strings.Contains(string(f.Payload), `"id":"test_echo"`) {
		t.Errorf("default agent: %s %+v", f.Payload, f.Error)
	}
}
