package client

import (
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
)

// closeWait is how long Close waits for the gateway to answer the close
// frame before dropping the socket.
const closeWait = time.Second

// Conn is one authenticated gateway connection. All methods are safe for
// concurrent use; many calls share the socket and may complete out of order.
type Conn struct {
	ws         *websocket.Conn
	opts       Options
	hello      *protocol.HelloOK
	helloRaw   json.RawMessage
	maxPayload int64
	seq        atomic.Uint64
	lastRecv   atomic.Int64 // unix nanos of the last inbound frame
	writeMu    sync.Mutex

	mu      sync.Mutex
	pending map[string]*pendingCall
	closing bool
	err     error

	done        chan struct{}
	events      *eventQueue
	stopEvents  atomic.Bool
	watchdogOff chan struct{}
}

type pendingCall struct {
	ch          chan *inFrame
	expectFinal bool
}

// inFrame is any server frame; unknown fields are ignored.
type inFrame struct {
	Type         string                 `json:"type"`
	ID           string                 `json:"id"`
	OK           bool                   `json:"ok"`
	Payload      json.RawMessage        `json:"payload"`
	Error        *protocol.ErrorShape   `json:"error"`
	Event        string                 `json:"event"`
	Seq          *uint64                `json:"seq"`
	StateVersion *protocol.StateVersion `json:"stateVersion"`
}

// decodeFrame parses a frame leniently: a wrongly typed optional field is
// skipped, only non-JSON is rejected.
func decodeFrame(data []byte) (*inFrame, bool) {
	var f inFrame
	if err := json.Unmarshal(data, &f); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); !ok {
			return nil, false
		}
	}
	return &f, f.Type != ""
}

func (f *inFrame) event() protocol.Event {
	return protocol.Event{Type: protocol.TypeEvent, Event: f.Event, Payload: f.Payload, Seq: f.Seq, StateVersion: f.StateVersion}
}

func newConn(ws *websocket.Conn, o Options) *Conn {
	return &Conn{
		ws: ws, opts: o, pending: map[string]*pendingCall{},
		done: make(chan struct{}), watchdogOff: make(chan struct{}),
	}
}

// nextID returns "<n>:<uuid>", n counting from 1 on this connection.
func (c *Conn) nextID() string {
	return strconv.FormatUint(c.seq.Add(1), 10) + ":" + uuid.NewString()
}

// start begins normal operation after hello-ok.
func (c *Conn) start(hello *protocol.HelloOK, raw json.RawMessage, early []protocol.Event) {
	c.hello, c.helloRaw = hello, raw
	c.maxPayload = hello.Policy.MaxPayload
	if c.maxPayload <= 0 {
		c.maxPayload = protocol.MaxPayload
	}
	if c.maxPayload > protocol.MaxPayload {
		c.ws.SetReadLimit(c.maxPayload)
	}
	c.ws.UnderlyingConn().SetDeadline(time.Time{})
	c.lastRecv.Store(time.Now().UnixNano())
	if c.opts.OnEvent != nil {
		c.events = newEventQueue()
		for _, ev := range early {
			c.events.push(ev)
		}
		go c.events.run(c.deliver)
	}
	go c.readLoop()
	if t := time.Duration(hello.Policy.TickIntervalMs) * time.Millisecond; t > 0 {
		go c.tickWatch(t)
	}
}

// Hello returns the gateway's hello-ok payload.
func (c *Conn) Hello() *protocol.HelloOK { return c.hello }

// HelloRaw returns the hello-ok payload exactly as received (for fields
// protocol.HelloOK does not model).
func (c *Conn) HelloRaw() json.RawMessage { return c.helloRaw }

