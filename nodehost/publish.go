package nodehost

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

// What the original node host publishes on every connection (its
// src/node-host/connection.ts): node.host.stats at once and then every
// 60 s, and the optional inventory methods node.skills.update,
// node.pluginTools.update and node.runnerInventory.update. An inventory
// method the gateway does not know (INVALID_REQUEST "unknown method: X")
// is not sent again on that connection; a transient failure (the surface
// awaiting approval, a restart) is retried with backoff 250 ms..5 s, and
// at once when the gateway resolves a pairing; another refusal is not
// retried for the same params.
const (
	pubRetryInitial = 250 * time.Millisecond
	pubRetryMax     = 5 * time.Second
	pubCallTimeout  = 15 * time.Second
)

type publisher struct {
	h    *Host
	c    *client.Conn
	kick chan struct{}

	statsLogged bool // a stats failure is logged once per connection

	mu    sync.Mutex
	items []*publication
}

type publication struct {
	method, label string
	params        any
	done          bool // published, unsupported or rejected
	lastLogged    string
	delay         time.Duration
	next          time.Time
}

func newPublisher(h *Host, c *client.Conn) *publisher {
	p := &publisher{h: h, c: c, kick: make(chan struct{}, 1)}
	p.items = []*publication{
		{method: "node.runnerInventory.update", label: "runner inventory",
			// The original's exact params: it hosts no workers (enabled false);
			// the original gateway refuses an empty feature list.
			params: map[string]any{"protocolFeatures": []string{"node-worker-supervisor-v6"}, "workerHost": map[string]any{"enabled": false}}},
		{method: "node.skills.update", label: "skill", params: map[string]any{"skills": scanSkills(h)}},
		{method: "node.pluginTools.update", label: "plugin tool", params: map[string]any{"tools": []any{}}},
	}
	for _, it := range p.items {
		it.delay = pubRetryInitial
	}
	h.mu.Lock()
	h.pubs = p
	h.mu.Unlock()
	return p
}

// retryNow makes pending publications try again at once (a pairing was
// resolved).
func (p *publisher) retryNow() {
	p.mu.Lock()
	for _, it := range p.items {
		if !it.done {
			it.next, it.delay = time.Time{}, pubRetryInitial
		}
	}
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// run publishes until the connection ends.
func (p *publisher) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-p.c.Done():
		case <-ctx.Done():
		}
		cancel()
	}()
	stats := time.NewTicker(p.h.opts.StatsInterval)
	defer stats.Stop()
	p.publishStats(ctx)
	for {
		wait := p.publishDue(ctx)
		var t *time.Timer
		var timer <-chan time.Time
		if wait > 0 {
			t = time.NewTimer(wait)
			timer = t.C
		}
		select {
		case <-ctx.Done():
			if t != nil {
				t.Stop()
			}
			return
		case <-stats.C:
			p.publishStats(ctx)
		case <-timer:
		case <-p.kick:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// publishStats sends node.event node.host.stats; a failure is logged once
// per connection, as the original does.
func (p *publisher) publishStats(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, pubCallTimeout)
	defer cancel()
	_, err := p.c.Call(cctx, "node.event", nodeEventParams("node.host.stats", sampleStats()))
	if err != nil && !p.statsLogged && ctx.Err() == nil {
		p.statsLogged = true
		p.h.logf("node host stats publish failed: %v", err)
	}
}

// publishDue sends the publications whose time has come and returns how
// long until the next one is due (0: none pending).
func (p *publisher) publishDue(ctx context.Context) time.Duration {
	p.mu.Lock()
	items := append([]*publication{}, p.items...)
	p.mu.Unlock()
	now := time.Now()
	var next time.Duration
	for _, it := range items {
		p.mu.Lock()
		due := !it.done && !now.Before(it.next)
		params := it.params
		p.mu.Unlock()
		if !due {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, pubCallTimeout)
		_, err := p.c.Call(cctx, it.method, params)
		cancel()
		if ctx.Err() != nil {
			return 0
		}
		p.mu.Lock()
		switch kind := classifyPublishFailure(err, it.method); kind {
		case "":
			it.done = true
		case "unsupported":
			it.done = true
		case "rejected":
			it.done = true
			p.h.logf("node host %s publish failed: %v", it.label, err)
		default:
			if msg := err.Error(); msg != it.lastLogged { // a retried failure is logged once
				it.lastLogged = msg
				p.h.logf("node host %s publish failed: %v; retrying", it.label, err)
			}
			it.next = time.Now().Add(it.delay)
			it.delay = min(it.delay*2, pubRetryMax)
		}
		p.mu.Unlock()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, it := range p.items {
		if it.done {
			continue
		}
		d := time.Until(it.next)
		if d <= 0 {
			d = time.Millisecond
		}
		if next == 0 || d < next {
			next = d
		}
	}
	return next
}

// classifyPublishFailure: "" ok, "unsupported" (a gateway without the
// method), "rejected" (another INVALID_REQUEST), "transient" (retry).
func classifyPublishFailure(err error, method string) string {
	if err == nil {
		return ""
	}
	var ce *client.CallError
	if !errors.As(err, &ce) || ce.Code != protocol.ErrInvalidRequest {
		return "transient"
	}
	if ce.Message == "unknown method: "+method || ce.Message == "unauthorized role: node" {
		return "unsupported"
	}
	return "rejected"
}

// nodeEventParams is node.event's params as the original builds them:
// payloadJSON is the payload's JSON text, or null without a payload.
func nodeEventParams(event string, payload any) map[string]any {
	m := map[string]any{"event": event, "payloadJSON": nil}
	if payload != nil && !(reflect.ValueOf(payload).Kind() == reflect.Map && reflect.ValueOf(payload).IsNil()) {
		if b, err := json.Marshal(payload); err == nil {
			m["payloadJSON"] = string(b)
		}
	}
	return m
}

// sendEvent publishes one node.event on the live connection (best effort,
// as the original's sendNodeEvent).
func (h *Host) sendEvent(ctx context.Context, event string, payload any) {
	c := h.current()
	if c == nil {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pubCallTimeout)
	defer cancel()
	_, _ = c.Call(cctx, "node.event", nodeEventParams(event, payload))
}
