package gateway

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
)

// Loop detection end to end through tools.invoke (issue 9): with
// tools.loopDetection on, a session repeating one call gets the WARNING in
// the result it reads, then a CRITICAL error instead of running; another
// session and a caller naming no agent or session are not affected; an
// agent's override turns it off for that agent.
func TestToolsInvokeLoopDetection(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{tools: {loopDetection: {enabled: true, warningThreshold: 3, criticalThreshold: 5}},
		agents: {list: [{id: "main"}, {id: "calm", tools: {loopDetection: {enabled: false}}}]}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}})
	c := dialConnected(t, ts.url)
	invoke := func(extra map[string]any) gjson.Result {
		t.Helper()
		p := map[string]any{"name": "test_echo", "args": map[string]any{"text": "again"}}
		for k, v := range extra {
			p[k] = v
		}
		f := c.call("tools.invoke", p)
		if !f.OK {
			t.Fatalf("tools.invoke: %+v", f.Error)
		}
		return gjson.ParseBytes(f.Payload)
	}
	sess := map[string]any{"sessionKey": "agent:main:loop"}
	for i := 1; i <= 3; i++ {
		if r := invoke(sess); !r.Get("ok").Bool() || r.Get("output.warnings").Exists() {
			t.Fatalf("call %d: %s", i, r.Raw)
		}
	}
	r := invoke(sess) // 3 identical calls before it
	want := "WARNING: You have called test_echo 3 times with identical arguments."
	if !r.Get("ok").Bool() || !strings.HasPrefix(r.Get("output.warnings.0").String(), want) ||
		!strings.HasPrefix(r.Get("output.content.1.text").String(), want) || r.Get("output.content.0.text").String() != "again" {
		t.Fatalf("4th call: %s", r.Raw)
	}
	invoke(sess)
	r = invoke(sess) // 5 identical outcomes before it
	if r.Get("ok").Bool() || r.Get("error.code").String() != "DENIED" ||
		r.Get("error.message").String() != "CRITICAL: Called test_echo with identical arguments and identical outcomes 5 times. Session execution blocked to prevent runaway loops." ||
		r.Get("error.details.deniedReason").String() != "tool-loop" {
		t.Fatalf("6th call: %s", r.Raw)
	}
	// Other sessions, unnamed callers and the calm agent run freely.
	for extra, n := range map[*map[string]any]int{{"sessionKey": "agent:main:other"}: 3, {}: 7, {"agentId": "calm"}: 7} {
		for range n {
			if r := invoke(*extra); !r.Get("ok").Bool() || r.Get("output.warnings").Exists() {
				t.Fatalf("%v: %s", *extra, r.Raw)
			}
		}
	}
}
