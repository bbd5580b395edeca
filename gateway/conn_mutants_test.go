package gateway

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/protocol"
)

// These pin conn.go lines that a one-line mutation (`make mutate`) could
// change with the other tests still passing (issue 17, item 20).

// waitOutput returns at once while the unsent bytes are at most the bound
// (equal included): reading pauses only when output is really over it.
func TestWaitOutputAtBoundReturnsAtOnce(t *testing.T) {
	s := newTestServerNoListen(t, func(o *Options) { o.MaxBufferedBytes = 1000; o.SlowConsumerStall = 50 * time.Millisecond })
	c := newConn(s, nil, "127.0.0.1", true)
	for i := 0; i < 3; i++ {
		if err := c.send(make([]byte, 100), sendClose); err != nil {
			t.Fatal(err)
		}
	}
	if !c.waitOutput(300) || c.closing.Load() {
		t.Fatalf("300 unsent bytes against a bound of 300: closing=%v %q", c.closing.Load(), c.closeMsg)
	}
	if !c.waitOutput(1000) || c.closing.Load() {
		t.Fatal("under the bound: not returned at once")
	}
}

// Over the bound with no write completing for SlowConsumerStall, waitOutput
// gives up and closes the socket as a slow consumer.
func TestWaitOutputOverBoundClosesSlow(t *testing.T) {
	s := newTestServerNoListen(t, func(o *Options) { o.MaxBufferedBytes = 1000; o.SlowConsumerStall = 50 * time.Millisecond })
	c := newConn(s, nil, "127.0.0.1", true)
	for i := 0; i < 3; i++ {
		if err := c.send(make([]byte, 100), sendClose); err != nil {
			t.Fatal(err)
		}
	}
	if c.waitOutput(100) {
		t.Fatal("300 unsent bytes against a bound of 100, nothing written: returned true")
	}
	if !c.closing.Load() || c.closeCode != protocol.ClosePolicyViolation || c.closeMsg != protocol.ReasonSlowConsumer {
		t.Errorf("close = %v %d %q, want 1008 slow consumer", c.closing.Load(), c.closeCode, c.closeMsg)
	}
}

// A write that completes while waitOutput waits lets it return true.
func TestWaitOutputWakesOnProgress(t *testing.T) {
	s := newTestServerNoListen(t, func(o *Options) { o.MaxBufferedBytes = 1000; o.SlowConsumerStall = time.Minute })
	c := newConn(s, nil, "127.0.0.1", true)
	for i := 0; i < 3; i++ {
		if err := c.send(make([]byte, 100), sendClose); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan bool, 1)
	go func() { done <- c.waitOutput(250) }()
	c.out.peek()
	c.out.written(100)
	select {
	case ok := <-done:
		if !ok || c.closing.Load() {
			t.Fatalf("after a write brought output under the bound: %v closing=%v", ok, c.closing.Load())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("waitOutput did not wake on the completed write")
	}
}

// The pre-auth cap is inclusive: a connect frame of exactly
// MaxPreAuthPayload bytes is read and answered; one byte more closes 1009.
func TestPreauthPayloadExactLimit(t *testing.T) {
	ts := startServer(t, Options{})
	frameOf := func(size int) []byte {
		req := map[string]any{"type": "req", "id": "c", "method": "connect", "params": connectParams()}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		// JSON allows trailing white space: pad the frame to size.
		return append(b, strings.Repeat(" ", size-len(b))...)
	}
	ws, _, err := websocket.DefaultDialer.Dial(ts.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, _, err := ws.ReadMessage(); err != nil { // challenge
		t.Fatal(err)
	}
	if err := ws.WriteMessage(websocket.TextMessage, frameOf(protocol.MaxPreAuthPayload)); err != nil {
		t.Fatal(err)
	}
	_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, msg, err := ws.ReadMessage()
	if err != nil {
		t.Fatalf("frame of exactly %d bytes: %v", protocol.MaxPreAuthPayload, err)
	}
	var res protocol.Response
	if err := json.Unmarshal(msg, &res); err != nil || !res.OK {
		t.Fatalf("connect at the limit: %s", msg)
	}

	c := dial(t, ts.url)
	c.mu.Lock()
	_ = c.ws.WriteMessage(websocket.TextMessage, frameOf(protocol.MaxPreAuthPayload+1))
	c.mu.Unlock()
	if code, reason := c.waitClose(t); code != protocol.CloseTooLarge || reason != protocol.ReasonPreauthTooLarge {
		t.Errorf("one byte over: close %d %q", code, reason)
	}
}

// Back-pressure: while unsent output is over half the budget the read loop
// reads no further frame; once the writer brings it down, it goes on.
func TestReadLoopPausesOverHalfBudget(t *testing.T) {
	s := newTestServerNoListen(t, func(o *Options) { o.MaxBufferedBytes = 1000; o.SlowConsumerStall = time.Minute })
	conns := make(chan *conn, 1)
	up := websocket.Upgrader{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		c := newConn(s, ws, "127.0.0.1", true)
		c.authed.Store(true)
		c.state = stateReady
		c.out.push(make([]byte, 600), 1000) // no writer runs: it stays unsent
		conns <- c
		c.readLoop()
		_ = ws.Close()
	}))
	defer hs.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	c := <-conns
	// A binary frame is answered with an error response at once, with no
	// session needed: its response in the queue shows the frame was read.
	if err := ws.WriteMessage(websocket.BinaryMessage, []byte("x")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := c.out.size(); n != 600 {
		t.Fatalf("600 of a 1000-byte budget unsent, yet a frame was read (%d bytes unsent)", n)
	}
	c.out.peek()
	c.out.written(600)
	waitFor(t, 30*time.Second, func() bool { return c.out.size() > 0 })
}

// The stall clock starts when output is queued on an empty queue (an idle
// hour before does not count against the client) and is not moved by
// more output queued behind it; a frame that fills the budget exactly fits.
func TestOutQueueStallClockAndExactFit(t *testing.T) {
	q := newOutQueue()
	q.last = time.Now().Add(-time.Hour)
	before := time.Now()
	if !q.push(make([]byte, 600), 1000) {
		t.Fatal("a frame on an empty queue was refused")
	}
	_, _, last := q.state()
	if last.Before(before) {
		t.Errorf("the stall clock kept the idle hour: last %v, pushed after %v", last, before)
	}
	if !q.push(make([]byte, 400), 1000) {
		t.Error("a frame that fills the budget exactly was refused")
	}
	if _, _, again := q.state(); !again.Equal(last) {
		t.Errorf("queueing behind unsent output moved the stall clock from %v to %v", last, again)
	}
	if q.push(make([]byte, 1), 1000) {
		t.Error("a frame past the budget was queued")
	}
}

// Options: a zero SlowConsumerStall gets the default; a set one is kept.
func TestSlowConsumerStallDefault(t *testing.T) {
	if o := (Options{Getenv: func(string) string { return "" }}).withDefaults(); o.SlowConsumerStall != writeWait {
		t.Errorf("zero stall became %v, want %v", o.SlowConsumerStall, writeWait)
	}
	if o := (Options{SlowConsumerStall: 3 * time.Second, Getenv: func(string) string { return "" }}).withDefaults(); o.SlowConsumerStall != 3*time.Second {
		t.Errorf("a 3s stall became %v", o.SlowConsumerStall)
	}
}
