package agentrun_test

import (
	"bytes"
	"strings"
	"testing"

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
	if l.Get(`details.sessions.#(key=="agent:main:cli").kind`).String() != "other" {
		t.Fatalf("sessions list: %s", l.Raw)
	}
	h := run("sessions", "history", "--session-key", "agent:main:cli", "--include-tools")
	if h.Get("details.messages.#").Int() != 4 || h.Get("details.messages.2.toolName").String() != "read" {
		t.Fatalf("sessions history: %s", h.Raw)
	}
	h = run("sessions", "history", "--session-key", "agent:main:cli")
	if h.Get("details.messages.#").Int() != 3 {
		t.Fatalf("sessions history without tools: %s", h.Raw)
	}
}
