package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
)

var reqIDRe = regexp.MustCompile(`^[0-9]+:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func dial(t testing.TB, gw *fakeGW, o Options) *Conn {
	t.Helper()
	o.URL = gw.url
	c, err := Dial(context.Background(), o)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// toolErr asserts err is (or converts to) a *failure.Error with code.
func toolErr(t *testing.T, err error, code string, exit int) *failure.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s error, got nil", code)
	}
	var te *failure.Error
	if !errors.As(err, &te) {
		t.Fatalf("error %T %q is not a *failure.Error", err, err)
	}
	if te.Code != code || te.ExitCode() != exit {
		t.Fatalf("got code %s exit %d (%q), want %s exit %d", te.Code, te.ExitCode(), te.Message, code, exit)
	}
	return te
}

func TestHandshakeAndCall(t *testing.T) {
	gw := newFakeGW(t)
	var connect map[string]any
	var connectID string
	gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
		connectID = req.ID
		json.Unmarshal(req.Params, &connect)
		return defaultHello(), nil, 0, ""
	}
	c := dial(t, gw, Options{Token: "tok123", Scopes: []string{"operator.read"}, Version: "1.2.3"})

	if !reqIDRe.MatchString(connectID) || !strings.HasPrefix(connectID, "1:") {
		t.Errorf("connect id %q, want 1:<uuid v4>", connectID)
	}
	client := connect["client"].(map[string]any)
	instance, _ := client["instanceId"].(string)
	want := map[string]any{
		"minProtocol": 4.0, "maxProtocol": 4.0,
		"client": map[string]any{"id": "cli", "version": "1.2.3", "platform": nodePlatform(runtime.GOOS),
			"deviceFamily": deviceFamily(runtime.GOOS), "mode": "cli", "instanceId": instance},
		"caps": []any{}, "auth": map[string]any{"token": "tok123"},
		"role": "operator", "scopes": []any{"operator.read"},
	}
	if deviceFamily(runtime.GOOS) == "" {
		delete(want["client"].(map[string]any), "deviceFamily")
	}
	if !reflect.DeepEqual(connect, want) {
		t.Errorf("connect params\n got %v\nwant %v", connect, want)
	}
	if len(instance) != 36 {
		t.Errorf("instanceId %q is not a uuid", instance)
	}

	h := c.Hello()
	if h.Protocol != 4 || h.Server.Version != "test" || h.Policy.TickIntervalMs != 30000 || h.Auth.Role != "operator" {
		t.Errorf("hello = %+v", h)
	}
	if !strings.Contains(string(c.HelloRaw()), `"controlUiUrl"`) {
		t.Errorf("HelloRaw lost unknown fields: %s", c.HelloRaw())
	}
	res, err := c.Call(context.Background(), "health", nil)
	if err != nil || string(res) != `{"ok":true,"ts":1}` {
		t.Fatalf("health = %s, %v", res, err)
	}
	res, err = c.Call(context.Background(), "echo", json.RawMessage(`{"a":[1,2]}`))
	if err != nil || string(res) != `{"a":[1,2]}` {
		t.Fatalf("echo raw = %s, %v", res, err)
	}
	res, err = c.Call(context.Background(), "echo", map[string]int{"b": 2})
	if err != nil || string(res) != `{"b":2}` {
		t.Fatalf("echo struct = %s, %v", res, err)
	}
}

func TestConcurrentCallsOutOfOrder(t *testing.T) {
	const n = 100
	gw := newFakeGW(t)
	var mu sync.Mutex
	var held []*protocol.Request
	gw.handle = func(s *fakeSess, req *protocol.Request) {
		mu.Lock()
		held = append(held, req)
		if len(held) < n {
			mu.Unlock()
			return
		}
		batch := held
		mu.Unlock()
		for i := len(batch) - 1; i >= 0; i-- { // answer in reverse arrival order
			s.reply(batch[i].ID, map[string]any{"id": batch[i].ID, "params": batch[i].Params})
		}
	}
	c := dial(t, gw, Options{})

	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := c.Call(ctx, "echo", map[string]int{"i": i})
			if err != nil {
				errs <- err
				return
			}
			var got struct {
				ID     string
				Params struct{ I int }
			}
			if err := json.Unmarshal(res, &got); err != nil || got.Params.I != i || !reqIDRe.MatchString(got.ID) {
				errs <- fmt.Errorf("call %d got %s", i, res)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[string]bool{}
	for _, r := range held {
		if seen[r.ID] {
			t.Errorf("duplicate request id %s", r.ID)
		}
		seen[r.ID] = true
	}
}

func TestCallErrorMapping(t *testing.T) {
	gw := newFakeGW(t)
	yes, ra := true, int64(500)
	shapes := map[string]protocol.ErrorShape{
		"bad":    {Code: "INVALID_REQUEST", Message: "invalid bad params: at /x: must be string", Details: map[string]any{"issues": []any{"x"}}},
		"forbid": {Code: "FORBIDDEN", Message: "missing scope: operator.admin", Details: map[string]any{"code": "MISSING_SCOPE", "missingScope": "operator.admin"}},
		"busy":   {Code: "UNAVAILABLE", Message: "The server is busy. Please try again in a moment.", Retryable: &yes, RetryAfterMs: &ra},
		"nope":   {Code: "INVALID_REQUEST", Message: "unknown method: nope"},
		"tool":   {Code: "DENIED", Message: "exec denied by policy", Details: map[string]any{"tool": "exec"}},
		"cron":   {Code: "INVALID_REQUEST", Message: "cron job not found: j1.", Details: map[string]any{"code": "CRON_JOB_NOT_FOUND", "jobId": "j1"}},
	}
	gw.handle = func(s *fakeSess, req *protocol.Request) { s.fail(req.ID, shapes[req.Method]) }
	c := dial(t, gw, Options{})
	ctx := context.Background()

	cases := []struct {
		method, toolCode string
		exit             int
	}{
		{"bad", failure.CodeInvalidParams, 2},
		{"forbid", failure.CodeDenied, 3},
		{"busy", failure.CodeFailed, 1},
		{"nope", failure.CodeUnknownMethod, 2},
		{"tool", failure.CodeDenied, 3},
		{"cron", failure.CodeNotFound, 1},
	}
	for _, tc := range cases {
		_, err := c.Call(ctx, tc.method, nil)
		var ce *CallError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %T %v is not a *CallError", tc.method, err, err)
		}
		sh := shapes[tc.method]
		if ce.Code != sh.Code || ce.Message != sh.Message || ce.Method != tc.method || err.Error() != sh.Message {
			t.Errorf("%s: CallError %+v", tc.method, ce)
		}
		te := toolErr(t, err, tc.toolCode, tc.exit)
		if te.Message != sh.Message {
			t.Errorf("%s: tool message %q", tc.method, te.Message)
		}
		if tc.method == "tool" {
			if !reflect.DeepEqual(te.Details, sh.Details) {
				t.Errorf("tools code round trip lost details: %v", te.Details)
			}
			continue
		}
		d := te.Details.(map[string]any)
		if d["gatewayCode"] != sh.Code {
			t.Errorf("%s: details %v lack gatewayCode", tc.method, d)
		}
		if sh.Details != nil && !reflect.DeepEqual(d["details"], sh.Details) {
			t.Errorf("%s: details %v, want %v", tc.method, d["details"], sh.Details)
		}
		var back *CallError
		if !errors.As(te, &back) || back != ce {
			t.Errorf("%s: failure.Error does not unwrap to the CallError", tc.method)
		}
	}
	_, err := c.Call(ctx, "busy", nil)
	var ce *CallError
	errors.As(err, &ce)
	if !ce.Retryable || ce.RetryAfterMs != 500 {
		t.Errorf("busy: retryable %v after %d", ce.Retryable, ce.RetryAfterMs)
	}
	if got := failure.AsError(err); got.Code != failure.CodeFailed {
		t.Errorf("failure.AsError = %+v", got)
	}
	// The payload the CLI prints for `gateway call --json`.
	_, err = c.Call(ctx, "bad", nil)
	errors.As(err, &ce)
	out, _ := json.Marshal(map[string]any{"ok": false, "error": map[string]any{
		"type": "gateway_request_error", "code": ce.Code, "message": ce.Message, "details": ce.Details}})
	if want := `{"error":{"code":"INVALID_REQUEST","details":{"issues":["x"]},"message":"invalid bad params: at /x: must be string","type":"gateway_request_error"},"ok":false}`; string(out) != want {
		t.Errorf("json error\n got %s\nwant %s", out, want)
	}
}

func TestConnectRejections(t *testing.T) {
	cases := []struct {
		name   string
		rej    protocol.ErrorShape
		close  int
		code   string
		exit   int
		substr string
	}{
		{"token mismatch", protocol.ErrorShape{Code: "INVALID_REQUEST",
			Message: "unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)",
			Details: map[string]any{"code": "AUTH_TOKEN_MISMATCH", "authReason": "token_mismatch"}},
			1008, failure.CodeAuth, 4, "unauthorized: gateway token mismatch"},
		{"device sig", protocol.ErrorShape{Code: "INVALID_REQUEST", Message: "device signature invalid",
			Details: map[string]any{"code": "DEVICE_AUTH_SIGNATURE_INVALID"}}, 1008, failure.CodeAuth, 4, "device signature invalid"},
		{"pairing", protocol.ErrorShape{Code: "NOT_PAIRED", Message: "device pairing required",
			Details: map[string]any{"code": "PAIRING_REQUIRED", "requestId": "r1"}}, 1008, failure.CodeAuth, 4, "device pairing required"},
		{"protocol", protocol.ErrorShape{Code: "INVALID_REQUEST", Message: "protocol mismatch",
			Details: map[string]any{"code": "PROTOCOL_MISMATCH", "expectedProtocol": 5}}, 1002, failure.CodeFailed, 1,
			"gateway protocol mismatch: this client speaks protocol 4..4, the gateway speaks protocol 5"},
		{"startup", protocol.ErrorShape{Code: "UNAVAILABLE", Message: "gateway starting",
			Details: map[string]any{"reason": "startup-sidecars"}}, 1013, failure.CodeFailed, 1, "gateway starting"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gw := newFakeGW(t)
			gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
				return nil, &tc.rej, tc.close, tc.rej.Message
			}
			_, err := Dial(context.Background(), Options{URL: gw.url, Token: "x"})
			te := toolErr(t, err, tc.code, tc.exit)
			if !strings.Contains(te.Message, tc.substr) {
				t.Errorf("message %q lacks %q", te.Message, tc.substr)
			}
			var ce *CallError
			if !errors.As(err, &ce) || ce.Method != "connect" || ce.Code != tc.rej.Code {
				t.Errorf("no connect CallError in %v", err)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "ws://" + l.Addr().String()
	l.Close()
	_, err = Dial(context.Background(), Options{URL: url})
	te := toolErr(t, err, failure.CodeUnreachable, 5)
	want := "Gateway not reachable at " + url + ": connection refused. Start it with `openclaw serve`."
	if te.Message != want {
		t.Errorf("message %q\nwant %q", te.Message, want)
	}
}

func TestNotAGateway(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := Dial(context.Background(), Options{URL: srv.URL})
	te := toolErr(t, err, failure.CodeUnreachable, 5)
	if !strings.Contains(te.Message, "404") || !strings.Contains(te.Message, "openclaw serve") {
		t.Errorf("message %q", te.Message)
	}
}

func TestServerClosesMidCall(t *testing.T) {
	gw := newFakeGW(t)
	started := make(chan struct{}, 3)
	gw.handle = func(s *fakeSess, req *protocol.Request) {
		started <- struct{}{}
		if req.Method == "slow" {
			for range 2 { // wait until the other pending call is in flight too
				<-started
			}
			s.close(protocol.CloseServiceRestart, "service restart")
		}
	}
	c := dial(t, gw, Options{})
	errs := make(chan error, 2)
	go func() { _, err := c.Call(context.Background(), "other", nil); errs <- err }()
	go func() { _, err := c.Call(context.Background(), "slow", nil); errs <- err }()
	for range 2 {
		te := toolErr(t, <-errs, failure.CodeFailed, 1)
		if te.Message != "gateway closed (1012): service restart" {
			t.Errorf("message %q", te.Message)
		}
		var ce *CloseError
		if !errors.As(te, &ce) || ce.Code != 1012 {
			t.Errorf("no CloseError in %v", te)
		}
	}
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("Done not closed")
	}
	if err := c.Err(); err == nil || err.Error() != "gateway closed (1012): service restart" {
		t.Errorf("Err = %v", err)
	}
	_, err := c.Call(context.Background(), "health", nil)
	if err == nil || err.Error() != "gateway closed (1012): service restart" {
		t.Errorf("call after close: %v", err)
	}
}

func TestTimeouts(t *testing.T) {
	gw := newFakeGW(t)
	gw.skipChallenge = func(int) bool { return true }
	start := time.Now()
	_, err := Dial(context.Background(), Options{URL: gw.url, Timeout: 200 * time.Millisecond})
	toolErr(t, err, failure.CodeTimeout, 124)
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("timeout took %v", el)
	}

	// Caller cancels while waiting for the challenge.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = Dial(ctx, Options{URL: gw.url})
	toolErr(t, err, failure.CodeInterrupted, 130)

	// A call the gateway never answers.
	gw2 := newFakeGW(t)
	gw2.handle = func(s *fakeSess, req *protocol.Request) {
		if req.Method != "hang" {
			defaultHandle(s, req)
		}
	}
	c := dial(t, gw2, Options{})
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = c.Call(ctx, "hang", nil)
	toolErr(t, err, failure.CodeTimeout, 124)
	if _, err := c.Call(context.Background(), "health", nil); err != nil {
		t.Errorf("conn unusable after a timed-out call: %v", err)
	}
}

func TestBadChallenge(t *testing.T) {
	gw := newFakeGW(t)
	gw.challenge = func(int) any { return map[string]any{"nonce": "", "ts": 1} }
	_, err := Dial(context.Background(), Options{URL: gw.url})
	te := toolErr(t, err, failure.CodeFailed, 1)
	if !strings.Contains(te.Message, "without a nonce") {
		t.Errorf("message %q", te.Message)
	}
	gw.challenge = func(int) any { return map[string]any{"nonce": "n"} }
	id, _ := NewIdentity()
	_, err = Dial(context.Background(), Options{URL: gw.url, Identity: id})
	toolErr(t, err, failure.CodeFailed, 1)
}

func TestCloseBeforeHello(t *testing.T) {
	gw := newFakeGW(t)
	gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
		s.close(protocol.ClosePolicyViolation, "invalid connect params: bad")
		time.Sleep(300 * time.Millisecond)
		return defaultHello(), nil, 0, ""
	}
	_, err := Dial(context.Background(), Options{URL: gw.url})
	te := toolErr(t, err, failure.CodeFailed, 1)
	if te.Message != "gateway closed (1008): invalid connect params: bad" {
		t.Errorf("message %q", te.Message)
	}
}

func TestCleanPreHelloCloseRetriedOnce(t *testing.T) {
	gw := newFakeGW(t)
	gw.beforeChallenge = func(s *fakeSess) bool {
		if s.n == 1 { // the first connection closes 1000 without a reason
			s.close(protocol.CloseNormal, "")
			return false
		}
		return true
	}
	c := dial(t, gw, Options{})
	if c.Hello().Protocol != 4 || gw.conns.Load() != 2 {
		t.Fatalf("no hello after retry (%d conns)", gw.conns.Load())
	}

	gw2 := newFakeGW(t)
	gw2.beforeChallenge = func(s *fakeSess) bool { s.close(protocol.CloseNormal, ""); return false }
	_, err := Dial(context.Background(), Options{URL: gw2.url})
	te := toolErr(t, err, failure.CodeFailed, 1)
	if te.Message != "gateway closed (1000): no close reason" || gw2.conns.Load() != 2 {
		t.Errorf("message %q after %d conns", te.Message, gw2.conns.Load())
	}
}

func TestProtocolOutOfRange(t *testing.T) {
	gw := newFakeGW(t)
	gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
		h := defaultHello()
		h["protocol"] = 3
		return h, nil, 0, ""
	}
	_, err := Dial(context.Background(), Options{URL: gw.url})
	te := toolErr(t, err, failure.CodeFailed, 1)
	if !strings.Contains(te.Message, "protocol mismatch") {
		t.Errorf("message %q", te.Message)
	}
}

func TestEventsInOrder(t *testing.T) {
	const n = 200
	gw := newFakeGW(t)
	gw.afterHello = func(s *fakeSess) {
		s.send(map[string]any{"type": "event", "event": "connect.challenge", "payload": map[string]any{"nonce": "again"}})
		for i := 1; i <= n; i++ {
			s.event("test.ev", uint64(i), map[string]int{"i": i})
		}
	}
	ready := make(chan *Conn, 1)
	got := make(chan protocol.Event, n+1)
	var once sync.Once
	c := dial(t, gw, Options{OnEvent: func(ev protocol.Event) {
		once.Do(func() {
			// Blocking here must not stall the read loop, and calls work.
			c := <-ready
			if _, err := c.Call(context.Background(), "health", nil); err != nil {
				t.Errorf("call from OnEvent: %v", err)
			}
		})
		got <- ev
	}})
	ready <- c
	for i := 1; i <= n; i++ {
		select {
		case ev := <-got:
			var p struct{ I int }
			json.Unmarshal(ev.Payload, &p)
			if ev.Event != "test.ev" || ev.Seq == nil || *ev.Seq != uint64(i) || p.I != i {
				t.Fatalf("event %d = %s seq %v payload %s", i, ev.Event, ev.Seq, ev.Payload)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d events", i-1)
		}
	}
}

func TestMaxPayload(t *testing.T) {
	gw := newFakeGW(t)
	gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
		h := defaultHello()
		h["policy"] = map[string]any{"maxPayload": 1024, "maxBufferedBytes": 1, "tickIntervalMs": 30000}
		return h, nil, 0, ""
	}
	var calls sync.WaitGroup
	gw.handle = func(s *fakeSess, req *protocol.Request) {
		if req.Method == "big" {
			t.Error("oversized request was sent")
		}
		defaultHandle(s, req)
		calls.Done()
	}
	c := dial(t, gw, Options{})
	_, err := c.Call(context.Background(), "big", map[string]string{"x": strings.Repeat("a", 2000)})
	toolErr(t, err, failure.CodeInvalidParams, 2)
	calls.Add(1)
	if _, err := c.Call(context.Background(), "health", nil); err != nil {
		t.Fatal(err)
	}
	calls.Wait()
}

func TestCloseSends1000(t *testing.T) {
	gw := newFakeGW(t)
	c := dial(t, gw, Options{})
	c.Close()
	select {
	case code := <-gw.closeCodes:
		if code != 1000 {
			t.Errorf("close code %d", code)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("server saw no close")
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Errorf("Err = %v", c.Err())
	}
	_, err := c.Call(context.Background(), "health", nil)
	if !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
}

func TestExpectFinal(t *testing.T) {
	gw := newFakeGW(t)
	gw.handle = func(s *fakeSess, req *protocol.Request) {
		s.reply(req.ID, map[string]any{"status": "accepted", "runId": "r1"})
		time.Sleep(20 * time.Millisecond)
		s.reply(req.ID, map[string]any{"status": "ok", "runId": "r1"})
	}
	c := dial(t, gw, Options{})
	res, err := c.Call(context.Background(), "agent", nil)
	if err != nil || !strings.Contains(string(res), "accepted") {
		t.Errorf("plain call = %s %v", res, err)
	}
	var accepted json.RawMessage
	res, err = c.CallWith(context.Background(), "agent", nil, CallOptions{ExpectFinal: true,
		OnAccepted: func(p json.RawMessage) { accepted = p }})
	if err != nil || !strings.Contains(string(res), `"ok"`) || !strings.Contains(string(accepted), "accepted") {
		t.Errorf("expectFinal = %s (accepted %s) %v", res, accepted, err)
	}
}

func TestTickWatchdog(t *testing.T) {
	gw := newFakeGW(t)
	gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
		h := defaultHello()
		h["policy"] = map[string]any{"maxPayload": protocol.MaxPayload, "maxBufferedBytes": 1, "tickIntervalMs": 30}
		return h, nil, 0, ""
	}
	c := dial(t, gw, Options{tickCheckMin: 10 * time.Millisecond})
	select {
	case <-c.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("watchdog did not fire")
	}
	if err := c.Err(); err == nil || err.Error() != "gateway closed (4000): tick timeout" {
		t.Errorf("Err = %v", err)
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:1": "ws://h:1", "https://h/p": "wss://h/p", "127.0.0.1:18789": "ws://127.0.0.1:18789", "wss://x": "wss://x",
	} {
		if got := normalizeURL(in); got != want {
			t.Errorf("normalizeURL(%q) = %q", in, got)
		}
	}
}

func TestConnectAuthAssembly(t *testing.T) {
	ch := &protocol.Challenge{Nonce: "n", TS: 1}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Token: "t", DeviceToken: "d", Password: "p"}, `{"token":"t","password":"p"}`},
		{Options{DeviceToken: "d", BootstrapToken: "b"}, `{"deviceToken":"d"}`},
		{Options{BootstrapToken: "b"}, `{"bootstrapToken":"b"}`},
		{Options{}, `null`},
	} {
		o := tc.o.withDefaults()
		b, _ := json.Marshal(buildConnect(&o, ch).Auth)
		if string(b) != tc.want {
			t.Errorf("%+v: auth %s, want %s", tc.o, b, tc.want)
		}
	}
	o := Options{Role: "node"}.withDefaults()
	b, _ := json.Marshal(buildConnect(&o, ch))
	if !strings.Contains(string(b), `"caps":[]`) || !strings.Contains(string(b), `"scopes":[]`) {
		t.Errorf("node connect %s", b)
	}
}
