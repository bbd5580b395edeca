package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

func readScopes(p map[string]any) { p["scopes"] = []string{"operator.read"} }

func TestAuthorizationOrder(t *testing.T) {
	ts := startServer(t, Options{})
	reader := dialConnected(t, ts.url, readScopes)
	admin := dialConnected(t, ts.url)

	// A method this gateway does not serve is "unknown method" whatever the
	// caller's scopes: the original CLI's fallbacks key on it (issue 8).
	for _, c := range []*tclient{reader, admin} {
		f := c.call("no.such.method", nil)
		if f.OK || f.Error.Code != "INVALID_REQUEST" || f.Error.Message != "unknown method: no.such.method" {
			t.Errorf("unknown: %+v", f.Error)
		}
	}
	f := reader.call("config.set", map[string]any{"raw": "{}"})
	if f.Error == nil || f.Error.Code != "FORBIDDEN" || f.Error.Message != "missing scope: operator.admin" {
		t.Errorf("reader config.set: %+v", f.Error)
	}
	d, _ := f.Error.Details.(map[string]any)
	if d["code"] != "MISSING_SCOPE" || d["missingScope"] != "operator.admin" || fmt.Sprint(d["requiredScopes"]) != "[operator.admin]" {
		t.Errorf("details = %v", d)
	}
	if f := reader.call("status", nil); !f.OK {
		t.Errorf("reader status: %+v", f.Error)
	}
	// write implies read.
	writer := dialConnected(t, ts.url, func(p map[string]any) { p["scopes"] = []string{"operator.write"} })
	if f := writer.call("system-presence", nil); !f.OK {
		t.Errorf("writer system-presence: %+v", f.Error)
	}
	// Node-only methods (Roles on the Action) need role node.
	if f := admin.call("test.nodeonly", map[string]any{}); f.Error == nil || f.Error.Code != "INVALID_REQUEST" || f.Error.Message != "unauthorized role: operator" {
		t.Errorf("operator test.nodeonly: %+v", f.Error)
	}
	// Bad params: the wire names the method.
	if f := admin.call("logs.tail", map[string]any{"limit": "x"}); f.Error == nil || f.Error.Code != "INVALID_REQUEST" ||
		!strings.HasPrefix(f.Error.Message, "invalid logs.tail params: ") {
		t.Errorf("bad params: %+v", f.Error)
	}
	if f := admin.call("set-heartbeats", map[string]any{}); f.Error == nil || f.Error.Message != "invalid set-heartbeats params: enabled (boolean) required" {
		t.Errorf("set-heartbeats: %+v", f.Error)
	}
	if f := admin.call("set-heartbeats", map[string]any{"enabled": false}); !f.OK || string(f.Payload) != `{"enabled":false,"ok":true}` {
		t.Errorf("set-heartbeats ok: %s %+v", f.Payload, f.Error)
	}
	if f := admin.call("last-heartbeat", nil); !f.OK || string(f.Payload) != "null" {
		t.Errorf("last-heartbeat: %s", f.Payload)
	}
}

func TestRepeatedUnauthorizedRole(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	for i := 0; i < 11; i++ {
		f := c.call("test.nodeonly", map[string]any{"event": "x"})
		if f.Error == nil || f.Error.Message != "unauthorized role: operator" {
			t.Fatalf("call %d: %+v", i, f.Error)
		}
	}
	if code, reason := c.waitClose(t); code != 1008 || reason != "repeated unauthorized calls" {
		t.Errorf("close %d %q", code, reason)
	}
}

func TestPanicIsRecovered(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	f := c.call("test.panic", nil)
	if f.OK || f.Error.Code != "UNAVAILABLE" || f.Error.Retryable == nil || !*f.Error.Retryable {
		t.Fatalf("panic: %+v", f.Error)
	}
	if f := c.call("health", nil); !f.OK {
		t.Errorf("after panic: %+v", f.Error)
	}
}

func TestClientVanishesMidRequest(t *testing.T) {
	ts := startServer(t, Options{})
	drain(blockStarted)
	drain(blockCanceled)
	c := dialConnected(t, ts.url)
	c.send("test.block", nil)
	<-blockStarted
	_ = c.ws.UnderlyingConn().Close() // no close frame: the peer just vanishes
	select {
	case <-blockCanceled:
	case <-time.After(5 * time.Second):
		t.Fatal("handler context not cancelled after the client vanished")
	}
	waitFor(t, 5*time.Second, func() bool { return ts.s.inflight.Load() == 0 })
	other := dialConnected(t, ts.url)
	if f := other.call("health", nil); !f.OK {
		t.Errorf("server not serving: %+v", f.Error)
	}
}

