package skills_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/agent/skills"
	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

const token = "skills-test-token"

// model is a local OpenAI-compatible chat completions server that
// answers "ok" and keeps each request's system prompt. With readSkill, a
// user turn is answered with a `read` call of the first <location> in
// the system prompt, and the tool result with "skill says: <content>".
type model struct {
	mu        sync.Mutex
	systems   []string
	readSkill bool
}

var locationRE = regexp.MustCompile(`<location>([^<]*)</location>`)

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.systems = append(m.systems, gjson.GetBytes(b, `messages.#(role=="system").content`).String())
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	msgs := gjson.GetBytes(b, "messages").Array()
	last := msgs[len(msgs)-1]
	sys := gjson.GetBytes(b, `messages.#(role=="system").content`).String()
	if loc := locationRE.FindStringSubmatch(sys); m.readSkill && loc != nil && last.Get("role").String() == "user" {
		args, _ := json.Marshal(map[string]string{"path": loc[1]})
		fmt.Fprintf(w, `{"model":"m1","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":%q}}]},"finish_reason":"tool_calls"}]}`, args)
		return
	}
	text := "ok"
	if last.Get("role").String() == "tool" {
		text = "skill says: " + last.Get("content").String()
	}
	fmt.Fprintf(w, `{"model":"m1","choices":[{"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`, text)
}

func (m *model) last(t *testing.T) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.systems) == 0 {
		t.Fatal("the model was not called")
	}
	return m.systems[len(m.systems)-1]
}

type env struct {
	url, dir, ws, state string
	model               *model
	conn                *client.Conn
}

