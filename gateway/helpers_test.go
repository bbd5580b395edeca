package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/google/uuid"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

const testToken = "test-token-123"

// Test-only methods: a handler that blocks until released or cancelled, a
// slow one, a panicking one and a counter (idempotency).
var (
	blockStarted  = make(chan struct{}, 16)
	blockRelease  = make(chan struct{})
	blockCanceled = make(chan struct{}, 16)
	counterCalls  atomic.Int64
)

func init() {
	tools.Register(&tools.Action{Method: "test.block", Scope: protocol.ScopeRead, Where: tools.Gateway,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			signal(blockStarted)
			select {
			case <-blockRelease:
				return map[string]any{"released": true}, nil
			case <-ctx.Done():
				signal(blockCanceled)
				return nil, ctx.Err()
			}
		}})
	tools.Register(&tools.Action{Method: "test.slow", Scope: protocol.ScopeRead, Where: tools.Gateway,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			signal(blockStarted)
			time.Sleep(400 * time.Millisecond)
			return map[string]any{"slow": "done"}, nil
		}})
	tools.Register(&tools.Action{Method: "test.panic", Scope: protocol.ScopeRead, Where: tools.Gateway,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			panic("boom")
		}})
	tools.Register(&tools.Action{Method: "test.counter", Scope: protocol.ScopeWrite, Where: tools.Gateway,
		Schema: `{"type":"object","properties":{"idempotencyKey":{"type":"string"}}}`,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			return map[string]any{"n": counterCalls.Add(1)}, nil
		}})
	tools.Register(&tools.Action{Tool: "test_echo", Summary: "Echo text back", Where: tools.Local,
		Schema: `{"type":"object","required":["text"],"properties":{"text":{"type":"string"}},"additionalProperties":false}`,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			var p struct{ Text string }
			_ = json.Unmarshal(params, &p)
			return tools.TextResult(p.Text, nil), nil
		}})
}

// signal never blocks: fuzzing may call the test methods many times.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// testServer is a running gateway on 127.0.0.1:0.
type testServer struct {
	s      *Server
	url    string
	http   string
	dir    string
	cancel context.CancelFunc
	done   chan error
}

// startServer runs a gateway with token auth unless opts says otherwise.
func startServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	dir := t.TempDir()
	if opts.Paths.StateDir == "" {
		opts.Paths = config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}
	}
	if opts.AuthMode == "" && opts.Token == "" && opts.Password == "" {
		opts.Token = testToken
	}
	return startServerRaw(t, opts)
}

