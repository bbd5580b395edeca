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
