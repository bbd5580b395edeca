package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

func load(t *testing.T, body string) *config.Config {
	t.Helper()
	p := filepath.Join(t.TempDir(), "openclaw.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The family declares its methods in the registry as gateway methods, and
// agents.list reads both config shapes with "main" as the fallback.
func TestAgentsList(t *testing.T) {
	for _, m := range []string{"agents.list", "models.list"} {
		a := tools.Lookup(m)
		if a == nil || a.Where != tools.Gateway {
			t.Fatalf("%s: %+v", m, a)
		}
	}
	for body, want := range map[string]string{
		`{agents: {list: [{id: "ops", name: "Ops", default: true}, {id: "main"}]}}`: `{"agents":[{"id":"ops","name":"Ops","workspace":"/st/workspace"},{"id":"main","workspace":"/st/workspace"}],"defaultId":"ops","mainKey":"main","scope":"per-sender"}`,
		`{agents: {entries: {b: {name: "B"}, a: {}}}}`:                              `{"agents":[{"id":"a","workspace":"/st/workspace"},{"id":"b","name":"B","workspace":"/st/workspace"}],"defaultId":"main","mainKey":"main","scope":"per-sender"}`,
		`{}`: `{"agents":[{"id":"main","workspace":"/st/workspace"}],"defaultId":"main","mainKey":"main","scope":"per-sender"}`,
	} {
		b, _ := json.Marshal(agentsList(&tools.Env{Config: load(t, body), StateDir: "/st"}))
		if string(b) != want {
			t.Errorf("%s:\n got %s\nwant %s", body, b, want)
		}
	}
}

// Rows carry the agent's workspace and primary model, as the original's
// agents.list rows do: the agent's own, else the defaults.
func TestAgentsListWorkspaceAndModel(t *testing.T) {
	cfg := load(t, `{agents: {defaults: {workspace: "/ws", model: {primary: "openai/gpt-x"}},
		list: [{id: "main"}, {id: "ops", workspace: "/ops", model: "local/m1"}]}}`)
	b, _ := json.Marshal(agentsList(&tools.Env{Config: cfg, StateDir: "/st"}))
	want := `{"agents":[{"id":"main","workspace":"/ws","model":{"primary":"openai/gpt-x"}},` +
		`{"id":"ops","workspace":"/ops","model":{"primary":"local/m1"}}],"defaultId":"main","mainKey":"main","scope":"per-sender"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