// startServerRaw runs opts as given (auth may come from the config file).
func startServerRaw(t testing.TB, opts Options) *testServer {
	t.Helper()
	dir := opts.Paths.StateDir
	if dir == "" {
		dir = t.TempDir()
		opts.Paths = config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	opts.Version = "test"
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := s.Listen(); err != nil {
		t.Fatalf("Listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{s: s, url: "ws://" + s.Addr() + "/", http: "http://" + s.Addr(), dir: dir, cancel: cancel, done: make(chan error, 1)}
	go func() { ts.done <- s.Serve(ctx) }()
	waitFor(t, 2*time.Second, func() bool { return s.serving.Load() })
	t.Cleanup(ts.stop)
	return ts
}

// stop cancels Serve and waits for it (idempotent).
func (ts *testServer) stop() {
	ts.cancel()
	select {
	case <-ts.done:
		ts.done <- nil // keep later stops from blocking
	case <-time.After(15 * time.Second):
		panic("gateway did not stop")
	}
}

func waitFor(t testing.TB, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// frame is any server frame, decoded loosely.
type frame struct {
	Type         string                 `json:"type"`
	ID           string                 `json:"id"`
	OK           bool                   `json:"ok"`
	Payload      json.RawMessage        `json:"payload"`
	Error        *protocol.ErrorShape   `json:"error"`
	Event        string                 `json:"event"`
	Seq          *uint64                `json:"seq"`
	StateVersion *protocol.StateVersion `json:"stateVersion"`
}

// tclient is a minimal protocol client: a reader goroutine routes responses
// by id and queues events.
type tclient struct {
	t         testing.TB
	ws        *websocket.Conn
	challenge protocol.Challenge
	nextID    atomic.Int64
	mu        sync.Mutex
	pending   map[string]chan frame
	events    chan []byte
	closed    chan struct{}
	closeErr  error
	hello     json.RawMessage
}

// dial opens a socket and reads the challenge.
func dial(t testing.TB, url string) *tclient {
	t.Helper()
	return dialHeader(t, url, nil)
}

// dialHeader is dial with extra upgrade headers (X-Forwarded-For makes a
// loopback socket count as remote, Origin as a browser).
func dialHeader(t testing.TB, url string, h http.Header) *tclient {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, h)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c := &tclient{t: t, ws: ws, pending: map[string]chan frame{}, events: make(chan []byte, 512), closed: make(chan struct{})}
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	var ch frame
	if err := ws.ReadJSON(&ch); err != nil {
		t.Fatalf("read challenge: %v", err)
	}
	if ch.Type != "event" || ch.Event != protocol.EventConnectChallenge || ch.Seq != nil {
		t.Fatalf("first frame is not a connect.challenge: %+v", ch)
	}
	if err := json.Unmarshal(ch.Payload, &c.challenge); err != nil {
		t.Fatalf("challenge payload: %v", err)
	}
	_ = ws.SetReadDeadline(time.Time{})
	go c.readLoop()
	t.Cleanup(func() { c.close() })
	return c
}

func (c *tclient) readLoop() {
	defer close(c.closed)
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.closeErr = err
			return
		}
		// Peek with gjson: presence bursts carry big payloads that only a
		// test waiting for them needs decoded.
		switch gjson.GetBytes(data, "type").Str {
		case "res":
			var f frame
			if err := json.Unmarshal(data, &f); err != nil {
				c.closeErr = fmt.Errorf("bad frame %q: %w", data, err)
				return
			}
			c.mu.Lock()
			ch := c.pending[f.ID]
			delete(c.pending, f.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- f
			}
		case "event":
			select {
			case c.events <- data:
			default:
			}
		default:
			c.closeErr = fmt.Errorf("bad frame %q", data)
			return
		}
	}
}

// send writes a request and returns the channel its response arrives on.
func (c *tclient) send(method string, params any) (string, chan frame) {
	id := fmt.Sprintf("%d:%s", c.nextID.Add(1), uuid.NewString())
	ch := make(chan frame, 1)
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	req := map[string]any{"type": "req", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	c.mu.Lock()
	err := c.ws.WriteJSON(req)
	c.mu.Unlock()
	if err != nil {
		c.t.Errorf("send %s: %v", method, err)
	}
	return id, ch
}

// call sends a request and waits for its response (or the socket's end).
func (c *tclient) call(method string, params any) frame {
	c.t.Helper()
	f, err := c.tryCall(method, params, 10*time.Second)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return f
}

func (c *tclient) tryCall(method string, params any, timeout time.Duration) (frame, error) {
	_, ch := c.send(method, params)
	select {
	case f := <-ch:
		return f, nil
	case <-c.closed:
		select {
		case f := <-ch:
			return f, nil
		default:
		}
		return frame{}, fmt.Errorf("socket closed: %v", c.closeErr)
	case <-time.After(timeout):
		return frame{}, errors.New("timeout")
	}
}

// connectParams are the CLI's connect params with the test token.
func connectParams(mut ...func(map[string]any)) map[string]any {
	p := map[string]any{
		"minProtocol": 4, "maxProtocol": 4,
		"client": map[string]any{"id": "cli", "version": "2026.9.6", "platform": "linux", "mode": "cli", "instanceId": uuid.NewString()},
		"caps":   []string{}, "role": "operator", "scopes": []string{"operator.admin"},
		"auth": map[string]any{"token": testToken},
	}
	for _, m := range mut {
		m(p)
	}
	return p
}

// connect sends connect and returns the response frame.
func (c *tclient) connect(params map[string]any) frame {
	c.t.Helper()
	f := c.call("connect", params)
	if f.OK {
		c.hello = f.Payload
	}
	return f
}

// dialConnected is dial + successful connect.
func dialConnected(t testing.TB, url string, mut ...func(map[string]any)) *tclient {
	t.Helper()
	c := dial(t, url)
	if f := c.connect(connectParams(mut...)); !f.OK {
		t.Fatalf("connect failed: %+v", f.Error)
	}
	return c
}

// waitClose waits for the server's close and returns its code and text.
func (c *tclient) waitClose(t testing.TB) (int, string) {
	t.Helper()
	select {
	case <-c.closed:
	case <-time.After(10 * time.Second):
		t.Fatalf("socket not closed")
	}
	var ce *websocket.CloseError
	if errors.As(c.closeErr, &ce) {
		return ce.Code, ce.Text
	}
	t.Fatalf("socket ended without a close frame: %v", c.closeErr)
	return 0, ""
}

// nextEvent returns the next event with this name, skipping others.
func (c *tclient) nextEvent(t testing.TB, name string, d time.Duration) frame {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case raw := <-c.events:
			if gjson.GetBytes(raw, "event").Str == name {
				var f frame
				if err := json.Unmarshal(raw, &f); err != nil {
					t.Fatalf("bad event %s: %v", raw, err)
				}
				return f
			}
		case <-timeout:
			t.Fatalf("no %s event within %s", name, d)
		}
	}
}

// close does a clean client-side close and waits for the server's echo.
func (c *tclient) close() {
	c.mu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	c.mu.Unlock()
	select {
	case <-c.closed:
	case <-time.After(3 * time.Second):
	}
	_ = c.ws.Close()
}

func httpGet(t testing.TB, method, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.TrimSpace(string(b))
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func decode[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}
