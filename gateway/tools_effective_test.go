package gateway

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// tools.effective lists only registered tools (issue 18 item 8): the
// policy's groups may name core tools a build lacks; this build has them
// all, so allowed and removed are registered names and the note is empty.
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
	// Every core tool is built here, so the note is empty (the not-built
	// case is tools' TestEffectiveRegisteredLeavesOutToolsNotBuilt).
	for _, n := range policy.CoreTools() {
		if !have[n] {
			t.Errorf("core tool %s is not registered", n)
		}
	}
	if note := r.Get("note").String(); note != "" {
		t.Errorf("note = %q with every core tool built", note)
	}
}
