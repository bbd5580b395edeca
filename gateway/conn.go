package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/google/uuid"
	"io"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/protocol"
)

// Per-connection timings and queue sizes.
const (
	pingInterval = 25 * time.Second // §1.2 server ping
	writeWait    = 10 * time.Second // one frame's write deadline
	closeGrace   = 2 * time.Second  // wait for the peer's close echo

	// closeInvalidPayload is RFC 6455's 1007: a text frame that is not
	// valid UTF-8.
	closeInvalidPayload = 1007
)

// connection states.
const (
	stateAwaitConnect int32 = iota // challenge sent, waiting for connect
	stateConnecting                // connect being processed; frames queue
	stateReady                     // hello-ok sent; requests dispatched
)

var errConnClosed = errors.New("connection closed")

// pendingFrame is a frame that arrived while connect was in progress.
type pendingFrame struct {
	mt   int
	data []byte
}

// conn is one WebSocket. The read loop runs on the HTTP handler goroutine,
// a single writer goroutine owns every write, and each request runs on its
// own goroutine (bounded by sem).
type conn struct {
	s      *Server
	ws     *websocket.Conn
	id     string
	ip     string
	local  bool
	nonce  string
	chalTS int64
	host   string // the Host the client connected to (hello-ok canvasHostUrl)

	ctx    context.Context
	cancel context.CancelFunc

	out        outQueue
	closing    atomic.Bool
	closeOnce  sync.Once
	closeNow   chan struct{}
	closeCode  int
	closeMsg   string
	readDone   chan struct{}
	writerDone chan struct{}
	lastSeen   atomic.Int64
	seq        atomic.Uint64

	mu      sync.Mutex
	state   int32
	authed  atomic.Bool
	pending []pendingFrame
	sess    *session
	hsTimer *time.Timer

	sem        chan struct{}
	reqWG      sync.WaitGroup
	unauthRole atomic.Int32
	afterReply sync.Map      // request id → func() run once its response is queued (device_disconnect.go)
	gone       chan struct{} // closed once the server has forgotten the socket (tools.Conns.Closed)
}

func newConn(s *Server, ws *websocket.Conn, ip string, local bool) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{
		s: s, ws: ws, id: uuid.NewString(), ip: ip, local: local,
		ctx: ctx, cancel: cancel,
		out:        newOutQueue(),
		closeNow:   make(chan struct{}),
		readDone:   make(chan struct{}),
		writerDone: make(chan struct{}),
		sem:        make(chan struct{}, s.opts.MaxInflightPerConn),
		gone:       make(chan struct{}),
	}
	c.lastSeen.Store(nowMs())
	return c
}

// run owns the socket until it is gone.
func (c *conn) run() {
	c.ws.SetPongHandler(func(string) error { c.lastSeen.Store(nowMs()); return nil })
	go c.writeLoop()
	c.nonce = uuid.NewString()
	c.chalTS = nowMs()
	c.sendEvent(protocol.EventConnectChallenge, protocol.Challenge{Nonce: c.nonce, TS: c.chalTS})
	c.hsTimer = time.AfterFunc(c.s.opts.HandshakeTimeout, func() {
		if !c.authed.Load() {
			c.s.log.Debugf("conn %s: handshake timeout", c.id)
			c.closeWith(protocol.CloseNormal, protocol.ReasonHandshakeTimeout)
		}
	})
	c.readLoop()
	c.teardown()
}

// readLoop reads frames with the pre-auth or post-auth size cap until the
// socket fails or closes.
func (c *conn) readLoop() {
	defer close(c.readDone)
	for {
		mt, r, err := c.ws.NextReader()
		if err != nil {
			return
		}
		limit := int64(protocol.MaxPreAuthPayload)
		if c.authed.Load() {
			limit = protocol.MaxPayload
		}
		data, err := io.ReadAll(io.LimitReader(r, limit+1))
		if err != nil {
			return
		}
		if int64(len(data)) > limit {
			if c.authed.Load() {
				c.closeWith(protocol.CloseTooLarge, protocol.ReasonPayloadTooLarge)
			} else {
				c.closeWith(protocol.CloseTooLarge, protocol.ReasonPreauthTooLarge)
			}
			c.drainUntilClosed()
			return
		}
		c.lastSeen.Store(nowMs())
		if c.closing.Load() {
			continue // closing: read only to see the peer's close
		}
		if mt == websocket.TextMessage && !utf8.Valid(data) {
			// RFC 6455 §8.1: invalid UTF-8 in a text frame fails the
			// connection with 1007; never decode it into U+FFFD ids.
			c.closeWith(closeInvalidPayload, "invalid UTF-8 in text frame")
			c.drainUntilClosed()
			return
		}
		// Back-pressure: while this connection's unsent output is over half
		// its budget, read no more requests; the client's own sends then
		// wait in TCP until it reads its responses.
		if c.authed.Load() && !c.waitOutput(c.s.opts.MaxBufferedBytes/2) {
			c.drainUntilClosed()
			return
		}
		c.handleFrame(mt, data)
	}
}