// URL returns the gateway URL this connection was dialled with.
func (c *Conn) URL() string { return c.opts.URL }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended (nil while it is open): a *failure.Error
// wrapping a *CloseError `gateway closed (<code>): <reason>` when the gateway
// closed it, or wrapping ErrClosed after Close.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close sends a normal close (1000), waits briefly for the gateway to answer
// and releases the socket. Pending calls fail with ErrClosed. No OnEvent call
// starts after Close returns.
func (c *Conn) Close() error {
	c.closeWith(protocol.CloseNormal, "", failure.Errorf(failure.CodeFailed, "%w", ErrClosed))
	return nil
}

// closeWith ends the connection locally with a close frame; err becomes Err.
func (c *Conn) closeWith(code int, reason string, err error) {
	c.stopEvents.Store(true)
	c.mu.Lock()
	already := c.closing
	c.closing = true
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	if !already {
		c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(closeWait))
	}
	select {
	case <-c.done:
	case <-time.After(closeWait):
		c.ws.Close()
		<-c.done
	}
}

// fail drops the socket after a transport failure (write error).
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.ws.Close()
}

func (c *Conn) readLoop() {
	var err error
	for {
		_, data, rerr := c.ws.ReadMessage()
		if rerr != nil {
			err = closeToolError(closeFromReadError(rerr))
			break
		}
		c.lastRecv.Store(time.Now().UnixNano())
		f, ok := decodeFrame(data)
		if !ok {
			continue
		}
		switch f.Type {
		case protocol.TypeRes:
			c.mu.Lock()
			p := c.pending[f.ID]
			c.mu.Unlock()
			if p != nil {
				select {
				case p.ch <- f:
				default: // more responses than the caller can want
				}
			}
		case protocol.TypeEvent:
			if c.events != nil && f.Event != "connect.challenge" {
				c.events.push(f.event())
			}
		}
	}
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.pending = map[string]*pendingCall{}
	c.mu.Unlock()
	close(c.watchdogOff)
	c.ws.Close()
	close(c.done)
	if c.events != nil {
		c.events.close()
	}
}

func (c *Conn) deliver(ev protocol.Event) {
	if !c.stopEvents.Load() {
		c.opts.OnEvent(ev)
	}
}

// write sends one text frame; a failed write ends the connection.
func (c *Conn) write(frame []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		c.fail(failure.Errorf(failure.CodeFailed, "gateway connection lost: %w", err))
		return err
	}
	return nil
}

// tickWatch closes the connection 4000 "tick timeout" when nothing arrived
// for 2 × tickIntervalMs while no call is pending (§6.4).
func (c *Conn) tickWatch(interval time.Duration) {
	t := time.NewTicker(max(interval, c.opts.tickCheckMin))
	defer t.Stop()
	for {
		select {
		case <-c.watchdogOff:
			return
		case <-t.C:
			silent := time.Since(time.Unix(0, c.lastRecv.Load()))
			c.mu.Lock()
			busy := len(c.pending) > 0
			c.mu.Unlock()
			if silent > 2*interval && !busy {
				ce := &CloseError{Code: 4000, Reason: "tick timeout"}
				go c.closeWith(ce.Code, ce.Reason, closeToolError(ce))
				return
			}
		}
	}
}

// eventQueue hands events to OnEvent in order without ever blocking the
// read loop.
type eventQueue struct {
	mu     sync.Mutex
	items  []protocol.Event
	closed bool
	signal chan struct{}
	synced eventSync // how far delivery got (eventsync.go)
}

func newEventQueue() *eventQueue { return &eventQueue{signal: make(chan struct{}, 1)} }

func (q *eventQueue) push(ev protocol.Event) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.synced.pushed++
	q.mu.Unlock()
	q.wake()
}

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

func (q *eventQueue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *eventQueue) run(fn func(protocol.Event)) {
	for {
		q.mu.Lock()
		items, closed := q.items, q.closed
		q.items = nil
		q.mu.Unlock()
		for _, ev := range items {
			fn(ev)
		}
		q.delivered(len(items), closed && len(items) == 0)
		if len(items) == 0 {
			if closed {
				return
			}
			<-q.signal
		}
	}
}
