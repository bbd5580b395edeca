package gateway

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

func newTestServerNoListen(t *testing.T, mut ...func(*Options)) *Server {
	dir := t.TempDir()
	o := Options{Token: testToken, ConfigPollInterval: -1, Getenv: func(string) string { return "" },
		Paths: config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}}
	for _, m := range mut {
		m(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Output is bounded by bytes: frames fit until the unsent bytes would pass
// the budget; then droppable broadcasts are skipped (the seq is still
// used) and must-deliver events close the socket 1008 "slow consumer"
// without waiting behind the queue.
func TestSlowConsumerBudget(t *testing.T) {
	s := newTestServerNoListen(t, func(o *Options) { o.MaxBufferedBytes = 1000 })
	c := newConn(s, nil, "127.0.0.1", true)
	for i := 0; i < 9; i++ {
		if err := c.send(make([]byte, 100), sendClose); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	if err := c.send(make([]byte, 200), sendDrop); err != nil || c.closing.Load() {
		t.Fatalf("droppable send over budget: %v closing=%v", err, c.closing.Load())
	}
	if n := c.out.size(); n != 900 {
		t.Fatalf("queued %d bytes, want 900 (the dropped frame is not queued)", n)
	}
	if err := c.send(make([]byte, 200), sendClose); err == nil {
		t.Fatal("send over budget succeeded")
	}
	if !c.closing.Load() || c.closeCode != protocol.ClosePolicyViolation || c.closeMsg != protocol.ReasonSlowConsumer {
		t.Errorf("close = %v %d %q", c.closing.Load(), c.closeCode, c.closeMsg)
	}
	select {
	case <-c.closeNow:
	default:
		t.Error("closeNow not signalled: the close would wait behind the full queue")
	}
	if err := c.send([]byte(`{}`), sendClose); err != errConnClosed {
		t.Errorf("send after close: %v", err)
	}
}

// A frame bigger than the whole budget still goes out on an idle socket.
func TestBigFrameFitsEmptyQueue(t *testing.T) {
	s := newTestServerNoListen(t, func(o *Options) { o.MaxBufferedBytes = 10 })
	c := newConn(s, nil, "127.0.0.1", true)
	if err := c.send(make([]byte, 100), sendClose); err != nil || c.closing.Load() {
		t.Fatalf("big frame on an empty queue: %v", err)
	}
}

// Issue 6 item 8: a client that reads as fast as it can while pipelining
// thousands of requests is never closed — neither with the advertised
// 50 MiB budget (the old 512-frame queue closed it) nor with a small one
// (back-pressure throttles its requests instead).
func TestFastReaderNeverClosed(t *testing.T) {
	for _, limit := range []int64{0, 16 << 10} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			ts := startServer(t, Options{MaxBufferedBytes: limit})
			c := dialConnected(t, ts.url)
			const n = 20000
			chans := make([]chan frame, 0, n)
			for i := 0; i < n; i++ {
				_, ch := c.send("health", nil)
				chans = append(chans, ch)
			}
			for i, ch := range chans {
				select {
				case f := <-ch:
					if !f.OK {
						t.Fatalf("request %d: %+v", i, f.Error)
					}
				case <-c.closed:
					t.Fatalf("closed after %d of %d responses: %v", i, n, c.closeErr)
				case <-time.After(30 * time.Second):
					t.Fatalf("response %d missing", i)
				}
			}
		})
	}
}

// A client that stops reading is closed 1008 "slow consumer" once its
// unsent output is over budget and nothing drains; the gateway keeps
// serving everyone else.
func TestStoppedReaderClosed(t *testing.T) {
	ts := startServer(t, Options{MaxBufferedBytes: 32 << 10, SlowConsumerStall: 200 * time.Millisecond})
	ws, _, err := websocket.DefaultDialer.Dial(ts.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, _, err := ws.ReadMessage(); err != nil { // challenge
		t.Fatal(err)
	}
	if err := ws.WriteJSON(map[string]any{"type": "req", "id": "c", "method": "connect", "params": connectParams()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.ReadMessage(); err != nil { // hello-ok
		t.Fatal(err)
	}
	// From here on the client only writes.
	go func() {
		for i := 0; ; i++ {
			_ = ws.SetWriteDeadline(time.Now().Add(20 * time.Second))
			if err := ws.WriteJSON(map[string]any{"type": "req", "id": fmt.Sprint(i), "method": "status"}); err != nil {
				return
			}
		}
	}()
	waitFor(t, 30*time.Second, func() bool {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		return len(ts.s.conns) == 0
	})
	// The gateway closed it as a slow consumer (not by the 10 s write
	// timeout of a dead peer). The close frame itself can only reach a
	// client that reads, so it is checked in the gateway's log.
	if log, _ := os.ReadFile(logPath(ts.dir)); !strings.Contains(string(log), "slow consumer") {
		t.Errorf("not closed as a slow consumer; log:\n%s", log)
	}
	other := dialConnected(t, ts.url)
	if f := other.call("health", nil); !f.OK {
		t.Errorf("gateway not serving others: %+v", f.Error)
	}
}

// hello-ok advertises the budget in force.
func TestHelloAdvertisesBudget(t *testing.T) {
	ts := startServer(t, Options{MaxBufferedBytes: 12345})
	c := dialConnected(t, ts.url)
	var h struct{ Policy protocol.Policy }
	if err := json.Unmarshal(c.hello, &h); err != nil || h.Policy.MaxBufferedBytes != 12345 {
		t.Errorf("policy %+v %v", h.Policy, err)
	}
}

// RFC 6455: a text frame that is not UTF-8 fails the connection with 1007,
// before and after connect; it is never answered with U+FFFD in an id.
func TestInvalidUTF8Closes1007(t *testing.T) {
	ts := startServer(t, Options{})
	bad := []byte("{\"type\":\"req\",\"id\":\"\xff\xfe\",\"method\":\"health\"}")
	t.Run("after connect", func(t *testing.T) {
		c := dialConnected(t, ts.url)
		c.mu.Lock()
		_ = c.ws.WriteMessage(websocket.TextMessage, bad)
		c.mu.Unlock()
		if code, _ := c.waitClose(t); code != 1007 {
			t.Errorf("close %d, want 1007", code)
		}
	})
	t.Run("first frame", func(t *testing.T) {
		c := dial(t, ts.url)
		c.mu.Lock()
		_ = c.ws.WriteMessage(websocket.TextMessage, bad)
		c.mu.Unlock()
		if code, _ := c.waitClose(t); code != 1007 {
			t.Errorf("close %d, want 1007", code)
		}
	})
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
