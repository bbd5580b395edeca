package sandboxtool

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

func explainFor(t *testing.T, cfgJSON, params string) (gjson.Result, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "openclaw.json")
	if err := os.WriteFile(path, []byte(cfgJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	out, err := tools.Invoke(context.Background(), &tools.Env{Config: cfg, StateDir: dir},
		tools.Call{Method: "sandbox.explain", Args: json.RawMessage(params)})
	return gjson.ParseBytes(out), err
}

// sandbox explain says, per agent and session, whether the session is
// sandboxed and under what, with the keys that set it and the elevated
// gates that fail.
func TestExplain(t *testing.T) {
	cfg := `{"tools":{"elevated":{"enabled":true}},"agents":{"defaults":{"sandbox":{"mode":"non-main","scope":"session"}},
		"list":[{"id":"main","default":true},{"id":"work","sandbox":{"mode":"all","workspaceAccess":"ro","docker":{"pidsLimit":64}},
		"tools":{"elevated":{"enabled":false}}}]}}`
	for _, c := range []struct {
		params, agent, session string
		sandboxed, elevated    bool
		modeKey, access        string
		procs                  int64
	}{
		{`{}`, "main", "agent:main:main", false, true, "agents.defaults.sandbox.mode", "none", 256},
		{`{"session":"main"}`, "main", "agent:main:main", false, true, "agents.defaults.sandbox.mode", "none", 256},
		{`{"session":"discord:group:1"}`, "main", "agent:main:discord:group:1", true, true, "agents.defaults.sandbox.mode", "none", 256},
		{`{"agent":"work"}`, "work", "agent:work:main", true, false, "agents.list[1].sandbox.mode", "ro", 64},
		{`{"session":"agent:work:telegram:9"}`, "work", "agent:work:telegram:9", true, false, "agents.list[1].sandbox.mode", "ro", 64},
	} {
		r, err := explainFor(t, cfg, c.params)
		if err != nil {
			t.Fatalf("%s: %v", c.params, err)
		}
		b := r.Get("sandbox")
		if r.Get("agentId").String() != c.agent || r.Get("sessionKey").String() != c.session ||
			b.Get("sessionIsSandboxed").Bool() != c.sandboxed || b.Get("keys.mode").String() != c.modeKey ||
			b.Get("workspaceAccess").String() != c.access || b.Get("limits.procs").Int() != c.procs ||
			b.Get("backend").String() != "bubblewrap" || b.Get("scope").String() != "session" ||
			r.Get("elevated.allowedByConfig").Bool() != c.elevated {
			t.Errorf("%s: %s", c.params, r.Raw)
		}
		if !c.elevated && r.Get("elevated.failures.0").String() != "agents.list[1].tools.elevated.enabled" {
			t.Errorf("%s: failing gate not named: %s", c.params, r.Get("elevated").Raw)
		}
		if c.sandboxed && !strings.HasPrefix(r.Get("fixIt.0").String(), c.modeKey+"=off") {
			t.Errorf("%s: fix-it: %s", c.params, r.Get("fixIt").Raw)
		}
	}
	if _, err := explainFor(t, cfg, `{"agent":"nobody"}`); err == nil || !strings.Contains(err.Error(), `unknown agent id "nobody"`) {
		t.Errorf("unknown agent: %v", err)
	}
	// A sandbox bind that escapes through a symlinked parent makes the
	// sandbox unavailable, and explain says why.
	ws := t.TempDir()
	os.Symlink("/etc", filepath.Join(ws, "link"))
	r, err := explainFor(t, `{"agents":{"defaults":{"workspace":"`+ws+`","sandbox":{"mode":"all","docker":{"binds":["`+ws+`/link/x:/data:ro"]}}}}}`, `{}`)
	if err != nil || r.Get("sandbox.available").Bool() || !strings.Contains(r.Get("sandbox.unavailableReason").String(), "under /etc") {
		t.Errorf("symlinked bind: %v %s", err, r.Get("sandbox").Raw)
	}
	var buf bytes.Buffer
	r, _ = explainFor(t, cfg, `{"agent":"work"}`)
	if err := render(&buf, r); err != nil || !strings.Contains(buf.String(), "run in the sandbox") ||
		!strings.Contains(buf.String(), "failing gates: agents.list[1].tools.elevated.enabled") {
		t.Errorf("render: %v\n%s", err, buf.String())
	}
}
