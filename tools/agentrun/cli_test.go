package agentrun_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/commands"
)

// The CLI, as a user runs it against the gateway: `openclaw agent
// --message` prints the final JSON when piped (text, session key),
// `openclaw sessions list` has the session's row with its key and
// `openclaw sessions history --session-key K --include-tools` the turn.
func TestAgentAndSessionsCLI(t *testing.T) {
	url, _, dir := setup(t)
	t.Setenv("HOME", dir)
	t.Setenv("OPENCLAW_STATE_DIR", dir+"/cli-state")
	t.Setenv("OPENCLAW_GATEWAY_URL", url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", token)
	run := func(args ...string) gjson.Result {
		t.Helper()
		var out, errb bytes.Buffer
		if code := commands.Main(append([]string{"openclaw"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("openclaw %s: exit %d: %s %s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return gjson.Parse(out.String())
	}
	r := run("agent", "--message", "What is in notes.txt?", "--session-key", "agent:main:cli")
	if r.Get("status").String() != "ok" || r.Get("sessionKey").String() != "agent:main:cli" ||
		r.Get("result.payloads.0.text").String() != "The file says: remember the milk" {
		t.Fatalf("agent: %s", r.Raw)
	}
	l := run("sessions", "list")
	if l.Get(`sessions.#(key=="agent:main:cli").kind`).String() != "other" {
		t.Fatalf("sessions list: %s", l.Raw)
	}
	h := run("sessions", "history", "--session-key", "agent:main:cli", "--include-tools")
	if h.Get("messages.#").Int() != 4 || h.Get("messages.2.toolName").String() != "read" {
		t.Fatalf("sessions history: %s", h.Raw)
	}
	h = run("sessions", "history", "--session-key", "agent:main:cli")
	if h.Get("messages.#").Int() != 3 {
		t.Fatalf("sessions history without tools: %s", h.Raw)
	}
}

// `openclaw agent` shows the run as it happens: --stream prints the run's
// agent events as NDJSON (lifecycle start, the read tool's start and
// result, lifecycle end) and then the final JSON line; on a terminal the
// tool calls appear as lines and the streamed answer text follows, with
// the closing line naming the session.
func TestAgentCLIStreams(t *testing.T) {
	m := &scripted{script: func(req gjson.Result) reply {
		if tr := toolResults(req); len(tr) > 0 {
			return reply{text: "It says " + tr[0]}
		}
		return reply{calls: [][2]string{{"read", `{"path":"notes.txt"}`}}}
	}}
	url, dir := flowGateway(t, m, nil)
	t.Setenv("HOME", dir)
	t.Setenv("OPENCLAW_STATE_DIR", dir+"/cli-state")
	t.Setenv("OPENCLAW_GATEWAY_URL", url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", token)
	var out, errb bytes.Buffer
	if code := commands.Main([]string{"openclaw", "agent", "--message", "read it", "--stream"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var seen []string
	for _, l := range lines[:len(lines)-1] {
		ev := gjson.Parse(l)
		if ev.Get("type").String() != "event" || ev.Get("event").String() != "agent" {
			t.Fatalf("not an agent event line: %s", l)
		}
		if p := ev.Get("payload.data.phase").String(); p != "" {
			seen = append(seen, ev.Get("payload.stream").String()+":"+p)
		}
	}
	if got := strings.Join(seen, " "); got != "lifecycle:start tool:start tool:result lifecycle:end" {
		t.Fatalf("events %q in %s", got, out.String())
	}
	final := gjson.Parse(lines[len(lines)-1])
	if final.Get("status").String() != "ok" || final.Get("result.payloads.0.text").String() != "It says remember the milk" {
		t.Fatalf("final line %s", lines[len(lines)-1])
	}

	// On a terminal (a real pty as stdout), without colour.
	t.Setenv("NO_COLOR", "1")
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(ptmx)
		got <- string(b)
	}()
	m.mu.Lock()
	m.n = 0 // the answer streams (SSE): the first request of a turn is odd
	m.mu.Unlock()
	code := commands.Main([]string{"openclaw", "agent", "--message", "read it again", "--session-key", "agent:main:tty"}, strings.NewReader(""), tty, &errb)
	tty.Close()
	screen := strings.ReplaceAll(<-got, "\r", "")
	if code != 0 {
		t.Fatalf("tty exit %d: %s %s", code, screen, errb.String())
	}
	if !strings.Contains(screen, `→ read {"path":"notes.txt"}`) || !strings.Contains(screen, "← read ok") ||
		!strings.Contains(screen, "It says remember the milk\n") || !strings.Contains(screen, "(session agent:main:tty, 2 step(s); tools: read)") ||
		strings.Index(screen, "→ read") > strings.Index(screen, "It says") {
		t.Fatalf("terminal output %q", screen)
	}
}

// The sessions verbs and agents list as a user runs them (piped: the
// tool result JSON): sessions send waits for the reply, sessions spawn
// answers accepted and the child's result is announced to the main
// session, sessions status sets a model override, agents list names the
// requester.
func TestSessionsVerbsCLI(t *testing.T) {
	m := &scripted{script: func(req gjson.Result) reply {
		u := lastUser(req)
		switch {
		case strings.HasPrefix(u, "A subagent task"):
			return reply{text: "announced"}
		case strings.Contains(system(req), "sub-agent"):
			return reply{text: "child done"}
		}
		return reply{text: "echo: " + u}
	}}
	url, dir := flowGateway(t, m, nil)
	t.Setenv("HOME", dir)
	t.Setenv("OPENCLAW_STATE_DIR", dir+"/cli-state")
	t.Setenv("OPENCLAW_GATEWAY_URL", url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", token)
	run := func(args ...string) gjson.Result {
		t.Helper()
		var out, errb bytes.Buffer
		if code := commands.Main(append([]string{"openclaw"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("openclaw %s: exit %d: %s %s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return gjson.Parse(out.String())
	}
	if r := run("agents", "list"); r.Get("requester").String() != "main" || r.Get("agents.0.id").String() != "main" {
		t.Fatalf("agents list %s", r.Raw)
	}
	run("agent", "--message", "hello", "--session-key", "agent:main:ops")
	if r := run("sessions", "send", "--session-key", "agent:main:ops", "--message", "status?"); r.Get("status").String() != "ok" ||
		r.Get("reply").String() != "echo: status?" {
		t.Fatalf("sessions send %s", r.Raw)
	}
	if r := run("sessions", "status", "--session-key", "agent:main:ops", "--model", "loc/m2"); r.Get("details.modelOverride").String() != "loc/m2" {
		t.Fatalf("sessions status %s", r.Raw)
	}
	var out, errb bytes.Buffer
	if code := commands.Main([]string{"openclaw", "sessions", "spawn", "--task", "x", "--params", `{"sandbox":"require"}`}, strings.NewReader(""), &out, &errb); code != 2 ||
		!strings.Contains(out.String(), "unsandboxed") {
		t.Fatalf("spawn with sandbox require: exit %d %s", code, out.String())
	}
	r := run("sessions", "spawn", "--task", "check the brief", "--label", "checker")
	if r.Get("status").String() != "accepted" || !strings.HasPrefix(r.Get("childSessionKey").String(), "agent:main:subagent:") {
		t.Fatalf("sessions spawn %s", r.Raw)
	}
	waitFor(t, "the announce", func() (bool, string) {
		var out, errb bytes.Buffer
		if code := commands.Main([]string{"openclaw", "sessions", "history", "--session-key", "agent:main:main"}, strings.NewReader(""), &out, &errb); code != 0 {
			return false, out.String() // the main session appears with the announce
		}
		return gjson.Get(out.String(), "messages.@reverse.0.content.0.text").String() == "announced", out.String()
	})
}
