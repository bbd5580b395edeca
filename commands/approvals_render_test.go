package commands

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// `approvals pending` shows every env override exactly, and only the
// decisions the request offers (issue 17 item 3).
func TestRenderPendingShowsEnv(t *testing.T) {
	var b bytes.Buffer
	res := gjson.Parse(`[{"id":"abc","expiresAtMs":0,"request":{"command":"whoami","cwd":"/w",
		"env":{"BASH_FUNC_whoami%%":"() { id; }"},"allowedDecisions":["allow-once","deny"]}}]`)
	if err := renderPending(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, `env BASH_FUNC_whoami%%="() { id; }"`) || !strings.Contains(out, "resolve abc allow-once|deny\n") {
		t.Fatalf("pending listing:\n%s", out)
	}
}

// approvals get on a terminal reads as text, not the file's JSON (issue 18
// item 14).
func TestRenderApprovalsGet(t *testing.T) {
	var b bytes.Buffer
	res := gjson.Parse(`{"effective":{"agent":"main","allowlist":[{"id":"d1","pattern":"git"},{"id":"d2","pattern":"/usr/bin/ls"}],
		"ask":"on-miss","security":""},"file":{"version":1},"path":"/h/exec-approvals.json"}`)
	if err := renderApprovalsGet(&b, res); err != nil {
		t.Fatal(err)
	}
	want := "Approvals file: /h/exec-approvals.json\nAgent main: security (not set: tools.exec default), ask on-miss\nAllowlist (2):\n  git\n  /usr/bin/ls\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