// drainUntilClosed keeps reading (and discarding) so the peer's close
// echo is consumed and the kernel does not reset the connection on us.
func (c *conn) drainUntilClosed() {
	for {
		_, r, err := c.ws.NextReader()
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, io.LimitReader(r, protocol.MaxPayload)); err != nil {
			return
		}
	}
}

// handleFrame routes one frame by connection state.
func (c *conn) handleFrame(mt int, data []byte) {
	c.mu.Lock()
	switch c.state {
	case stateAwaitConnect:
		c.mu.Unlock()
		c.handleFirstFrame(mt, data)
	case stateConnecting:
		if len(c.pending) >= protocol.MaxPendingHandshakeFrame {
			c.mu.Unlock()
			c.closeWith(protocol.ClosePolicyViolation, protocol.ReasonTooManyHandshake)
			return
		}
		c.pending = append(c.pending, pendingFrame{mt, data})
		c.mu.Unlock()
	default:
		c.mu.Unlock()
		c.dispatchFrame(mt, data)
	}
}

// writeLoop is the only writer of data frames. It also pings, and on a
// requested close writes the close frame after everything queued before it.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	ping := time.NewTicker(pingInterval)
	defer ping.Stop()
	for {
		data, closeAfter := c.out.peek()
		if data != nil {
			_ = c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			err := c.ws.WriteMessage(websocket.TextMessage, data)
			c.out.written(len(data))
			if err != nil {
				select {
				case <-c.closeNow: // cut short by closeSlow
					c.finishClose(c.closeCode, c.closeMsg)
					return
				default:
				}
				c.closing.Store(true)
				_ = c.ws.Close() // unblocks the read loop
				return
			}
			continue
		}
		if closeAfter {
			c.finishClose(c.closeCode, c.closeMsg)
			return
		}
		select {
		case <-c.out.wake:
		case <-c.closeNow:
			c.finishClose(c.closeCode, c.closeMsg)
			return
		case <-c.readDone:
			return
		case <-ping.C:
			if nowMs()-c.lastSeen.Load() > 2*pingInterval.Milliseconds() {
				c.s.log.Debugf("conn %s: no pong, dropping", c.id)
				c.closing.Store(true)
				_ = c.ws.Close()
				return
			}
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
				c.closing.Store(true)
				_ = c.ws.Close()
				return
			}
		}
	}
}

// finishClose writes the close frame and waits briefly for the peer's echo
// before dropping the TCP connection.
func (c *conn) finishClose(code int, reason string) {
	msg := websocket.FormatCloseMessage(code, protocol.TruncateCloseReason(reason))
	wait := writeWait
	if reason == protocol.ReasonSlowConsumer {
		wait = closeGrace // it is not reading: do not wait long to tell it
		_ = c.ws.NetConn().SetWriteDeadline(time.Time{})
	}
	_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(wait))
	select {
	case <-c.readDone:
	case <-time.After(closeGrace):
	}
	_ = c.ws.Close()
}

// closeWith starts closing with a code and reason, after the frames already
// queued (so an error response precedes its close). Only the first call
// counts.
func (c *conn) closeWith(code int, reason string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeMsg = code, reason
		c.closing.Store(true)
		c.out.closeAfterQueued()
	})
}

// closeSlow closes 1008 "slow consumer" without waiting behind the queue.
func (c *conn) closeSlow() {
	c.closeOnce.Do(func() {
		c.s.log.Warnf("conn %s: slow consumer (%d bytes unsent), closing", c.id, c.out.size())
		c.closeCode, c.closeMsg = protocol.ClosePolicyViolation, protocol.ReasonSlowConsumer
		c.closing.Store(true)
		close(c.closeNow)
		if c.ws != nil {
			// The writer may be blocked on a peer that reads nothing: cut
			// that write short so the socket really goes now.
			_ = c.ws.NetConn().SetWriteDeadline(time.Now())
		}
	})
}

