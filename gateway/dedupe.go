package gateway

import (
	"container/list"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
)

// dedupeCache remembers responses by idempotency key (§8.1: 5 min, 1000
// entries) so a retried side effect returns the first result instead of
// running again. A request still running makes the retry wait for it.
type dedupeCache struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	items map[string]*list.Element
	order *list.List // oldest first
}

type dedupeEntry struct {
	key     string
	expires time.Time
	done    chan struct{}
	res     *protocol.Response
}

func newDedupeCache(ttl time.Duration, max int) *dedupeCache {
	return &dedupeCache{ttl: ttl, max: max, items: map[string]*list.Element{}, order: list.New()}
}

// begin returns the entry for key; owner is true when the caller must run
// the request and call finish.
func (d *dedupeCache) begin(key string) (*dedupeEntry, bool) {
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
	ent := &dedupeEntry{key: key, expires: now.Add(d.ttl), done: make(chan struct{})}
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
