package mcpserve

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// EventsLimit is how many events an Events buffer keeps (the original's
// queue limit).
const EventsLimit = 1000

// Events buffers the gateway's chat and agent events, as one kept gateway
// connection delivers them, for events_poll and events_wait: a bounded
// ring, each event numbered by its cursor (1, 2, …, this process's own
// sequence: the gateway's seq restarts with each connection). The events
// are live only and in memory, as the original's.
type Events struct {
	mu    sync.Mutex
	ring  []Event // oldest first, at most limit
	limit int
	last  uint64        // the cursor of the newest event
	more  chan struct{} // closed and replaced on every Add
}

// Event is one buffered gateway event.
type Event struct {
	Cursor     uint64          `json:"cursor"`
	Event      string          `json:"event"`
	SessionKey string          `json:"session_key,omitempty"`
	Payload    json.RawMessage `json:"payload"`
}

// NewEvents returns a buffer keeping the last limit events (<= 0:
// EventsLimit).
func NewEvents(limit int) *Events {
	if limit <= 0 {
		limit = EventsLimit
	}
	return &Events{limit: limit, more: make(chan struct{})}
}

// Add buffers one gateway event when it is a chat or agent event (others
// are dropped).
func (e *Events) Add(event string, payload json.RawMessage) {
	if event != "chat" && event != "agent" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.last++
	e.ring = append(e.ring, Event{Cursor: e.last, Event: event, SessionKey: gjson.GetBytes(payload, "sessionKey").String(),
		Payload: append(json.RawMessage(nil), payload...)})
	if len(e.ring) > e.limit {
		// Reslice, not copy: the next append that outgrows the backing
		// array moves only the live events, so an Add stays O(1) amortised
		// (a copy of the whole ring per event before) and memory stays
		// within about twice the limit.
		e.ring = e.ring[len(e.ring)-e.limit:]
	}
	close(e.more)
	e.more = make(chan struct{})
}

// gap is set when events after the cursor have been dropped from the ring.
type gap struct {
	OldestAvailable uint64 `json:"oldest_available_cursor"`
}

// poll is up to limit events after cursor (of sessionKey when set), the
// next cursor, the gap if any, and the channel closed on the next Add.
func (e *Events) poll(after uint64, sessionKey string, limit int) ([]Event, uint64, *gap, <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var g *gap
	if len(e.ring) > 0 && e.ring[0].Cursor > after+1 {
		g = &gap{OldestAvailable: e.ring[0].Cursor}
	}
	out := []Event{}
	for _, ev := range e.ring {
		if ev.Cursor > after && (sessionKey == "" || ev.SessionKey == sessionKey) && len(out) < limit {
			out = append(out, ev)
		}
	}
	next := after
	switch {
	case len(out) > 0:
		next = out[len(out)-1].Cursor
	case g != nil:
		next = g.OldestAvailable - 1
	}
	return out, next, g, e.more
}

// eventTools are the event tools served when the server has Events.
var eventTools = []struct{ name, description, schema string }{
	{"events_poll", "Poll the OpenClaw Gateway's buffered chat and agent events after a cursor (not consumed); the original's events_poll.",
		`{"type":"object","properties":{"after_cursor":{"type":"integer","minimum":0},"session_key":{"type":"string"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":200}},"additionalProperties":false}`},
	{"events_wait", "Wait up to timeout_ms (default 30000, at most 300000) for the next buffered OpenClaw Gateway chat or agent event after a cursor; the original's events_wait.",
		`{"type":"object","properties":{"after_cursor":{"type":"integer","minimum":0},"session_key":{"type":"string"},` +
			`"timeout_ms":{"type":"integer","minimum":1,"maximum":300000}},"additionalProperties":false}`},
}

// run answers one events_poll or events_wait call.
func (e *Events) run(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	after := gjson.GetBytes(args, "after_cursor").Uint()
	key := gjson.GetBytes(args, "session_key").String()
	if name == "events_poll" {
		limit := 20
		if l := gjson.GetBytes(args, "limit"); l.Exists() {
			limit = int(min(max(l.Int(), 1), 200))
		}
		evs, next, g, _ := e.poll(after, key, limit)
		out := map[string]any{"events": evs, "next_cursor": next}
		if g != nil {
			out["gap"] = g
		}
		return json.Marshal(out)
	}
	timeout := 30 * time.Second
	if t := gjson.GetBytes(args, "timeout_ms"); t.Exists() {
		timeout = time.Duration(min(max(t.Int(), 1), 300_000)) * time.Millisecond
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		evs, _, g, more := e.poll(after, key, 1)
		if len(evs) > 0 || g != nil {
			out := map[string]any{"event": nil}
			if len(evs) > 0 {
				out["event"] = evs[0]
			}
			if g != nil {
				out["gap"] = g
			}
			return json.Marshal(out)
		}
		select {
		case <-more:
		case <-timer.C:
			return json.Marshal(map[string]any{"event": nil, "timeout": true})
		case <-ctx.Done():
			return nil, failure.Errorf(failure.CodeInterrupted, "events_wait: %v", ctx.Err())
		}
	}
}

// withEvents adds the event tools wanted (and not denied) when ev is set.
func withEvents(served []Tool, o Options, ev *Events) []Tool {
	if ev == nil {
		return served
	}
	want, err := o.chosen(tools.ToolNames())
	if err != nil {
		return served
	}
	deny := policy.Policy{Deny: append(slices.Clone(o.DefaultDeny), o.Deny...)}
	for _, et := range eventTools {
		if !want[et.name] || !policy.Matches(deny, et.name) {
			continue
		}
		name := et.name
		served = append(served, Tool{Name: name, Description: et.description, InputSchema: json.RawMessage(et.schema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
			local: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return ev.run(ctx, name, args)
			}})
	}
	sortTools(served)
	return served
}
