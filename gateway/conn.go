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

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/protocol"
)

// Per-connection timings and queue sizes.
const (
	pingInterval = 25 * time.Second // §1.2 server ping
	writeWait    = 10 * time.Second // one frame's write deadline
	closeGrace   = 2 * time.Second  // wait for the peer's close echo
	outQueueLen  = 512              // frames queued for the writer
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

	ctx    context.Context
	cancel context.CancelFunc

	out        chan []byte // text frames; nil is the close marker
	queued     atomic.Int64
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
}

func newConn(s *Server, ws *websocket.Conn, ip string, local bool) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{
		s: s, ws: ws, id: uuid.NewString(), ip: ip, local: local,
		ctx: ctx, cancel: cancel,
		out:        make(chan []byte, outQueueLen),
		closeNow:   make(chan struct{}),
		readDone:   make(chan struct{}),
		writerDone: make(chan struct{}),
		sem:        make(chan struct{}, s.opts.MaxInflightPerConn),
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
		select {
		case data := <-c.out:
			if data == nil {
				c.finishClose(c.closeCode, c.closeMsg)
				return
			}
			c.queued.Add(-int64(len(data)))
			_ = c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.TextMessage, data); err != nil {
				c.closing.Store(true)
				_ = c.ws.Close() // unblocks the read loop
				return
			}
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
	_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(writeWait))
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
		select {
		case c.out <- nil:
		default: // queue full (slow consumer): skip it
			close(c.closeNow)
		}
	})
}

// send queues one frame. A frame that does not fit the queue or the
// buffered-bytes budget is dropped when dropIfSlow, else the socket is
// closed 1008 "slow consumer" (§8.2).
func (c *conn) send(data []byte, dropIfSlow bool) error {
	if c.closing.Load() || len(data) == 0 {
		return errConnClosed
	}
	n := int64(len(data))
	if c.queued.Add(n) > protocol.MaxBufferedBytes {
		c.queued.Add(-n)
		return c.slow(dropIfSlow)
	}
	select {
	case c.out <- data:
		return nil
	default:
		c.queued.Add(-n)
		return c.slow(dropIfSlow)
	}
}

func (c *conn) slow(dropIfSlow bool) error {
	if dropIfSlow {
		return nil
	}
	c.s.log.Warnf("conn %s: slow consumer, closing", c.id)
	c.closeWith(protocol.ClosePolicyViolation, protocol.ReasonSlowConsumer)
	return errConnClosed
}

// sendEvent sends a targeted event (no seq).
func (c *conn) sendEvent(event string, payload any) {
	b, err := json.Marshal(payload)
	if err != nil {
		c.s.log.Warnf("encode %s event: %v", event, err)
		return
	}
	frame, _ := json.Marshal(protocol.Event{Type: protocol.TypeEvent, Event: event, Payload: b})
	_ = c.send(frame, false)
}

// sendResponse queues a response frame. A successful payload is already
// JSON (from Action.Invoke), so it is spliced in rather than re-encoded.
func (c *conn) sendResponse(res *protocol.Response) {
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
	_ = c.send(frame, false)
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
