package agentrun_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/commands"
)

// The README's sessions examples on a fresh state, as a user runs them: a
// session other than main exists once a turn ran on it (`openclaw agent
// --session-key`; before that, sessions send says so), then `sessions
// send` and `sessions status --model` work on it; a model its provider does not list is refused with exit 2 and
// one line naming the known ones.
func TestSessionsExamplesOnAFreshState(t *testing.T) {
	m := &scripted{script: func(req gjson.Result) reply { return reply{text: "echo: " + lastUser(req)} }}
	url, dir := flowGateway(t, m, nil)
	t.Setenv("HOME", dir)
	t.Setenv("OPENCLAW_STATE_DIR", dir+"/cli-state")
	t.Setenv("OPENCLAW_GATEWAY_URL", url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", token)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := commands.Main(append([]string{"openclaw"}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, out, errs := run("sessions", "send", "--session-key", "agent:main:ops", "--message", "status?"); code == 0 ||
		!strings.Contains(errs, "a turn creates one: openclaw agent --session-key agent:main:ops --message") {
		t.Fatalf("a send to a session that does not exist yet: exit %d %s %s", code, out, errs)
	}
	if code, out, errs := run("agent", "--session-key", "agent:main:ops", "--message", "you watch the deploys"); code != 0 {
		t.Fatalf("agent: exit %d %s %s", code, out, errs)
	}
	if code, out, errs := run("sessions", "send", "--session-key", "agent:main:ops", "--message", "status?"); code != 0 || gjson.Get(out, "reply").String() != "echo: status?" {
		t.Fatalf("sessions send: exit %d %s %s", code, out, errs)
	}
	if code, out, errs := run("sessions", "status", "--session-key", "agent:main:ops", "--model", "loc/m2"); code != 0 || gjson.Get(out, "details.modelOverride").String() != "loc/m2" {
		t.Fatalf("sessions status --model loc/m2: exit %d %s %s", code, out, errs)
	}
	code, out, errs := run("sessions", "status", "--session-key", "agent:main:ops", "--model", "loc/m3")
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "known: loc/m1, loc/m2") {
		t.Fatalf("sessions status --model loc/m3: exit %d, stderr %q, stdout %s", code, errs, out)
	}
	t.Logf("stderr: %s", errs)
}
