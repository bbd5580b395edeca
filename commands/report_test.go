package commands

import (
	"bytes"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
)

// An error is one line on stderr however many lines its message has (a
// pending approval has 3, a provider's HTML error page dozens); the JSON
// envelope keeps the whole message (issue 18 item 16).
func TestReportIsOneStderrLine(t *testing.T) {
	html := "<html>\n<head><title>502</title></head>\n" + strings.Repeat("<p>upstream failed</p>\n", 60) + "</html>"
	for _, msg := range []string{
		"Approval required (id 1234): `rm x` needs approval.\nApprove it with: openclaw approvals resolve 1234 allow-once\nOnce allowed it runs in the background.",
		"search API error 502: " + html,
	} {
		var stdout, stderr bytes.Buffer
		r := newRuntime(nil, &stdout, &stderr)
		code := r.report(tools.Errorf(tools.CodePendingApproval, "%s", msg), true)
		if code != 8 {
			t.Errorf("exit %d, want 8", code)
		}
		line := stderr.String()
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Errorf("stderr is not one line: %q", line)
		}
		if len(line) > 500 {
			t.Errorf("stderr line is %d bytes", len(line))
		}
		if !strings.HasPrefix(line, "openclaw: "+strings.Fields(msg)[0]) {
			t.Errorf("stderr %q does not start with the message", line)
		}
		if got := gjson.Get(stdout.String(), "error.message").String(); got != msg {
			t.Errorf("JSON message %q, want the whole %q", got, msg)
		}
	}
}
