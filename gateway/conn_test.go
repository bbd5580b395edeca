package gateway

import (
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

func newTestServerNoListen(t *testing.T) *Server {
	dir := t.TempDir()
	s, err := New(Options{Token: testToken, ConfigPollInterval: -1, Getenv: func(string) string { return "" },
		Paths: config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A full queue drops droppable broadcasts (the seq is still used) and
// closes the socket 1008 "slow consumer" for anything else.
func TestSlowConsumer(t *testing.T) {
	s := newTestServerNoListen(t)
	c := newConn(s, nil, "127.0.0.1", true)
	for i := 0; i < outQueueLen; i++ {
		if err := c.send([]byte(`{}`), false); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	if err := c.send([]byte(`{"tick":1}`), true); err != nil || c.closing.Load() {
		t.Fatalf("droppable send on a full queue: %v closing=%v", err, c.closing.Load())
	}
	if err := c.send([]byte(`{"res":1}`), false); err == nil {
		t.Fatal("send on a full queue succeeded")
	}
	if !c.closing.Load() || c.closeCode != protocol.ClosePolicyViolation || c.closeMsg != protocol.ReasonSlowConsumer {
		t.Errorf("close = %v %d %q", c.closing.Load(), c.closeCode, c.closeMsg)
	}
	select {
	case <-c.closeNow:
	default:
		t.Error("closeNow not signalled: the close would wait behind the full queue")
	}
	if err := c.send([]byte(`{}`), false); err != errConnClosed {
		t.Errorf("send after close: %v", err)
	}
}

func TestBufferedBytesBudget(t *testing.T) {
	s := newTestServerNoListen(t)
	c := newConn(s, nil, "127.0.0.1", true)
	c.queued.Store(protocol.MaxBufferedBytes - 10)
	if err := c.send(make([]byte, 100), true); err != nil || c.closing.Load() {
		t.Fatalf("dropIfSlow over budget: %v", err)
	}
	if err := c.send(make([]byte, 100), false); err == nil || c.closeMsg != protocol.ReasonSlowConsumer {
		t.Errorf("over budget: %v %q", err, c.closeMsg)
	}
}

// Frames sent while connect is processed queue up to 15; one more closes
// the socket (§3.1 step 3).
func TestPendingHandshakeFrames(t *testing.T) {
	s := newTestServerNoListen(t)
	c := newConn(s, nil, "127.0.0.1", true)
	c.state = stateConnecting
	for i := 0; i < protocol.MaxPendingHandshakeFrame; i++ {
		c.handleFrame(1, []byte(`{"type":"req","id":"x","method":"health"}`))
	}
	if c.closing.Load() || len(c.pending) != protocol.MaxPendingHandshakeFrame {
		t.Fatalf("closing=%v pending=%d", c.closing.Load(), len(c.pending))
	}
	c.handleFrame(1, []byte(`{}`))
	if !c.closing.Load() || c.closeCode != protocol.ClosePolicyViolation || c.closeMsg != protocol.ReasonTooManyHandshake {
		t.Errorf("close = %d %q", c.closeCode, c.closeMsg)
	}
}
