package web

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// cacheService is the name the response cache runs under in the gateway.
// A one-shot CLI process has no use for a cache, so it runs none; the
// gateway keeps one per instance (no package-level state).
const cacheService = "web-cache"

// maxCacheEntries bounds the cache; the oldest insertion goes first.
const maxCacheEntries = 100

func init() {
	tools.RegisterService(tools.ServiceSpec{
		Name: cacheService,
		New:  func(*tools.Env) (tools.Service, error) { return newCache(maxCacheEntries), nil },
	})
}

// Cache holds fetch and search payloads for a TTL, keyed by a lowercased
// key (URL, mode, size; provider and query).
type Cache struct {
	mu    sync.Mutex
	max   int
	items map[string]cacheItem
	order []string // insertion order, oldest first
	now   func() time.Time
}

type cacheItem struct {
	payload map[string]any
	expires time.Time
}

func newCache(n int) *Cache {
	return &Cache{max: n, items: map[string]cacheItem{}, now: time.Now}
}

// Start and Stop make the cache a gateway service.
func (c *Cache) Start(context.Context) error { return nil }
func (c *Cache) Stop(context.Context) error  { return nil }

// get returns a copy of a live entry, marked cached.
func (c *Cache) get(key string) (map[string]any, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[strings.ToLower(key)]
	if !ok || c.now().After(it.expires) {
		return nil, false
	}
	out := make(map[string]any, len(it.payload)+1)
	for k, v := range it.payload {
		out[k] = v
	}
	out["cached"] = true
	return out, true
}

func (c *Cache) put(key string, payload map[string]any, ttl time.Duration) {
	if c == nil || ttl <= 0 {
		return
	}
	key = strings.ToLower(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; !ok {
		c.order = append(c.order, key)
	}
	c.items[key] = cacheItem{payload: payload, expires: c.now().Add(ttl)}
	for len(c.order) > c.max {
		delete(c.items, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *Cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// cacheOf returns the running cache, or nil outside the gateway.
func cacheOf(env *tools.Env) *Cache {
	if env == nil {
		return nil
	}
	if s, ok := env.Services[cacheService]; ok {
		c, _ := s.(*Cache)
		return c
	}
	return nil
}

func ttlMinutes(m float64) time.Duration {
	return time.Duration(m * float64(time.Minute))
}
