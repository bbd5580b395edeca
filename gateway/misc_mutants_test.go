package gateway

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
)

// These tests pin gateway lines that a one-line mutation (gremlins, `make
// mutate`) could change with every other test still passing (issue 17,
// item 20).

// The raw config text is scrubbed longest secret first: a secret that
// contains another is replaced whole, no tail of it left behind.
func TestRedactRawLongestFirst(t *testing.T) {
	for range 16 { // the secrets come from a map: several orders
		got := redactRaw(`token: "abcdef", other: "abc"`, map[string]bool{"abc": true, "abcdef": true})
		if strings.Contains(got, "def") || strings.Count(got, redactedSentinel) != 2 {
			t.Fatalf("redacted %q", got)
		}
	}
}

// A sentinel with no stored value behind it names its full key path.
func TestRestoreRedactedNamesThePath(t *testing.T) {
	next := map[string]any{"gateway": map[string]any{"auth": map[string]any{"token": redactedSentinel}}}
	_, err := restoreRedacted(next, map[string]any{}, "")
	if err == nil || !strings.HasPrefix(err.Error(), "gateway.auth.token: ") {
		t.Fatalf("error %v, want it to start with gateway.auth.token", err)
	}
	_, err = restoreRedacted(redactedSentinel, nil, "")
	if err == nil || !strings.HasPrefix(err.Error(), "<root>: ") {
		t.Fatalf("root: %v", err)
	}
}

// Closed is open while the connection lives and closed for an unknown id.
func TestConnClosedChannel(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	defer c.close()
	var id string
	ts.s.mu.Lock()
	for k := range ts.s.byID {
		id = k
	}
	ts.s.mu.Unlock()
	cs := connSender{ts.s}
	select {
	case <-cs.Closed(id):
		t.Fatal("a live connection reads as closed")
	default:
	}
	select {
	case <-cs.Closed("no-such-conn"):
	default:
		t.Fatal("an unknown connection does not read as closed")
	}
}

// Idempotency: the params digest ignores key order and spacing; the cache
// holds at most max entries; a retryable failure is not cached (the retry
// runs again), a final one is.
func TestDedupeDigestCapAndRetryable(t *testing.T) {
	if paramsDigest(json.RawMessage(`{"a":1,"b":[1,2]}`)) != paramsDigest(json.RawMessage(`{ "b":[1, 2], "a":1 }`)) {
		t.Error("the same params in another key order digest apart")
	}
	if paramsDigest(json.RawMessage(`{"a":1}`)) == paramsDigest(json.RawMessage(`{"a":2}`)) {
		t.Error("other params digest alike")
	}
	d := newDedupeCache(time.Hour, 2)
	for _, k := range []string{"k1", "k2", "k3"} {
		e, owner := d.begin(k, [32]byte{})
		if !owner {
			t.Fatalf("%s: not the owner", k)
		}
		d.finish(k, e, &protocol.Response{OK: true})
	}
	if len(d.items) != 2 || d.order.Len() != 2 {
		t.Errorf("%d cached, want 2", len(d.items))
	}
	e, _ := d.begin("retry", [32]byte{})
	d.finish("retry", e, errorResponse("1", retryable(protocol.NewError(protocol.ErrUnavailable, "busy", nil))))
	if _, owner := d.begin("retry", [32]byte{}); !owner {
		t.Error("a retryable failure was cached")
	}
	e, _ = d.begin("final", [32]byte{})
	no := false
	final := protocol.NewError(protocol.ErrInvalidRequest, "bad", nil)
	final.Retryable = &no
	d.finish("final", e, errorResponse("1", final))
	if _, owner := d.begin("final", [32]byte{}); owner {
		t.Error("a final (retryable=false) failure was not cached")
	}
}
