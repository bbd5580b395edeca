package gateway

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// tools.effective lists only registered tools: the policy's groups name
// core tools this build does not have (sessions_*, …), which are left out
// of allowed and removed and named once in the note (issue 18 item 8).
func TestToolsEffectiveListsOnlyRegisteredTools(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	f := c.call("tools.effective", map[string]any{"agentId": "main"})
	if !f.OK {
		t.Fatalf("tools.effective: %+v", f.Error)
	}
	have := map[string]bool{}
	for _, n := range tools.ToolNames() {
		have[n] = true
	}
	r := gjson.ParseBytes(f.Payload)
	if len(r.Get("allowed").Array()) == 0 {
		t.Fatalf("nothing allowed: %s", f.Payload)
	}
	for _, a := range r.Get("allowed").Array() {
		if !have[a.String()] {
			t.Errorf("allowed lists %q, which is not registered", a.String())
		}
	}
	for _, rm := range r.Get("removed.#.tool").Array() {
		if !have[rm.String()] {
			t.Errorf("removed lists %q, which is not registered", rm.String())
		}
	}
	// A core tool the groups name that this build lacks (the families
	// grow, so it is looked up rather than named).
	missing := ""
	for _, n := range policy.CoreTools() {
		if !have[n] && len(policy.GroupsOf(n)) > 0 {
			missing = n
			break
		}
	}
	if missing == "" {
		t.Fatal("every core tool of the groups is registered: this test needs one that is not")
	}
	// Named once: in the note, not as a list entry.
	if note := r.Get("note").String(); !strings.Contains(note, missing) || strings.Contains(string(f.Payload), `"`+missing+`"`) {
		t.Errorf("%s: note = %q; answer %s", missing, note, f.Payload)
	}
}
