package nodes_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/nodehost"
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

// The same with the real node host: another connection takes its
// identity, the gateway closes the host's socket, and the host reconnects
// on its own (replacing the intruder), reachable as before.
func TestNodeHostReconnectsWhenReplaced(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	state := t.TempDir()
	var logs syncLog
	h, err := nodehost.New(nodehost.Options{Host: "127.0.0.1", Port: g.Port, Token: token, StateDir: state, Version: "test",
		DisplayName: "real-host", Workdir: t.TempDir(), Log: &logs})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("node host did not stop")
		}
	})
	waitNode(t, op, h.DeviceID())
	var rid string
	for deadline := time.Now().Add(30 * time.Second); rid == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rid = pendingFor(t, op, h.DeviceID())
	}
	if rid == "" {
		t.Fatalf("the node host's surface never became pending\n%s", logs.String())
	}
	call(t, op, "node.pair.approve", map[string]any{"requestId": rid})

	id, err := nodehost.LoadIdentity(state)
	if err != nil {
		t.Fatal(err)
	}
	intruder := newFakeNode(t, "intruder", []string{"system.which"})
	intruder.id = id
	intruder.connect(g, "intruder", []string{"system.which"})
	// The host's socket is closed; it reconnects and in turn replaces
	// the intruder, whose socket closes.
	select {
	case <-intruder.conn.Done():
	case <-time.After(60 * time.Second):
		t.Fatalf("the node host never came back (its replaced socket was left open)\n%s", logs.String())
	}
	e := waitNode(t, op, h.DeviceID())
	if e.Get("displayName").String() != "real-host" {
		t.Errorf("after the reconnect: %s", e.Raw)
	}
	r := call(t, op, "node.invoke", map[string]any{"nodeId": h.DeviceID(), "command": "system.which", "idempotencyKey": "h1",
		"params": map[string]any{"bins": []string{"sh"}}})
	if r.Get("payload.bins.sh").String() == "" {
		t.Errorf("system.which on the reconnected host: %s", r.Raw)
	}
	if !strings.Contains(logs.String(), "replaced by a newer connection") {
		t.Errorf("the node host's log does not say why it reconnected:\n%s", logs.String())
	}
}

type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