func drain[T any](ch chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func TestHandshakeFlood(t *testing.T) {
	ts := startServer(t, Options{HandshakeTimeout: 300 * time.Millisecond})
	good := dialConnected(t, ts.url)

	var wg sync.WaitGroup
	var mu sync.Mutex
	var socks []*websocket.Conn
	rejected := 0
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws, _, err := websocket.DefaultDialer.Dial(ts.url, nil)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				rejected++ // over the per-IP pre-auth budget: HTTP 503
				return
			}
			socks = append(socks, ws)
		}()
	}
	// The authenticated client keeps being served during the flood.
	for i := 0; i < 50; i++ {
		if f := good.call("health", nil); !f.OK {
			t.Fatalf("health during flood: %+v", f.Error)
		}
	}
	wg.Wait()
	if len(socks) > 32+1 {
		t.Errorf("%d pre-auth sockets admitted, budget is 32", len(socks))
	}
	// Every idle socket is closed by the handshake timer.
	for _, ws := range socks {
		_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != 1000 {
					t.Errorf("idle socket ended with %v", err)
				}
				break
			}
		}
		ws.Close()
	}
	t.Logf("flood: %d admitted, %d rejected", len(socks), rejected)
	waitFor(t, 5*time.Second, func() bool {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		return len(ts.s.preauthByIP) == 0
	})
	late := dialConnected(t, ts.url)
	if f := late.call("health", nil); !f.OK {
		t.Errorf("after flood: %+v", f.Error)
	}
}

func TestConcurrentHealth(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy")
	}
	ts := startServer(t, Options{})
	baseline := runtime.NumGoroutine()
	const conns, calls = 200, 100
	clients := make([]*tclient, conns)
	var wg sync.WaitGroup
	dialStart := time.Now()
	dialSem := make(chan struct{}, 16) // stay under the per-IP pre-auth budget (32)
	for i := range clients {
		wg.Add(1)
		dialSem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-dialSem }()
			clients[i] = dialConnected(t, ts.url)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("dialed %d connections in %s", conns, time.Since(dialStart).Round(time.Millisecond))
	var errs sync.Map
	start := time.Now()
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < calls; j++ {
				f, err := c.tryCall("health", nil, 60*time.Second)
				if err != nil || !f.OK {
					errs.Store(fmt.Sprint(err, f.Error), true)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d health calls over %d connections in %s", conns*calls, conns, time.Since(start).Round(time.Millisecond))
	errs.Range(func(k, _ any) bool { t.Errorf("call failed: %v", k); return true })
	for _, c := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second) // generous: CI machines are shared
	for runtime.NumGoroutine() > baseline && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("goroutines back to baseline %d after %s", baseline, time.Since(start).Round(time.Millisecond))
	if n := runtime.NumGoroutine(); n > baseline {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d after close, baseline %d\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
	}
	waitFor(t, 2*time.Second, func() bool {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		return len(ts.s.conns) == 0 && len(ts.s.preauthByIP) == 0
	})
}

