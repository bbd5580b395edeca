package gateway

import (
	"testing"
)

// A retry on the same connection returns the cached response; the handler
// runs once.
func TestIdempotencyKey(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	before := counterCalls.Load()
	a := c.call("test.counter", map[string]any{"idempotencyKey": "k-1"})
	b := c.call("test.counter", map[string]any{"idempotencyKey": "k-1"})
	if !a.OK || string(a.Payload) != string(b.Payload) {
		t.Errorf("responses differ: %s vs %s", a.Payload, b.Payload)
	}
	if n := counterCalls.Load() - before; n != 1 {
		t.Errorf("handler ran %d times", n)
	}
	c.call("test.counter", map[string]any{"idempotencyKey": "k-2"})
	if n := counterCalls.Load() - before; n != 2 {
		t.Errorf("new key: handler ran %d times", n)
	}
}

// Issue 6 item 9: another connection re-using a key never receives the first
// caller's result: it is a different caller, so its request runs on its own.
func TestIdempotencyKeyIsPerCaller(t *testing.T) {
	ts := startServer(t, Options{})
	a := dialConnected(t, ts.url)
	b := dialConnected(t, ts.url)
	before := counterCalls.Load()
	ra := a.call("test.counter", map[string]any{"idempotencyKey": "shared"})
	rb := b.call("test.counter", map[string]any{"idempotencyKey": "shared"})
	if !ra.OK || !rb.OK {
		t.Fatalf("calls failed: %+v %+v", ra.Error, rb.Error)
	}
	if string(ra.Payload) == string(rb.Payload) {
		t.Errorf("connection B got connection A's result %s", rb.Payload)
	}
	if n := counterCalls.Load() - before; n != 2 {
		t.Errorf("handler ran %d times, want 2 (one per caller)", n)
	}
}

// A key re-used with different params is an error, never the other result.
func TestIdempotencyKeyDifferentParams(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	before := counterCalls.Load()
	if f := c.call("test.counter", map[string]any{"idempotencyKey": "k", "x": 1}); !f.OK {
		t.Fatalf("first: %+v", f.Error)
	}
	f := c.call("test.counter", map[string]any{"idempotencyKey": "k", "x": 2})
	if f.OK || f.Error == nil || f.Error.Code != "INVALID_REQUEST" || f.Error.Message != "test.counter idempotency key was reused with different parameters" {
		t.Fatalf("re-used key with other params: ok=%v payload=%s err=%+v", f.OK, f.Payload, f.Error)
	}
	// Same params in another key order is the same request.
	g := c.call("test.counter", map[string]any{"x": 1, "idempotencyKey": "k"})
	if !g.OK {
		t.Errorf("same params, other order: %+v", g.Error)
	}
	if n := counterCalls.Load() - before; n != 1 {
		t.Errorf("handler ran %d times", n)
	}
}

func TestDedupeScopeKey(t *testing.T) {
	dev := &session{deviceID: "dev1"}
	if k1, k2 := dedupeScope("c1", dev), dedupeScope("c2", dev); k1 != k2 {
		t.Errorf("one device over two connections: %q vs %q", k1, k2)
	}
	anon := &session{}
	if k1, k2 := dedupeScope("c1", anon), dedupeScope("c2", anon); k1 == k2 {
		t.Errorf("device-less connections share a scope %q", k1)
	}
}
