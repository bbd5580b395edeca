package client

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
)

func fastBackoff(o Options) Options {
	o.backoffBase, o.backoffMax = 10*time.Millisecond, 50*time.Millisecond
	return o
}

func TestSessionReconnects(t *testing.T) {
	gw := newFakeGW(t)
	gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
		if s.n == 1 { // first dial: retryable rejection
			yes, ra := true, int64(20)
			return nil, &protocol.ErrorShape{Code: "UNAVAILABLE", Message: "gateway starting", Retryable: &yes, RetryAfterMs: &ra}, 1013, "gateway starting"
		}
		return defaultHello(), nil, 0, ""
	}
	gw.afterHello = func(s *fakeSess) {
		if s.n == 2 { // second: drop right after hello
			time.AfterFunc(50*time.Millisecond, func() { s.close(protocol.CloseServiceRestart, "service restart") })
		}
	}
	var connects atomic.Int32
	var disconnects []error
	var waits []time.Duration
	opts := fastBackoff(Options{URL: gw.url, OnDisconnect: func(err error, d time.Duration) {
		disconnects = append(disconnects, err)
		waits = append(waits, d)
	}})
	s := Connect(context.Background(), opts, func(c *Conn) error {
		connects.Add(1)
		_, err := c.Call(context.Background(), "health", nil)
		return err
	})
	defer s.Close()

	deadline := time.Now().Add(5 * time.Second)
	for connects.Load() < 2 || gw.conns.Load() < 3 || s.Conn() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("connects %d conns %d", connects.Load(), gw.conns.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := s.Call(ctx, "health", nil); err != nil {
		t.Fatalf("call on reconnected session: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if s.Conn() != nil || s.Err() != nil {
		t.Errorf("after Close: conn %v err %v", s.Conn(), s.Err())
	}
	if len(disconnects) != 2 {
		t.Fatalf("OnDisconnect calls: %v", disconnects)
	}
	if disconnects[0].Error() != "gateway starting" || waits[0] < 20*time.Millisecond {
		t.Errorf("first disconnect %v wait %v", disconnects[0], waits[0])
	}
	if disconnects[1].Error() != "gateway closed (1012): service restart" {
		t.Errorf("second disconnect %v", disconnects[1])
	}
}

func TestSessionStopsOnFatalAuth(t *testing.T) {
	gw := newFakeGW(t)
	gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
		return nil, &protocol.ErrorShape{Code: "INVALID_REQUEST", Message: "unauthorized: gateway token mismatch",
			Details: map[string]any{"code": "AUTH_TOKEN_MISMATCH"}}, 1008, "unauthorized: gateway token mismatch"
	}
	s := Connect(context.Background(), fastBackoff(Options{URL: gw.url, Token: "bad"}), nil)
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("session kept retrying a token mismatch")
	}
	toolErr(t, s.Err(), failure.CodeAuth, 4)
	if gw.conns.Load() != 1 {
		t.Errorf("%d dials", gw.conns.Load())
	}
	if _, err := s.Wait(context.Background()); err == nil {
		t.Error("Wait on a stopped session succeeded")
	}
}

func TestSessionPairingWaitThenRetry(t *testing.T) {
	for _, tc := range []struct {
		details map[string]any
		fatal   bool
	}{
		{map[string]any{"code": "PAIRING_REQUIRED"}, true},
		{map[string]any{"code": "PAIRING_REQUIRED", "recommendedNextStep": "wait_then_retry"}, false},
		{map[string]any{"code": "PAIRING_REQUIRED", "pauseReconnect": false}, false},
	} {
		err := connectToolError(&Options{}, &CallError{Method: "connect", Code: "NOT_PAIRED", Message: "device pairing required", Details: tc.details})
		if got := isFatalConnectError(err); got != tc.fatal {
			t.Errorf("%v: fatal %v", tc.details, got)
		}
	}
}

func TestSessionCtxCancelAndUnreachable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var fails atomic.Int32
	s := Connect(ctx, fastBackoff(Options{URL: "ws://127.0.0.1:1", OnDisconnect: func(err error, _ time.Duration) {
		if failure.AsError(err).Code == failure.CodeUnreachable {
			fails.Add(1)
		}
	}}), nil)
	deadline := time.Now().Add(5 * time.Second)
	for fails.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer wcancel()
	if _, err := s.Wait(wctx); failure.AsError(err).Code != failure.CodeTimeout {
		t.Errorf("Wait = %v", err)
	}
	cancel()
	select {
	case <-s.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("session ignored ctx cancel")
	}
	if fails.Load() < 3 || s.Err() != nil {
		t.Errorf("fails %d err %v", fails.Load(), s.Err())
	}
}

func TestJitterBounds(t *testing.T) {
	for range 1000 {
		if d := jitter(time.Second); d < 800*time.Millisecond || d > 1200*time.Millisecond {
			t.Fatalf("jitter %v", d)
		}
	}
}

func BenchmarkCall(b *testing.B) {
	gw := newFakeGW(b)
	c := dial(b, gw, Options{})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Call(ctx, "health", nil); err != nil {
			b.Fatal(err)
		}
	}
}