func TestShutdownDrainsAndCloses1012(t *testing.T) {
	ts := startServer(t, Options{})
	drain(blockStarted)
	c := dialConnected(t, ts.url)
	pre := dial(t, ts.url) // a socket still in the handshake
	_, resCh := c.send("test.slow", nil)
	<-blockStarted
	go ts.cancel()

	sd := c.nextEvent(t, "shutdown", 5*time.Second)
	var p map[string]any
	_ = json.Unmarshal(sd.Payload, &p)
	if p["reason"] != "gateway stopping" || p["restartExpectedMs"] != nil {
		t.Errorf("shutdown payload %s", sd.Payload)
	}
	if _, ok := p["restartExpectedMs"]; !ok {
		t.Errorf("shutdown payload lacks restartExpectedMs: %s", sd.Payload)
	}
	select {
	case f := <-resCh:
		if !f.OK || string(f.Payload) != `{"slow":"done"}` {
			t.Errorf("in-flight response: %s %+v", f.Payload, f.Error)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight request got no response")
	}
	if code, reason := c.waitClose(t); code != 1012 || reason != "service restart" {
		t.Errorf("close %d %q", code, reason)
	}
	if code, _ := pre.waitClose(t); code != 1012 {
		t.Errorf("pre-auth close %d", code)
	}
	select {
	case err := <-ts.done:
		ts.done <- err
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}

func TestTickEvent(t *testing.T) {
	ts := startServer(t, Options{TickInterval: 50 * time.Millisecond, HealthInterval: 80 * time.Millisecond})
	c := dialConnected(t, ts.url)
	h := decode[map[string]any](t, c.hello)
	if h["policy"].(map[string]any)["tickIntervalMs"] != 50.0 {
		t.Errorf("policy.tickIntervalMs = %v", h["policy"])
	}
	a := c.nextEvent(t, "tick", 2*time.Second)
	b := c.nextEvent(t, "tick", 2*time.Second)
	if a.Seq == nil || b.Seq == nil || *b.Seq <= *a.Seq {
		t.Errorf("tick seqs %v %v", a.Seq, b.Seq)
	}
	var p map[string]any
	_ = json.Unmarshal(b.Payload, &p)
	if _, ok := p["ts"].(float64); !ok {
		t.Errorf("tick payload %s", b.Payload)
	}
	hv := c.nextEvent(t, "health", 2*time.Second)
	if hv.StateVersion == nil || hv.StateVersion.Health < 1 || !strings.Contains(string(hv.Payload), `"ok":true`) {
		t.Errorf("health event %s %+v", hv.Payload, hv.StateVersion)
	}
	// Nodes get ticks too; scope-less clients get no presence.
	bare := dialConnected(t, ts.url, func(p map[string]any) {
		p["client"] = map[string]any{"id": "test", "version": "1", "platform": "linux", "mode": "test"}
	})
	// Its first event (a tick, or a health event, which has no scope guard)
	// is seq 1: no presence event was counted for it.
	select {
	case raw := <-bare.events:
		var first frame
		if err := json.Unmarshal(raw, &first); err != nil {
			t.Fatal(err)
		}
		if first.Event == "presence" || first.Seq == nil || *first.Seq != 1 {
			t.Errorf("first event %s seq %v, want a non-presence event with seq 1 (presence withheld without operator.read)", first.Event, first.Seq)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no event for the scope-less client")
	}
}

func TestHTTPEndpoints(t *testing.T) {
	ts := startServer(t, Options{})
	for _, tc := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/health", 200, `{"ok":true,"status":"live"}`},
		{"HEAD", "/health", 200, ""},
		{"GET", "/healthz", 200, `{"ok":true,"status":"live"}`},
		{"GET", "/readyz", 200, `{"ready":true}`},
		{"POST", "/health", 405, ""},
		{"DELETE", "/readyz", 405, ""},
		{"GET", "/nope", 404, ""},
	} {
		status, body := httpGet(t, tc.method, ts.http+tc.path)
		if status != tc.status || (tc.body != "" && body != tc.body) {
			t.Errorf("%s %s = %d %s", tc.method, tc.path, status, body)
		}
	}
	// Upgrades work on any path.
	c := dialConnected(t, "ws://"+ts.s.Addr()+"/some/context/path")
	if f := c.call("health", nil); !f.OK {
		t.Errorf("health on a context path: %+v", f.Error)
	}
}

// Test actions of the one door: a node-only method (Roles on the Action)
// and a deferred one that answers "accepted" and later its final result.
var deferredRelease = make(chan string, 4)

func init() {
	tools.Register(&tools.Action{Method: "test.nodeonly", Roles: []string{protocol.RoleNode}, Where: tools.Gateway,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			return map[string]any{"ok": true}, nil
		}})
	tools.Register(&tools.Action{Method: "test.deferred", Scope: protocol.ScopeWrite, Where: tools.Gateway,
		Schema: `{"type":"object","properties":{"runId":{"type":"string"}},"required":["runId"]}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			RunID string `json:"runId"`
		}) (any, error) {
			return &tools.Deferred{
				Accepted: map[string]any{"runId": p.RunID, "status": "accepted", "acceptedAt": 1},
				Final: func(ctx context.Context) (any, error) {
					select {
					case outcome := <-deferredRelease:
						if outcome == "fail" {
							return nil, tools.Errorf(tools.CodeFailed, "run %s failed", p.RunID)
						}
						return map[string]any{"runId": p.RunID, "status": "ok", "summary": "completed"}, nil
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				},
			}, nil
		})})
}

// An action may answer "accepted" at once and its final result later on
// the same request id (§2.2, as the original's `agent`); the real client's
// ExpectFinal waits for the second frame, and the wait holds none of the
// connection's request slots.
func TestAcceptedThenFinal(t *testing.T) {
	ts := startServer(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, client.Options{URL: ts.url, Token: testToken, Scopes: []string{protocol.ScopeWrite}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	accepted := make(chan json.RawMessage, 1)
	type result struct {
		out json.RawMessage
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := conn.CallWith(ctx, "test.deferred", map[string]any{"runId": "r1"}, client.CallOptions{
			ExpectFinal: true, OnAccepted: func(p json.RawMessage) { accepted <- p },
		})
		done <- result{out, err}
	}()
	select {
	case p := <-accepted:
		if string(p) != `{"acceptedAt":1,"runId":"r1","status":"accepted"}` {
			t.Fatalf("accepted payload %s", p)
		}
	case r := <-done:
		t.Fatalf("settled before accepted: %s %v", r.out, r.err)
	case <-ctx.Done():
		t.Fatal("no accepted response")
	}
	// While the final is pending the connection serves other requests, more
	// of them than it has request slots.
	for i := 0; i < ts.s.opts.MaxInflightPerConn+2; i++ {
		if _, err := conn.Call(ctx, "health", nil); err != nil {
			t.Fatalf("health while a final is pending: %v", err)
		}
	}
	deferredRelease <- "ok"
	r := <-done
	if r.err != nil || string(r.out) != `{"runId":"r1","status":"ok","summary":"completed"}` {
		t.Fatalf("final: %s %v", r.out, r.err)
	}

	// A final error arrives as the second response, ok:false.
	go func() {
		out, err := conn.CallWith(ctx, "test.deferred", map[string]any{"runId": "r2"}, client.CallOptions{ExpectFinal: true})
		done <- result{out, err}
	}()
	deferredRelease <- "fail"
	r = <-done
	var ce *client.CallError
	if !errors.As(r.err, &ce) || ce.Message != "run r2 failed" {
		t.Fatalf("final error: %s %v", r.out, r.err)
	}

	// With an idempotency key, a repeat of the same request (e.g. after a
	// reconnect) gets the final result, not a second "accepted".
	keyed := map[string]any{"runId": "r4", "idempotencyKey": "k-r4"}
	go func() {
		out, err := conn.CallWith(ctx, "test.deferred", keyed, client.CallOptions{ExpectFinal: true})
		done <- result{out, err}
	}()
	deferredRelease <- "ok"
	if r := <-done; r.err != nil || !strings.Contains(string(r.out), `"status":"ok"`) {
		t.Fatalf("keyed final: %s %v", r.out, r.err)
	}
	out, err := conn.CallWith(ctx, "test.deferred", keyed, client.CallOptions{ExpectFinal: true})
	if err != nil || string(out) != `{"runId":"r4","status":"ok","summary":"completed"}` {
		t.Fatalf("keyed repeat: %s %v", out, err)
	}

	// Without ExpectFinal the client settles on the first response.
	out, err = conn.Call(ctx, "test.deferred", map[string]any{"runId": "r3"})
	if err != nil || !strings.Contains(string(out), `"status":"accepted"`) {
		t.Fatalf("plain call: %s %v", out, err)
	}
	deferredRelease <- "ok" // let r3's final finish
}

// Every front door of the gateway goes through tools.Invoke: the wire
// method, tools.invoke (and the tool it names), and the gateway agent tool
// (and the config method it runs). A counting hook on the registry sees
// each, and a handler never runs without its call having entered the door.
func TestFrontDoorsGoThroughInvoke(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	remove := tools.Default.OnInvoke(func(c tools.Call) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case c.Method != "":
			seen = append(seen, "method:"+c.Method)
		case c.Tool != "":
			seen = append(seen, "tool:"+c.Tool)
		default:
			seen = append(seen, "id:"+c.ID)
		}
	})
	defer remove()
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	has := func(want ...string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		for _, w := range want {
			if !slices.Contains(seen, w) {
				t.Errorf("%s did not go through tools.Invoke (seen %v)", w, seen)
			}
		}
		seen = nil
	}
	if f := c.call("health", nil); !f.OK {
		t.Fatal(f.Error)
	}
	has("method:health")
	if f := c.call("tools.invoke", map[string]any{"name": "test_echo", "args": map[string]any{"text": "hi"}}); !f.OK {
		t.Fatal(f.Error)
	}
	has("method:tools.invoke", "tool:test_echo")
	if f := c.call("tools.invoke", map[string]any{"name": "gateway", "args": map[string]any{"action": "config.get"}}); !f.OK {
		t.Fatal(f.Error)
	}
	has("method:tools.invoke", "tool:gateway", "method:config.get")
}
