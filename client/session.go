package client

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/failure"
)

const (
	defaultBackoffBase = time.Second
	defaultBackoffMax  = 30 * time.Second
)

// Session keeps a gateway connection up for long-lived users (node host,
// logs --follow, route.Kept): it dials, runs onConnect, waits for the connection to end
// and reconnects with exponential backoff (1 s doubling to 30 s, ±20 %
// jitter, reset after a successful hello + onConnect). Calls are never
// replayed across connections.
//
// The loop stops when ctx is done, on Close, or on a connect rejection that
// retrying cannot fix (bad/missing credentials, protocol mismatch, pairing
// required unless the gateway says wait_then_retry; §8.3) — then Err says why.
type Session struct {
	opts      Options
	onConnect func(*Conn) error
	cancel    context.CancelFunc
	done      chan struct{}

	mu      sync.Mutex
	conn    *Conn
	changed chan struct{} // closed and replaced whenever conn changes
	err     error
}

// Connect starts a Session in the background. onConnect (may be nil) runs
// on every new connection before Session.Conn exposes it; returning an error
// closes that connection and schedules a retry. It should return promptly
// (start goroutines that watch conn.Done() for longer work).
func Connect(ctx context.Context, opts Options, onConnect func(*Conn) error) *Session {
	ctx, cancel := context.WithCancel(ctx)
	s := &Session{opts: opts, onConnect: onConnect, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{})}
	go s.run(ctx)
	return s
}

// Conn returns the current live connection, or nil while disconnected.
func (s *Session) Conn() *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

// Wait returns the current connection, waiting for one if needed. It fails
// when ctx ends (CodeTimeout / CodeInterrupted) or the session stops.
func (s *Session) Wait(ctx context.Context) (*Conn, error) {
	for {
		s.mu.Lock()
		c, changed := s.conn, s.changed
		s.mu.Unlock()
		if c != nil && !c.isDone() {
			return c, nil
		}
		select {
		case <-changed:
		case <-s.done:
			if err := s.Err(); err != nil {
				return nil, err
			}
			return nil, failure.Errorf(failure.CodeFailed, "gateway session closed")
		case <-ctx.Done():
			return nil, callCtxError(ctx, "connect")
		}
	}
}

// Call waits for a connection and makes one call on it.
func (s *Session) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.CallWith(ctx, method, params, CallOptions{})
}

// CallWith is Call with options (ExpectFinal for long-running methods).
func (s *Session) CallWith(ctx context.Context, method string, params any, o CallOptions) (json.RawMessage, error) {
	c, err := s.Wait(ctx)
	if err != nil {
		return nil, err
	}
	return c.CallWith(ctx, method, params, o)
}

// Done is closed when the reconnect loop has stopped and the last
// connection is closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is the connect error that stopped the session, or nil (running, or
// stopped by ctx/Close).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops the loop, closes the current connection (1000) and waits.
func (s *Session) Close() error {
	s.cancel()
	<-s.done
	return nil
}

func (s *Session) setConn(c *Conn) {
	s.mu.Lock()
	s.conn = c
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func (s *Session) run(ctx context.Context) {
	defer close(s.done)
	base, limit := s.opts.backoffBase, s.opts.backoffMax
	if base <= 0 {
		base = defaultBackoffBase
	}
	if limit <= 0 {
		limit = defaultBackoffMax
	}
	delay := base
	for {
		c, err := Dial(ctx, s.opts)
		if err == nil && s.onConnect != nil {
			if err = s.onConnect(c); err != nil {
				c.Close()
			}
		}
		if err == nil {
			s.setConn(c)
			delay = base
			select {
			case <-c.Done():
				err = c.Err()
				s.setConn(nil)
			case <-ctx.Done():
				c.Close()
				s.setConn(nil)
				return
			}
		}
		if ctx.Err() != nil {
			return
		}
		if isFatalConnectError(err) {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
			return
		}
		wait := jitter(delay)
		if ra := retryAfter(err); ra > wait {
			wait = ra
		}
		if s.opts.OnDisconnect != nil {
			s.opts.OnDisconnect(err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		delay = min(delay*2, limit)
	}
}

// jitter spreads d by ±20 %.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// retryAfter is the gateway's retryAfterMs on a retryable connect rejection.
func retryAfter(err error) time.Duration {
	ce, ok := asCallError(err)
	if !ok || !ce.Retryable || ce.RetryAfterMs <= 0 {
		return 0
	}
	return time.Duration(ce.RetryAfterMs) * time.Millisecond
}