// How send treats a frame that does not fit the connection's output
// budget (Options.MaxBufferedBytes, advertised as policy.maxBufferedBytes).
const (
	sendClose = iota // events that must arrive: close 1008 "slow consumer"
	sendDrop         // ticks, presence, health: skip (the seq still counts)
	sendWait         // responses: wait while the client is reading
)

// send queues one frame. Output is bounded by bytes, not frames: a frame
// always fits an empty queue; otherwise one that would take the unsent
// bytes past the budget is dropped, closes the socket, or — for responses —
// waits for the writer to make room, closing only when the client has
// stopped reading (no write completed for SlowConsumerStall).
func (c *conn) send(data []byte, mode int) error {
	if c.closing.Load() || len(data) == 0 {
		return errConnClosed
	}
	limit := c.s.opts.MaxBufferedBytes
	for {
		if c.out.push(data, limit) {
			return nil
		}
		switch mode {
		case sendDrop:
			return nil
		case sendClose:
			c.closeSlow()
			return errConnClosed
		}
		if !c.waitOutput(limit - int64(len(data))) {
			return errConnClosed
		}
	}
}

// waitOutput waits until at most max bytes are unsent. It gives up (false)
// when the connection closes, and closes it as a slow consumer when the
// writer completes nothing for SlowConsumerStall: that client has stopped
// reading.
func (c *conn) waitOutput(max int64) bool {
	stall := c.s.opts.SlowConsumerStall
	for {
		n, progress, last := c.out.state()
		if n <= max || n == 0 {
			return true
		}
		if c.closing.Load() {
			return false
		}
		wait := stall - time.Since(last)
		if wait <= 0 {
			c.closeSlow()
			return false
		}
		t := time.NewTimer(wait)
		select {
		case <-progress:
		case <-t.C:
		case <-c.closeNow:
		case <-c.ctx.Done():
		}
		t.Stop()
	}
}

// sendEvent sends a targeted event (no seq).
func (c *conn) sendEvent(event string, payload any) {
	b, err := json.Marshal(payload)
	if err != nil {
		c.s.log.Warnf("encode %s event: %v", event, err)
		return
	}
	frame, _ := json.Marshal(protocol.Event{Type: protocol.TypeEvent, Event: event, Payload: b})
	_ = c.send(frame, sendClose)
}

// sendResponse queues a response frame.
func (c *conn) sendResponse(res *protocol.Response) {
	_ = c.send(c.responseFrame(res), sendWait)
}

// tryQueue queues data if it fits the output budget now, never waiting.
func (c *conn) tryQueue(data []byte) bool {
	return !c.closing.Load() && len(data) > 0 && c.out.push(data, c.s.opts.MaxBufferedBytes)
}

// responseFrame encodes a response. A successful payload is already JSON
// (from Action.Invoke), so it is spliced in rather than re-encoded.
func (c *conn) responseFrame(res *protocol.Response) []byte {
	var frame []byte
	if res.OK && res.Error == nil {
		id, _ := json.Marshal(res.ID)
		payload := res.Payload
		if len(payload) == 0 {
			payload = json.RawMessage("null")
		}
		frame = make([]byte, 0, len(payload)+len(id)+40)
		frame = append(frame, `{"type":"res","id":`...)
		frame = append(frame, id...)
		frame = append(frame, `,"ok":true,"payload":`...)
		frame = append(frame, payload...)
		frame = append(frame, '}')
	} else {
		var err error
		if frame, err = json.Marshal(res); err != nil {
			c.s.log.Warnf("encode response %s: %v", res.ID, err)
			frame, _ = json.Marshal(errorResponse(res.ID, protocol.NewError(protocol.ErrUnavailable, "could not encode the response", nil)))
		}
	}
	return frame
}

// teardown runs once the read loop is over: stop the writer, cancel
// in-flight handlers and wait for them, then forget the socket.
func (c *conn) teardown() {
	c.closing.Store(true)
	if c.hsTimer != nil {
		c.hsTimer.Stop()
	}
	c.cancel()
	<-c.writerDone
	_ = c.ws.Close()
	c.reqWG.Wait()
	c.s.forget(c)
}
