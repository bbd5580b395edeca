package nodes_test

import (
	"strings"
	"testing"
	"time"
)

// A second connection with a node's identity replaces the first, and the
// gateway closes the first (its node host reconnects): before, the first
// stayed open but unregistered, and when the second closed the node was
// forgotten while its first socket lived on, every request of it failing
// "unknown nodeId" and its node host never reconnecting.
func TestReplacedNodeConnectionIsClosed(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "twice", []string{"system.which"})
	first := n.conn

	n.connect(g, "twice", []string{"system.which"}) // the same identity again
	second := n.conn
	select {
	case <-first.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the replaced node connection is still open: an orphan the gateway no longer knows")
	}
	if err := first.Err(); err == nil || !strings.Contains(err.Error(), "replaced by a newer connection") {
		t.Errorf("the replaced connection ended with %v, want the reason it was closed", err)
	}
	if r := call(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "r1",
		"params": map[string]any{"bins": []string{"sh"}}}); r.Get("payload.bins.sh").String() != "/usr/bin/sh" {
		t.Fatalf("invoke on the new connection: %s", r.Raw)
	}
	// The new one goes; the node host reconnects and is reachable again.
	_ = second.Close()
	n.connect(g, "twice", []string{"system.which"})
	waitNode(t, op, n.id.DeviceID)
	if r := call(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "r2",
		"params": map[string]any{"bins": []string{"sh"}}}); r.Get("payload.bins.sh").String() != "/usr/bin/sh" {
		t.Fatalf("invoke after the reconnect: %s", r.Raw)
	}
}
