package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// A tools.invoke frame is parsed once per hop: the frame (params kept as
// bytes), then the params once, at the door, into the value that the
// outer schema, the inner tool's schema and both typed handlers use. The
// counting hook sees every parse of params bytes that the door or a typed
// handler makes; before params were decoded once, this hop counted four
// (outer schema, tools.invoke's typed decode, inner schema, read's decode).
func TestToolsInvokeParsesParamsOnce(t *testing.T) {
	var mu sync.Mutex
	var parsed []string
	defer tools.Default.OnDecode(func(id string) {
		mu.Lock()
		parsed = append(parsed, id)
		mu.Unlock()
	})()
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := parsed
		parsed = nil
		return out
	}
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	take() // the handshake
	file := filepath.Join(t.TempDir(), "n.txt")
	if err := os.WriteFile(file, []byte("hello once\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	f := c.call("tools.invoke", map[string]any{"name": "read", "args": map[string]any{"path": file}})
	if !f.OK || !strings.Contains(string(f.Payload), "hello once") {
		t.Fatalf("tools.invoke read: %+v %s", f.Error, f.Payload)
	}
	if got := take(); len(got) != 1 || got[0] != "tools.invoke" {
		t.Errorf("tools.invoke read parsed its params %d times (%v), want once, at the door", len(got), got)
	}

	// A multi-action tool: "action" leaves the decoded args, nothing is re-parsed.
	f = c.call("tools.invoke", map[string]any{"name": "process", "args": map[string]any{"action": "list"}})
	if !f.OK || !strings.Contains(string(f.Payload), `"ok":true`) {
		t.Fatalf("tools.invoke process list: %+v %s", f.Error, f.Payload)
	}
	if got := take(); len(got) != 1 || got[0] != "tools.invoke" {
		t.Errorf("tools.invoke process list parsed its params %d times (%v), want once", len(got), got)
	}

	// Invalid inner args are still caught, by the inner schema, on the same value.
	f = c.call("tools.invoke", map[string]any{"name": "read", "args": map[string]any{"path": 7}})
	if !f.OK || !strings.Contains(string(f.Payload), `"ok":false`) || !strings.Contains(string(f.Payload), "/path") {
		t.Fatalf("tools.invoke read with a number path: %+v %s", f.Error, f.Payload)
	}
	if got := take(); len(got) != 1 {
		t.Errorf("invalid inner args parsed %d times (%v), want once", len(got), got)
	}
}
