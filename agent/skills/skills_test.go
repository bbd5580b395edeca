package skills

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func cfgFrom(t testing.TB, dir, json string) *config.Config {
	t.Helper()
	p := filepath.Join(dir, "openclaw.json")
	write(t, p, json)
	c, err := config.Load(p, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The original's own bundled SKILL.md files (testdata/original, MIT):
// their multi-line flow-mapping metadata with trailing commas parses,
// and the gates read as the original defines them.
func TestParseOriginalSkills(t *testing.T) {
	read := func(name string) Front {
		b, err := os.ReadFile(filepath.Join("testdata", "original", name, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseFront(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return f
	}
	tm := read("tmux")
	if tm.Name != "tmux" || !strings.HasPrefix(tm.Description, "Control tmux sessions") ||
		!reflect.DeepEqual(tm.Meta.Requires.Bins, []string{"tmux"}) || !reflect.DeepEqual(tm.Meta.OS, []string{"darwin", "linux"}) ||
		len(tm.Meta.Install) != 1 || tm.Meta.Install[0].Label != "Install tmux (brew)" || !tm.UserInvocable || tm.DisableModelInvocation {
		t.Fatalf("tmux %+v", tm)
	}
	ca := read("coding-agent")
	if !reflect.DeepEqual(ca.Meta.Requires.AnyBins, []string{"claude", "codex", "opencode"}) ||
		!reflect.DeepEqual(ca.Meta.Requires.Config, []string{"skills.entries.coding-agent.enabled"}) || len(ca.Meta.Install) != 2 {
		t.Fatalf("coding-agent %+v", ca.Meta)
	}
	we := read("weather")
	if we.Homepage != "https://wttr.in/:help" || len(we.Meta.Requires.Bins) != 0 || we.Meta.Emoji == "" {
		t.Fatalf("weather %+v", we)
	}
	gh := read("github")
	if !reflect.DeepEqual(gh.Meta.Requires.Bins, []string{"gh"}) {
		t.Fatalf("github %+v", gh.Meta)
	}
}

// Every bundled skill of the installed original (the interop peer, when
// it is installed on this machine) parses; the copies in testdata are
// always checked above.
func TestParseInstalledOriginalSkills(t *testing.T) {
	dir := filepath.Join(os.Getenv("HOME"), ".cache", "openclaw-peer", "app", "node_modules", "openclaw", "skills")
	if d := os.Getenv("OPENCLAW_PEER_DIR"); d != "" {
		dir = filepath.Join(d, "app", "node_modules", "openclaw", "skills")
	}
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join("testdata", "original")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "SKILL.md"))
		if err != nil {
			continue
		}
		f, err := ParseFront(b)
		if err != nil || f.Name == "" || f.Description == "" {
			t.Errorf("%s: %+v %v", e.Name(), f, err)
		}
		n++
	}
	if n < 4 {
		t.Fatalf("only %d skills in %s", n, dir)
	}
	t.Logf("%d skills from %s parse", n, dir)
}

// Frontmatter forms: metadata as a single-line JSON5 string, the legacy
// clawdbot block, YAML that fails (a colon in a plain value) falling back
// to key: value lines, and the refusals (no frontmatter, unclosed).
func TestParseFrontForms(t *testing.T) {
	f, err := ParseFront([]byte("---\nname: gem\ndescription: Search with Gemini.\nmetadata: '{ \"openclaw\": { \"requires\": { \"bins\": [\"gemini\"], }, \"primaryEnv\": \"GEMINI_API_KEY\" } }'\n---\nbody"))
	if err != nil || f.Meta.PrimaryEnv != "GEMINI_API_KEY" || !reflect.DeepEqual(f.Meta.Requires.Bins, []string{"gemini"}) {
		t.Fatalf("json5 string: %+v %v", f, err)
	}
	f, err = ParseFront([]byte("---\nname: old\ndescription: d\nmetadata:\n  clawdbot:\n    os: [linux]\n    always: true\n---\n"))
	if err != nil || !f.Meta.Always || !reflect.DeepEqual(f.Meta.OS, []string{"linux"}) {
		t.Fatalf("clawdbot: %+v %v", f, err)
	}
	f, err = ParseFront([]byte("---\nname: colons\ndescription: Use it: when: always\nuser-invocable: false\n---\n"))
	if err != nil || f.Name != "colons" || f.Description != "Use it: when: always" || f.UserInvocable {
		t.Fatalf("fallback: %+v %v", f, err)
	}
	if _, err := ParseFront([]byte("# no frontmatter\n")); err == nil || !strings.Contains(err.Error(), "must start with a --- line") {
		t.Fatalf("no frontmatter: %v", err)
	}
	if _, err := ParseFront([]byte("---\nname: x\ndescription: y\n")); err == nil || !strings.Contains(err.Error(), "not closed") {
		t.Fatalf("unclosed: %v", err)
	}
}

// Gating: bins, anyBins, env (process, skills.entries.env, apiKey for the
// primaryEnv), config paths (browser.enabled counts as set by default),
// os, always (bypasses all but os), enabled=false, disable-model-
// invocation, and the agent allowlist; each says what is missing.
func TestStatusGating(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	sk := func(name, meta string, extra ...string) {
		write(t, filepath.Join(ws, "skills", name, "SKILL.md"), "---\nname: "+name+"\ndescription: The "+name+" skill.\n"+strings.Join(extra, "")+
			"metadata: {\"openclaw\": "+meta+"}\n---\n# "+name+"\n")
	}
	other := "darwin"
	if Platform() == "darwin" {
		other = "linux"
	}
	t.Setenv("SKILLS_TEST_PRESENT", "yes")
	sk("plain", `{}`)
	sk("hasbin", `{"requires": {"bins": ["sh"]}}`)
	sk("nobin", `{"requires": {"bins": ["sh", "no-such-binary-xyz"]}}`)
	sk("anybin", `{"requires": {"anyBins": ["no-such-binary-xyz", "sh"]}}`)
	sk("noanybin", `{"requires": {"anyBins": ["no-such-a", "no-such-b"]}}`)
	sk("envok", `{"requires": {"env": ["SKILLS_TEST_PRESENT"]}}`)
	sk("noenv", `{"requires": {"env": ["SKILLS_TEST_ABSENT_VAR"]}}`)
	sk("cfgenv", `{"requires": {"env": ["SKILLS_TEST_FROM_CONFIG"]}}`)
	sk("apikey", `{"requires": {"env": ["SKILLS_TEST_KEY"]}, "primaryEnv": "SKILLS_TEST_KEY"}`)
	sk("cfgpath", `{"requires": {"config": ["browser.enabled", "tools.web.search.enabled"]}}`)
	sk("wrongos", `{"os": ["`+other+`"]}`)
	sk("always", `{"always": true, "requires": {"bins": ["no-such-binary-xyz"]}}`)
	sk("off", `{}`)
	sk("hidden", `{}`, "disable-model-invocation: true\n")
	sk("keyed", `{"skillKey": "the-key", "requires": {"env": ["SKILLS_TEST_KEYED"]}}`)
	cfg := cfgFrom(t, dir, `{"skills": {"entries": {
		"cfgenv": {"env": {"SKILLS_TEST_FROM_CONFIG": "v"}},
		"apikey": {"apiKey": {"source": "env", "provider": "default", "id": "SOMETHING"}},
		"off": {"enabled": false},
		"the-key": {"env": {"SKILLS_TEST_KEYED": "v"}}}}}`)
	rep := Status(Inputs{Config: cfg, StateDir: dir, Workspace: ws})
	got := map[string]*SkillStatus{}
	for _, s := range rep.Skills {
		got[s.Name] = s
	}
	if len(got) != 15 {
		t.Fatalf("%d skills: %+v", len(got), rep.Diagnostics)
	}
	want := map[string]string{ // name -> missing summary; "" when eligible
		"plain": "", "hasbin": "", "nobin": "bins: no-such-binary-xyz", "anybin": "", "noanybin": "anyBins: no-such-a, no-such-b",
		"envok": "", "noenv": "env: SKILLS_TEST_ABSENT_VAR", "cfgenv": "", "apikey": "", "cfgpath": "config: tools.web.search.enabled",
		"wrongos": "os: " + other, "always": "", "off": "", "hidden": "", "keyed": "",
	}
	for name, miss := range want {
		s := got[name]
		if s.MissingSummary() != miss {
			t.Errorf("%s: missing %q, want %q", name, s.MissingSummary(), miss)
		}
		eligible := miss == "" && name != "off"
		if s.Eligible != eligible {
			t.Errorf("%s: eligible %v, want %v", name, s.Eligible, eligible)
		}
		visible := eligible && name != "hidden"
		if s.ModelVisible != visible {
			t.Errorf("%s: modelVisible %v, want %v", name, s.ModelVisible, visible)
		}
	}
	if !got["off"].Disabled || got["off"].NeedsSetup() || !got["wrongos"].PlatformIncompatible || got["keyed"].SkillKey != "the-key" {
		t.Errorf("off %+v wrongos %+v keyed %+v", got["off"], got["wrongos"], got["keyed"])
	}
	if cc := got["cfgpath"].ConfigChecks; len(cc) != 2 || !cc[0].Satisfied || cc[1].Satisfied {
		t.Errorf("config checks %+v", cc)
	}

	// The agent allowlist: agents.defaults.skills, replaced by the agent's own list.
	cfg = cfgFrom(t, dir, `{"agents": {"defaults": {"skills": ["plain"]}, "list": [{"id": "main"}, {"id": "w", "skills": ["hasbin"]}]}}`)
	for agent, visible := range map[string]string{"main": "plain", "w": "hasbin"} {
		rep = Status(Inputs{Config: cfg, StateDir: dir, Workspace: ws, AgentID: agent})
		var vis []string
		for _, s := range rep.Skills {
			if s.ModelVisible {
				vis = append(vis, s.Name)
			}
			if s.Name != visible && s.Eligible && !s.BlockedByAgentFilter {
				t.Errorf("agent %s: %s not filtered", agent, s.Name)
			}
		}
		if strings.Join(vis, ",") != visible {
			t.Errorf("agent %s sees %v, want %s", agent, vis, visible)
		}
	}
}

// Precedence: workspace skills/ over .agents/skills over the state dir's
// skills over skills.load.extraDirs; grouped folders are found by their
// frontmatter name; a folder without a description, a symlinked folder
// and a symlinked SKILL.md that lead out of the workspace are skipped
// with a reason.
func TestLoadPrecedenceAndContainment(t *testing.T) {
	dir := t.TempDir()
	ws, state, extra, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "state"), filepath.Join(dir, "extra"), filepath.Join(dir, "outside")
	sk := func(path, name, desc string) {
		write(t, filepath.Join(path, "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n---\n")
	}
	sk(filepath.Join(ws, "skills", "dup"), "dup", "from workspace")
	sk(filepath.Join(ws, ".agents", "skills", "dup"), "dup", "from project")
	sk(filepath.Join(ws, ".agents", "skills", "proj"), "proj", "from project")
	sk(filepath.Join(state, "skills", "dup"), "dup", "from state")
	sk(filepath.Join(state, "skills", "proj"), "proj", "from state")
	sk(filepath.Join(state, "skills", "mine"), "mine", "from state")
	sk(filepath.Join(extra, "mine"), "mine", "from extra")
	sk(filepath.Join(extra, "group", "deeper", "nested"), "renamed", "from extra, grouped")
	write(t, filepath.Join(ws, "skills", "nodesc", "SKILL.md"), "---\nname: nodesc\n---\n")
	sk(outside, "escape", "outside the workspace")
	if err := os.Symlink(outside, filepath.Join(ws, "skills", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "skills", "filelink"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "SKILL.md"), filepath.Join(ws, "skills", "filelink", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	cfg := cfgFrom(t, dir, `{"skills": {"load": {"extraDirs": ["`+extra+`"]}}}`)
	skills, diags := Load(Inputs{Config: cfg, StateDir: state, Workspace: ws})
	got := map[string]string{}
	for _, s := range skills {
		got[s.Name] = s.Description + " / " + s.Source
	}
	want := map[string]string{"dup": "from workspace / openclaw-workspace", "proj": "from project / agents-skills-project",
		"mine": "from state / openclaw-managed", "renamed": "from extra, grouped / openclaw-extra"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	msgs := ""
	for _, d := range diags {
		msgs += d.Path + ": " + d.Message + "\n"
	}
	if !strings.Contains(msgs, "nodesc/SKILL.md: description is required") || !strings.Contains(msgs, "escape/SKILL.md: skipped: resolves outside") ||
		!strings.Contains(msgs, "filelink/SKILL.md: skipped: resolves outside") {
		t.Fatalf("diagnostics:\n%s", msgs)
	}
}

// The prompt block: the original's <available_skills> with name,
// description and location, XML-escaped; over the character budget the
// descriptions shrink or go and a note points at `openclaw skills check`;
// over the count cap the list is cut to it.
func TestCatalogBounds(t *testing.T) {
	mk := func(n int, desc string) []*SkillStatus {
		var ss []*SkillStatus
		for i := range n {
			name := "skill-" + itoa(1000+i)
			ss = append(ss, &SkillStatus{Name: name, Description: desc, FilePath: "/s/" + name + "/SKILL.md", ModelVisible: true})
		}
		return ss
	}
	one := Catalog([]*SkillStatus{{Name: "a&b", Description: "x < y", FilePath: "/p/SKILL.md", ModelVisible: true},
		{Name: "hidden", Description: "d", FilePath: "/h", ModelVisible: false}}, 150, 18000)
	if !strings.Contains(one, "<available_skills>\n  <skill>\n    <name>a&amp;b</name>\n    <description>x &lt; y</description>\n    <location>/p/SKILL.md</location>\n  </skill>\n</available_skills>") ||
		strings.Contains(one, "hidden") || strings.Contains(one, "Note:") {
		t.Fatalf("catalog:\n%s", one)
	}
	long := strings.Repeat("word ", 60)
	c := Catalog(mk(100, long), 150, 18000)
	if len(c) > 18000 || strings.Count(c, "<skill>") != 100 || !strings.Contains(c, "descriptions shortened") || !strings.Contains(c, "...</description>") {
		t.Fatalf("compact: %d chars, %d skills\n%.600s", len(c), strings.Count(c, "<skill>"), c)
	}
	c = Catalog(mk(400, long), 150, 18000)
	if len(c) > 18000 || strings.Count(c, "<skill>") > 150 || !strings.Contains(c, "shortened to ") || !strings.Contains(c, "openclaw skills check") {
		t.Fatalf("capped: %d chars, %d skills\n%.600s", len(c), strings.Count(c, "<skill>"), c)
	}
	c = Catalog(mk(400, "short"), 1000, 4000)
	if len(c) > 4000 || strings.Count(c, "<skill>") == 0 || strings.Contains(c, "<description>") {
		t.Fatalf("names only: %d chars\n%.600s", len(c), c)
	}
}
