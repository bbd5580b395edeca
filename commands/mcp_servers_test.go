package commands

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/mcpclient/mcptest"
)

// The saved-server registry verbs read and write mcp.servers as the
// original does, with its messages, JSON shapes and the documented exit
// codes; the writes go through the locked, validated config write path.
func TestMCPServersRegistryCLI(t *testing.T) {
	ev := mcptest.Everything(t)
	home := t.TempDir()
	expect := func(code int, args ...string) ocResult {
		t.Helper()
		r := runOC(t, home, args...)
		if r.code != code {
			t.Fatalf("openclaw %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
		}
		return r
	}
	if r := expect(0, "mcp", "list", "--json"); strings.TrimSpace(r.stdout) != "{}" {
		t.Fatalf("empty list: %q", r.stdout)
	}
	evJSON, _ := json.Marshal(map[string]any{"command": ev, "args": []string{"stdio"}})
	r := expect(0, "mcp", "set", "ev", string(evJSON), "--json")
	if !gjson.Get(r.stdout, "ok").Bool() || gjson.Get(r.stdout, "action").String() != "saved" {
		t.Fatalf("set: %s", r.stdout)
	}
	// type:"http" is saved as the canonical transport.
	expect(0, "mcp", "set", "docs", `{"url":"https://mcp.example.invalid/mcp","type":"http","enabled":false}`)
	// Bad input: not JSON, not an object, a server that cannot run.
	expect(2, "mcp", "set", "x", "{nope")
	expect(2, "mcp", "set", "x", "[1]")
	if r := expect(2, "mcp", "set", "x", `{"args":["a"]}`); !strings.Contains(r.stderr, "neither a command") {
		t.Fatalf("unrunnable set: %s", r.stderr)
	}
	expect(2, "mcp", "set", "a.b", string(evJSON))

	list := expect(0, "mcp", "list", "--json").stdout
	if gjson.Get(list, "ev.command").String() != ev || gjson.Get(list, "docs.transport").String() != "streamable-http" ||
		gjson.Get(list, "docs.type").Exists() {
		t.Fatalf("list: %s", list)
	}
	if show := expect(0, "mcp", "show", "ev", "--json").stdout; gjson.Get(show, "args.0").String() != "stdio" {
		t.Fatalf("show: %s", show)
	}
	r = expect(1, "mcp", "show", "nope")
	if !strings.Contains(r.stderr, `No MCP server named "nope"`) || !strings.Contains(r.stderr, "openclaw mcp list") {
		t.Fatalf("show nope: %s", r.stderr)
	}
	st := expect(0, "mcp", "status", "--json").stdout
	if gjson.Get(st, `servers.#(name=="ev").transport`).String() != "stdio" ||
		gjson.Get(st, `servers.#(name=="docs").enabled`).Bool() || gjson.Get(st, `servers.#(name=="docs").ok`).Bool() {
		t.Fatalf("status: %s", st)
	}

	// tools <name> with filter flags writes toolFilter; without them it
	// lists the live server's tools under their agent names.
	expect(0, "mcp", "tools", "ev", "--include", "echo,get-s*", "--exclude", "get-structured-content")
	tl := expect(0, "mcp", "tools", "ev", "--json").stdout
	if names := gjson.Get(tl, "tools.#.name").String(); names != `["ev__echo","ev__get-sum"]` {
		t.Fatalf("tools ev: %s", tl)
	}
	expect(0, "mcp", "tools", "ev", "--clear")
	if show := expect(0, "mcp", "show", "ev", "--json").stdout; gjson.Get(show, "toolFilter").Exists() {
		t.Fatalf("--clear left %s", show)
	}
	// The bare form keeps its meaning: what `mcp serve` would list.
	if bare := expect(0, "mcp", "tools", "--json").stdout; !gjson.Get(bare, `#(name=="sessions_list").inputSchema`).Exists() {
		t.Fatalf("bare mcp tools: %.300s", bare)
	}

	pr := expect(0, "mcp", "probe", "--json").stdout
	if gjson.Get(pr, "servers.ev.tools").Int() < 5 || !gjson.Get(pr, `tools.#(=="ev__echo")`).Exists() ||
		gjson.Get(pr, "servers.docs").Exists() || gjson.Get(pr, "diagnostics.#").Int() != 0 {
		t.Fatalf("probe: %s", pr)
	}
	r = expect(1, "mcp", "probe", "docs")
	if !strings.Contains(r.stderr, "disabled") {
		t.Fatalf("probe of a disabled server: %s", r.stderr)
	}

	// add probes first: a server that cannot start is not saved.
	r = expect(1, "mcp", "add", "bad", "--command", "openclaw-no-such-mcp-server")
	if !strings.Contains(r.stderr, "nothing saved") {
		t.Fatalf("add bad: %s", r.stderr)
	}
	if list := expect(0, "mcp", "list", "--json").stdout; gjson.Get(list, "bad").Exists() {
		t.Fatalf("a failed add was saved: %s", list)
	}
	expect(1, "mcp", "add", "ev", "--command", ev)
	expect(2, "mcp", "add", "both", "--command", ev, "--url", "http://127.0.0.1:1/mcp")
	expect(2, "mcp", "add", "t", "--command", ev, "--timeout", "-3")
	expect(0, "mcp", "add", "ev2", "--command", ev, "--arg", "stdio", "--env", "A=1", "--timeout", "20", "--include", "echo")
	added := expect(0, "mcp", "show", "ev2", "--json").stdout
	if gjson.Get(added, "requestTimeoutMs").Int() != 20000 || gjson.Get(added, "env.A").String() != "1" ||
		gjson.Get(added, "toolFilter.include.0").String() != "echo" {
		t.Fatalf("add ev2: %s", added)
	}
	// A saved server that cannot start fails the probe (exit 1) after the
	// report: one JSON document on stdout, one line on stderr.
	expect(0, "mcp", "add", "gone", "--command", "openclaw-no-such-mcp-server", "--no-probe")
	r = expect(1, "mcp", "probe", "--json")
	if !json.Valid([]byte(r.stdout)) || gjson.Get(r.stdout, `diagnostics.#(serverName=="gone")`).Exists() == false ||
		gjson.Get(r.stdout, "servers.ev.tools").Int() == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("probe with a broken server:\nstdout %s\nstderr %s", r.stdout, r.stderr)
	}

	expect(1, "mcp", "unset", "nope")
	r = expect(0, "mcp", "unset", "gone")
	if !strings.Contains(r.stdout, `"action":"removed"`) {
		t.Fatalf("unset: %s", r.stdout)
	}
	for _, n := range []string{"ev", "ev2", "docs"} {
		expect(0, "mcp", "unset", n)
	}
	raw, err := os.ReadFile(cfgFile(home))
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(raw, "mcp").Exists() {
		t.Fatalf("an emptied mcp section stayed: %s", raw)
	}
	if st, err := os.Stat(cfgFile(home)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config mode: %v %v", st.Mode(), err)
	}
	if _, err := os.Stat(cfgFile(home) + ".bak"); err != nil {
		t.Fatalf("no .bak: %v", err)
	}
}