func writeSkill(t testing.TB, dir, name, desc, meta string) string {
	t.Helper()
	p := filepath.Join(dir, name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: " + name + "\ndescription: " + desc + "\n"
	if meta != "" {
		body += "metadata: {\"openclaw\": " + meta + "}\n"
	}
	if err := os.WriteFile(p, []byte(body+"---\n# "+name+"\n\nDo the thing.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// start runs a gateway (state in a temp dir, workspace ws) whose model is
// the local server, with extra config merged at the top level.
func start(t *testing.T, extra map[string]any) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{dir: dir, ws: filepath.Join(dir, "workspace"), state: dir, model: &model{}}
	if err := os.MkdirAll(e.ws, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.model)
	t.Cleanup(srv.Close)
	cfg := map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": srv.URL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1", "name": "m1"}}}}},
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1", "workspace": e.ws},
			"list": []any{map[string]any{"id": "main", "default": true}}},
	}
	for k, v := range extra {
		cfg[k] = v
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	e.url = gatewaytest.Start(t, dir, token, 0).URL
	c, err := client.Dial(context.Background(), client.Options{URL: e.url, Token: token,
		Scopes: []string{protocol.ScopeRead, protocol.ScopeWrite}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e.conn = c
	return e
}

// turn runs one agent turn and returns the system prompt the model got.
func (e *env) turn(t *testing.T, msg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := e.conn.CallWith(ctx, "agent", map[string]any{"message": msg, "idempotencyKey": msg},
		client.CallOptions{ExpectFinal: true})
	if err != nil || gjson.GetBytes(out, "status").String() != "ok" {
		t.Fatalf("agent: %s %v", out, err)
	}
	return e.model.last(t)
}

var skillNameRE = regexp.MustCompile(`<name>([^<]*)</name>`)

func listed(system string) []string {
	var out []string
	for _, m := range skillNameRE.FindAllStringSubmatch(system, -1) {
		out = append(out, m[1])
	}
	return out
}

// A turn's system prompt lists the eligible skills with their
// description and SKILL.md path, and none of the others: a missing
// binary, a missing env var, another OS, skills.entries.<name>.enabled
// false, disable-model-invocation. A workspace skill hides the state
// dir's skill of the same name; skills.load.extraDirs adds the lowest.
// `skills.check` over the gateway and `openclaw skills check|list|info`
// name what each one lacks.
func TestTurnPromptListsEligibleSkills(t *testing.T) {
	other := "darwin"
	if skills.Platform() == "darwin" {
		other = "linux"
	}
	t.Setenv("SKILLS_E2E_PRESENT", "1")
	extra := t.TempDir()
	e := start(t, map[string]any{"skills": map[string]any{
		"load":    map[string]any{"extraDirs": []any{extra}},
		"entries": map[string]any{"switched-off": map[string]any{"enabled": false}, "keyed": map[string]any{"env": map[string]any{"SKILLS_E2E_KEYED": "x"}}},
	}})
	wsSkills, stateSkills := filepath.Join(e.ws, "skills"), filepath.Join(e.state, "skills")
	ready := writeSkill(t, wsSkills, "ready-one", "Use sh & env <safely>.", `{"requires": {"bins": ["sh"], "env": ["SKILLS_E2E_PRESENT"]}}`)
	writeSkill(t, wsSkills, "keyed", "Env given by skills.entries.", `{"requires": {"env": ["SKILLS_E2E_KEYED"]}}`)
	writeSkill(t, wsSkills, "needs-bin", "Needs a missing binary.", `{"requires": {"bins": ["no-such-bin-e2e"]}}`)
	writeSkill(t, wsSkills, "needs-env", "Needs a missing env var.", `{"requires": {"env": ["SKILLS_E2E_ABSENT"]}}`)
	writeSkill(t, wsSkills, "other-os", "Only on another OS.", `{"os": ["`+other+`"]}`)
	writeSkill(t, wsSkills, "switched-off", "Disabled in config.", "")
	dup := writeSkill(t, wsSkills, "dup", "Workspace copy.", "")
	writeSkill(t, stateSkills, "dup", "State copy.", "")
	shared := writeSkill(t, stateSkills, "shared", "From the state dir.", "")
	writeSkill(t, extra, "from-extra", "From an extra dir.", "")
	writeSkill(t, extra, "shared", "Extra copy, hidden by the state dir's.", "")
	hidden := filepath.Join(wsSkills, "hidden", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(hidden), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hidden, []byte("---\nname: hidden\ndescription: Slash command only.\ndisable-model-invocation: true\n---\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	sys := e.turn(t, "hello")
	if got, want := strings.Join(listed(sys), ","), "dup,from-extra,keyed,ready-one,shared"; got != want {
		t.Fatalf("skills in the prompt: %s, want %s\n%s", got, want, sys)
	}
	for _, want := range []string{"## Skills", "with `read`", "<description>Use sh &amp; env &lt;safely&gt;.</description>",
		"<location>" + ready + "</location>", "<description>Workspace copy.</description>", "<location>" + dup + "</location>",
		"<location>" + shared + "</location>", "<description>From the state dir.</description>"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	for _, not := range []string{"State copy.", "Extra copy"} {
		if strings.Contains(sys, not) {
			t.Errorf("system prompt has the hidden copy %q", not)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	chk, err := e.conn.Call(ctx, "skills.check", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(chk)
	if r.Get("summary.total").Int() != 10 || r.Get("summary.modelVisible").Int() != 5 || r.Get("summary.disabled").Int() != 1 ||
		r.Get("summary.missingRequirements").Int() != 3 ||
		r.Get(`missingRequirements.#(name=="needs-bin").missing.bins.0`).String() != "no-such-bin-e2e" ||
		r.Get(`missingRequirements.#(name=="needs-env").missing.env.0`).String() != "SKILLS_E2E_ABSENT" ||
		r.Get(`missingRequirements.#(name=="other-os").missing.os.0`).String() != other ||
		r.Get(`notInjected.0.name`).String() != "hidden" {
		t.Fatalf("skills.check: %s", chk)
	}
	st, err := e.conn.Call(ctx, "skills.status", map[string]any{"agentId": "main"})
	if err != nil || gjson.GetBytes(st, `skills.#(name=="ready-one").eligible`).Bool() != true ||
		gjson.GetBytes(st, `skills.#(name=="needs-bin").eligible`).Bool() != false ||
		gjson.GetBytes(st, `skills.#(name=="dup").source`).String() != "openclaw-workspace" {
		t.Fatalf("skills.status: %s %v", st, err)
	}

	// The CLI, relayed to this gateway.
	t.Setenv("HOME", e.dir)
	t.Setenv("OPENCLAW_STATE_DIR", filepath.Join(e.dir, "cli-state"))
	t.Setenv("OPENCLAW_GATEWAY_URL", e.url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", token)
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := commands.Main(append([]string{"openclaw"}, args...), strings.NewReader(""), &out, &errb); code != want {
			t.Fatalf("openclaw %s: exit %d, want %d: %s %s", strings.Join(args, " "), code, want, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	out, _ := run(0, "skills", "check", "--json")
	if gjson.Get(out, `missingRequirements.#(name=="needs-env").missing.env.0`).String() != "SKILLS_E2E_ABSENT" {
		t.Fatalf("skills check --json: %s", out)
	}
	out, _ = run(0, "skills", "list", "--eligible", "--json")
	var names []string
	for _, s := range gjson.Get(out, "skills").Array() {
		names = append(names, s.Get("name").String())
	}
	// In precedence order (workspace, state dir, extra dirs); hidden is
	// ready, only kept out of the prompt.
	if strings.Join(names, ",") != "dup,hidden,keyed,ready-one,shared,from-extra" {
		t.Fatalf("skills list --eligible: %v", names)
	}
	out, _ = run(0, "skills", "info", "needs-bin", "--json")
	if gjson.Get(out, "missing.bins.0").String() != "no-such-bin-e2e" || gjson.Get(out, "eligible").Bool() {
		t.Fatalf("skills info: %s", out)
	}
	_, errs := run(1, "skills", "info", "nope")
	if !strings.Contains(errs, `skill "nope" not found`) || !strings.Contains(errs, "openclaw skills list") {
		t.Fatalf("skills info nope: %s", errs)
	}
}

// The model follows the prompt: it reads the listed SKILL.md with `read`
// (through the one door) and gets the skill's instructions back.
func TestModelReadsListedSkill(t *testing.T) {
	e := start(t, nil)
	e.model.readSkill = true
	writeSkill(t, filepath.Join(e.state, "skills"), "greeter", "Greets people the house way.", "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := e.conn.CallWith(ctx, "agent", map[string]any{"message": "greet me", "idempotencyKey": "g1"}, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(out)
	if r.Get("toolCalls.0.name").String() != "read" || r.Get("toolCalls.0.isError").Bool() ||
		!strings.Contains(r.Get("result.payloads.0.text").String(), "# greeter") ||
		!strings.Contains(r.Get("result.payloads.0.text").String(), "Do the thing.") {
		t.Fatalf("final %s", out)
	}
}

// A skill folder added while the gateway runs is in the next turn's
// prompt, an edited description replaces the old one, and a removed
// folder leaves it: no restart, no watcher.
func TestSkillChangesSeenNextTurn(t *testing.T) {
	e := start(t, nil)
	first := e.turn(t, "one")
	if strings.Contains(first, "<available_skills>") {
		t.Fatalf("no skills yet, but:\n%s", first)
	}
	p := writeSkill(t, filepath.Join(e.state, "skills"), "late", "Added while running.", "")
	if got := listed(e.turn(t, "two")); strings.Join(got, ",") != "late" {
		t.Fatalf("after adding: %v", got)
	}
	if err := os.WriteFile(p, []byte("---\nname: late\ndescription: Edited while the gateway runs, longer now.\n---\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if sys := e.turn(t, "three"); !strings.Contains(sys, "Edited while the gateway runs, longer now.") || strings.Contains(sys, "Added while running.") {
		t.Fatalf("after editing:\n%s", sys)
	}
	if err := os.RemoveAll(filepath.Dir(p)); err != nil {
		t.Fatal(err)
	}
	if sys := e.turn(t, "four"); strings.Contains(sys, "<available_skills>") {
		t.Fatalf("after removing:\n%s", sys)
	}
}

// With 200 eligible skills with long descriptions, the skills section of
// the prompt stays within skills.limits.maxSkillsPromptChars (default
// 18000) and lists at most maxSkillsInPrompt (default 150), saying it was
// shortened; a smaller configured budget is honoured too.
func TestPromptBoundedWith200Skills(t *testing.T) {
	for _, tc := range []struct {
		name     string
		limits   map[string]any
		maxChars int
	}{{"defaults", nil, skills.DefaultMaxSkillsPromptChars}, {"configured", map[string]any{"maxSkillsPromptChars": 6000}, 6000}} {
		t.Run(tc.name, func(t *testing.T) {
			var extra map[string]any
			if tc.limits != nil {
				extra = map[string]any{"skills": map[string]any{"limits": tc.limits}}
			}
			e := start(t, extra)
			for i := range 200 {
				writeSkill(t, filepath.Join(e.ws, "skills"), fmt.Sprintf("skill-%03d", i), strings.Repeat("A long description of what this skill does. ", 6), "")
			}
			sys := e.turn(t, "many")
			start := strings.Index(sys, "## Skills")
			end := strings.Index(sys, "</available_skills>")
			if start < 0 || end < 0 {
				t.Fatalf("no skills section:\n%.2000s", sys)
			}
			section := sys[start : end+len("</available_skills>")]
			header := len("## Skills\n") + 400 // the section's fixed instructions
			n := len(listed(section))
			if len(section) > tc.maxChars+header || n == 0 || n > skills.DefaultMaxSkillsInPrompt || !strings.Contains(section, "openclaw skills check") {
				t.Fatalf("section: %d chars, %d skills (bound %d)\n%.1500s", len(section), n, tc.maxChars, section)
			}
			t.Logf("200 skills: section %d chars, %d listed", len(section), n)
		})
	}
}

// BenchmarkPromptSection50Skills is the skills section of one turn's
// system prompt with 50 eligible skills (each turn loads them anew:
// the walk, the stats and the parse cache): it reports the section's
// size in bytes and what building it costs per turn.
func BenchmarkPromptSection50Skills(b *testing.B) {
	dir := b.TempDir()
	ws := filepath.Join(dir, "ws")
	for i := range 50 {
		writeSkill(b, filepath.Join(ws, "skills"), fmt.Sprintf("skill-%02d", i),
			"Do one particular kind of task with a command line tool, and say when to use it.", `{"requires": {"bins": ["sh"]}}`)
	}
	in := skills.Inputs{StateDir: filepath.Join(dir, "state"), Workspace: ws}
	var s string
	for b.Loop() {
		s = skills.PromptSection(in)
	}
	if strings.Count(s, "<skill>") != 50 {
		b.Fatalf("%d skills listed", strings.Count(s, "<skill>"))
	}
	b.ReportMetric(float64(len(s)), "prompt-bytes")
	b.ReportMetric(float64(len(s))/4, "prompt-tokens~")
}
