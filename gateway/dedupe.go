package gateway

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
)

// dedupeCache remembers responses by idempotency key (§8.1: 5 min, 1000
// entries) so a retried side effect returns the first result instead of
// running again. A request still running makes the retry wait for it.
//
// Entries are keyed by the caller's identity, the method and the key, and
// remember a digest of the params: another caller re-using a key runs its
// own request (it must never see someone else's result), and the same
// caller re-using a key with other params gets an error, as the original's
// dedupe does ("… idempotency key was reused with different parameters").
type dedupeCache struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	items map[string]*list.Element
	order *list.List // oldest first
}

type dedupeEntry struct {
	key     string
	params  [32]byte
	expires time.Time
	done    chan struct{}
	res     *protocol.Response
}

func newDedupeCache(ttl time.Duration, max int) *dedupeCache {
	return &dedupeCache{ttl: ttl, max: max, items: map[string]*list.Element{}, order: list.New()}
}

// dedupeScope names the authenticated caller a cached result belongs to:
// the device identity when the connection proved one (it survives
// reconnects), else the connection itself.
func dedupeScope(connID string, sess *session) string {
	if sess != nil && sess.deviceID != "" {
		return "device:" + sess.deviceID
	}
	return "conn:" + connID
}

// paramsDigest hashes params in a canonical form (object keys sorted), so
// the same request sent with its keys in another order still matches.
func paramsDigest(params json.RawMessage) [32]byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	if err := dec.Decode(&v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			return sha256.Sum256(b)
		}
	}
	return sha256.Sum256(params)
}

// run answers a request carrying idempotency key idem: a cached or
// in-flight result of the same caller's identical request, an error when
// that key was used with other params, else fn's result (then cached).
func (d *dedupeCache) run(ctx context.Context, scope string, req *protocol.Request, idem string, fn func() *protocol.Response) *protocol.Response {
	key := scope + "\x00" + req.Method + "\x00" + idem
	digest := paramsDigest(req.Params)
	entry, owner := d.begin(key, digest)
	if entry.params != digest {
		return errorResponse(req.ID, protocol.NewError(protocol.ErrInvalidRequest,
			req.Method+" idempotency key was reused with different parameters", nil))
	}
	if !owner {
		select {
		case <-entry.done:
			return entry.response(req.ID)
		case <-ctx.Done():
			return nil
		}
	}
	res := fn()
	d.finish(key, entry, res)
	return res
}

// begin returns the entry for key; owner is true when the caller must run
// the request and call finish.
func (d *dedupeCache) begin(key string, digest [32]byte) (*dedupeEntry, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	for e := d.order.Front(); e != nil; e = d.order.Front() {
		ent := e.Value.(*dedupeEntry)
		if d.order.Len() < d.max && now.Before(ent.expires) {
			break
		}
		d.order.Remove(e)
		delete(d.items, ent.key)
	}
	if e, ok := d.items[key]; ok {
		return e.Value.(*dedupeEntry), false
	}
	ent := &dedupeEntry{key: key, params: digest, expires: now.Add(d.ttl), done: make(chan struct{})}
	d.items[key] = d.order.PushBack(ent)
	return ent, true
}

// finish records the response and wakes waiters. Retryable failures (and a
// vanished client's nil response) are not cached, so a retry runs again.
func (d *dedupeCache) finish(key string, ent *dedupeEntry, res *protocol.Response) {
	cache := res != nil && (res.OK || res.Error == nil || res.Error.Retryable == nil || !*res.Error.Retryable)
	if res == nil {
		res = errorResponse("", retryable(protocol.NewError(protocol.ErrUnavailable, "request was interrupted; retry", nil)))
	}
	d.mu.Lock()
	ent.res = res
	if !cache {
		if e, ok := d.items[key]; ok && e.Value == ent {
			d.order.Remove(e)
			delete(d.items, key)
		}
	}
	d.mu.Unlock()
	close(ent.done)
}

// response is the cached answer re-addressed to another request id.
func (e *dedupeEntry) response(id string) *protocol.Response {
	r := *e.res
	r.ID = id
	return &r
}