// doctor checks saved servers without connecting (and with --probe,
// connects): errors exit 1 after the report, warnings do not; a ${VAR}
// secret is not a literal.
func TestMCPServersDoctor(t *testing.T) {
	ev := mcptest.Everything(t)
	home := t.TempDir()
	cfg := map[string]any{"mcp": map[string]any{"servers": map[string]any{
		"ev":   map[string]any{"command": ev, "args": []any{"stdio"}, "env": map[string]any{"API_TOKEN": "literal-secret", "OTHER_TOKEN": "${HOME}"}},
		"gone": map[string]any{"command": "openclaw-no-such-mcp-server", "cwd": "/nonexistent-dir"},
		"off":  map[string]any{"command": "openclaw-no-such-mcp-server", "enabled": false},
	}}}
	b, _ := json.Marshal(cfg)
	if err := os.MkdirAll(home+"/.openclaw", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgFile(home), b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runOC(t, home, "mcp", "doctor", "--json")
	if r.code != 1 || !json.Valid([]byte(r.stdout)) || gjson.Get(r.stdout, "ok").Bool() {
		t.Fatalf("doctor: %d %s %s", r.code, r.stdout, r.stderr)
	}
	gone := gjson.Get(r.stdout, `servers.#(name=="gone").issues.#.message`).String()
	if !strings.Contains(gone, "stdio command not found") || !strings.Contains(gone, "stdio cwd does not exist") {
		t.Errorf("gone: %s", gone)
	}
	evIssues := gjson.Get(r.stdout, `servers.#(name=="ev")`)
	if !evIssues.Get("ok").Bool() || !strings.Contains(evIssues.Raw, "env.API_TOKEN contains a literal") || strings.Contains(evIssues.Raw, "OTHER_TOKEN") {
		t.Errorf("ev: %s", evIssues.Raw)
	}
	if off := gjson.Get(r.stdout, `servers.#(name=="off")`); !off.Get("ok").Bool() || !strings.Contains(off.Raw, "server is disabled") {
		t.Errorf("off: %s", off.Raw)
	}
	r = runOC(t, home, "mcp", "doctor", "ev", "--probe", "--json")
	if r.code != 0 || !gjson.Get(r.stdout, "ok").Bool() {
		t.Fatalf("doctor ev --probe: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r = runOC(t, home, "mcp", "doctor", "nope"); r.code != 1 || !strings.Contains(r.stderr, `No MCP server named "nope"`) {
		t.Fatalf("doctor nope: %d %s", r.code, r.stderr)
	}
}

// configure changes a saved server in place: enablement, filter,
// timeouts, TLS, without touching the rest of its definition.
func TestMCPServersConfigure(t *testing.T) {
	ev := mcptest.Everything(t)
	home := t.TempDir()
	evJSON, _ := json.Marshal(map[string]any{"command": ev, "args": []string{"stdio"}, "env": map[string]string{"K": "v"}})
	if r := runOC(t, home, "mcp", "set", "ev", string(evJSON)); r.code != 0 {
		t.Fatalf("set: %s", r.stderr)
	}
	show := func() string { return runOC(t, home, "mcp", "show", "ev", "--json").stdout }
	if r := runOC(t, home, "mcp", "configure", "ev", "--disable", "--timeout", "2.5", "--include", "echo", "--parallel"); r.code != 0 {
		t.Fatalf("configure: %d %s", r.code, r.stderr)
	}
	s := show()
	if gjson.Get(s, "enabled").Bool() || !gjson.Get(s, "enabled").Exists() || gjson.Get(s, "requestTimeoutMs").Int() != 2500 ||
		gjson.Get(s, "toolFilter.include.0").String() != "echo" || !gjson.Get(s, "supportsParallelToolCalls").Bool() || gjson.Get(s, "env.K").String() != "v" {
		t.Fatalf("after configure: %s", s)
	}
	if r := runOC(t, home, "mcp", "probe", "ev"); r.code != 1 || !strings.Contains(r.stderr, "mcp configure ev --enable") {
		t.Fatalf("probe of the disabled server: %d %s", r.code, r.stderr)
	}
	if r := runOC(t, home, "mcp", "configure", "ev", "--enable", "--clear-timeouts", "--clear-tools", "--no-parallel", "--probe"); r.code != 0 {
		t.Fatalf("configure --enable --probe: %d %s", r.code, r.stderr)
	}
	s = show()
	for _, k := range []string{"enabled", "requestTimeoutMs", "toolFilter", "supportsParallelToolCalls"} {
		if gjson.Get(s, k).Exists() {
			t.Errorf("%s left after clearing: %s", k, s)
		}
	}
	for _, bad := range [][]string{{"--enable", "--disable"}, {"--timeout", "0"}, {"--ssl-verify", "maybe"}, {"--approval", "always"}} {
		if r := runOC(t, home, append([]string{"mcp", "configure", "ev"}, bad...)...); r.code != 2 {
			t.Errorf("configure %v: exit %d, want 2 (%s)", bad, r.code, r.stderr)
		}
	}
	if r := runOC(t, home, "mcp", "configure", "nope", "--disable"); r.code != 1 {
		t.Errorf("configure nope: exit %d", r.code)
	}
}
