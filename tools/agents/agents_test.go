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

// Rows carry model.fallbacks and thinkingDefault by the original's rules
// (checked against the original's agents.list on this config): an agent
// naming its own model (a string, or {primary} alone) has no fallbacks,
// one without a model inherits the defaults' primary and fallbacks, and
// thinkingDefault is the agent's, else the defaults'. The default agent
// comes first, the others by id, as the original orders agents.entries.
func TestAgentsListFallbacksAndThinking(t *testing.T) {
	cfg := load(t, `{agents: {defaults: {model: {primary: "anthropic/claude-sonnet-4-5", fallbacks: ["openai/gpt-4o", " OpenAI/GPT-4o ", ""]},
		thinkingDefault: "low"},
		entries: {main: {}, ops: {name: "Ops", model: "openai/gpt-4o-mini", thinkingDefault: "high"},
			obj: {model: {primary: "local/m1"}}, own: {model: {primary: "local/m2", fallbacks: ["local/m3"]}},
			fbonly: {model: {fallbacks: ["local/m4"]}}}}}`)
	b, _ := json.Marshal(agentsList(&tools.Env{Config: cfg, StateDir: "/st"}))
	want := `{"agents":[` +
		`{"id":"main","workspace":"/st/workspace","thinkingDefault":"low","model":{"primary":"anthropic/claude-sonnet-4-5","fallbacks":["openai/gpt-4o"]}},` +
		`{"id":"fbonly","workspace":"/st/workspace","thinkingDefault":"low","model":{"primary":"anthropic/claude-sonnet-4-5","fallbacks":["local/m4"]}},` +
		`{"id":"obj","workspace":"/st/workspace","thinkingDefault":"low","model":{"primary":"local/m1"}},` +
		`{"id":"ops","name":"Ops","workspace":"/st/workspace","thinkingDefault":"high","model":{"primary":"openai/gpt-4o-mini"}},` +
		`{"id":"own","workspace":"/st/workspace","thinkingDefault":"low","model":{"primary":"local/m2","fallbacks":["local/m3"]}}],` +
		`"defaultId":"main","mainKey":"main","scope":"per-sender"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// skills.status answers the original's report shape: the workspace and
// managed dirs, and the SKILL.md folders found there by frontmatter name,
// each with its eligibility (no requirements: eligible and visible to the
// model); no skills at all is a valid, empty list.
func TestSkillsStatus(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace") // the default: <state>/workspace
	env := &tools.Env{StateDir: dir}
	r := skillsStatus(env, "")
	if r.WorkspaceDir != ws || len(r.Skills) != 0 {
		t.Fatalf("empty report %+v", r)
	}
	if err := os.MkdirAll(filepath.Join(ws, "skills", "weather"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "skills", "weather", "SKILL.md"), []byte("---\nname: weather\ndescription: \"Get the forecast\"\n---\n# Weather\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	skills := skillsStatus(env, "").Skills
	if len(skills) != 1 || skills[0].Name != "weather" || skills[0].Description != "Get the forecast" ||
		skills[0].Source != "openclaw-workspace" || !skills[0].Eligible || !skills[0].ModelVisible {
		t.Fatalf("skills %+v", skills[0])
	}
}
