package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// eventParams are node.event's params: payload, or payloadJSON (a string,
// null when the node has none).
type eventParams struct {
	Event       string          `json:"event"`
	Payload     json.RawMessage `json:"payload"`
	PayloadJSON *string         `json:"payloadJSON"`
}

// hostStats is node.host.stats' payload (NodeHostStatsPayloadSchema).
type hostStats struct {
	CPUCount           *int64    `json:"cpuCount"`
	LoadAverage        []float64 `json:"loadAverage,omitempty"`
	MemoryTotalBytes   *int64    `json:"memoryTotalBytes"`
	MemoryFreeBytes    *int64    `json:"memoryFreeBytes"`
	DiskTotalBytes     *int64    `json:"diskTotalBytes,omitempty"`
	DiskAvailableBytes *int64    `json:"diskAvailableBytes,omitempty"`
}

func (s hostStats) check() error {
	switch {
	case s.CPUCount == nil || *s.CPUCount < 1 || *s.CPUCount > 4096:
		return fmt.Errorf("cpuCount must be an integer from 1 to 4096")
	case s.MemoryTotalBytes == nil || *s.MemoryTotalBytes < 0, s.MemoryFreeBytes == nil || *s.MemoryFreeBytes < 0:
		return fmt.Errorf("memoryTotalBytes and memoryFreeBytes are required non-negative integers")
	case *s.MemoryFreeBytes > *s.MemoryTotalBytes:
		return fmt.Errorf("free resources must not exceed totals and disk values must be paired")
	case (s.DiskTotalBytes == nil) != (s.DiskAvailableBytes == nil):
		return fmt.Errorf("free resources must not exceed totals and disk values must be paired")
	case s.DiskTotalBytes != nil && (*s.DiskAvailableBytes > *s.DiskTotalBytes || *s.DiskAvailableBytes < 0):
		return fmt.Errorf("free resources must not exceed totals and disk values must be paired")
	case s.LoadAverage != nil && len(s.LoadAverage) != 3:
		return fmt.Errorf("loadAverage must hold three numbers")
	}
	for _, l := range s.LoadAverage {
		if l < 0 || l > 1e5 {
			return fmt.Errorf("loadAverage values must be from 0 to 100000")
		}
	}
	return nil
}

// eventMethod handles node.event: host stats are kept (and saved on the
// paired record, so an offline node shows its last ones), presence
// refreshes last-seen, exec.* events are matched to the system.run they
// belong to. Answer {ok, event, handled, reason?}.
func eventMethod(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	var p eventParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid node.event params: %v", err)
	}
	h, ln, err := callerHub(env, "node.event")
	if err != nil {
		return nil, err
	}
	payload := p.Payload
	if p.PayloadJSON != nil && strings.TrimSpace(*p.PayloadJSON) != "" {
		payload = json.RawMessage(*p.PayloadJSON)
		if !json.Valid(payload) {
			return nil, tools.Errorf(protocol.ErrInvalidRequest, "node.event payloadJSON is not JSON")
		}
	}
	answer := func(handled bool, reason string) eventAnswer {
		return eventAnswer{OK: true, Event: p.Event, Handled: handled, Reason: reason}
	}
	if !h.allowEvent(ln) {
		return answer(false, "rate_limited"), nil
	}
	switch p.Event {
	case "node.host.stats":
		var s hostStats
		dec := json.NewDecoder(strings.NewReader(string(payload)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, tools.Errorf(protocol.ErrInvalidRequest, "invalid node.host.stats payload: %v", err)
		}
		if err := s.check(); err != nil {
			return nil, tools.Errorf(protocol.ErrInvalidRequest, "invalid node.host.stats payload: %v", err)
		}
		now := nowMs()
		h.mu.Lock()
		ln.hostStats, ln.hostStatsAtMs = append(json.RawMessage(nil), payload...), now
		ln.lastSeenAtMs, ln.lastSeenReason = now, "host-stats"
		rec := h.paired[ln.nodeID]
		save := rec != nil && h.live[ln.nodeID] == ln
		if save {
			rec.LastHostStats = ln.hostStatsRecord()
		}
		stats := ln.hostStatsRecord()
		h.mu.Unlock()
		if save {
			h.flushStatsLater(ln.nodeID)
		}
		h.publish("node.hostStats", map[string]any{"nodeId": ln.nodeID, "hostStats": stats})
		return answer(true, ""), nil
	case "node.presence.alive", "node.presence.activity":
		h.touch(ln, strings.TrimPrefix(p.Event, "node.presence."))
		return answer(true, ""), nil
	case "exec.started", "exec.finished", "exec.denied":
		var e struct {
			RunID string `json:"runId"`
		}
		_ = json.Unmarshal(payload, &e)
		h.touch(ln, "exec")
		if e.RunID != "" && h.runningSystemRun(env.ConnID, e.RunID) {
			return answer(true, ""), nil
		}
		return answer(false, "unmatched_exec_event"), nil
	}
	h.touch(ln, "event")
	return answer(false, "unsupported_event"), nil
}

// eventAnswer is node.event's result (NodeEventResultSchema).
type eventAnswer struct {
	OK      bool   `json:"ok"`
	Event   string `json:"event"`
	Handled bool   `json:"handled"`
	Reason  string `json:"reason,omitempty"`
}

// runningSystemRun reports a pending system.run on that connection with
// that runId.
func (h *hub) runningSystemRun(connID, runID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, inv := range h.invokes {
		if inv.connID == connID && inv.command == "system.run" && inv.runID == runID {
			return true
		}
	}
	return false
}

// allowEvent spends one of the node's node.event tokens; an event over
// the budget is counted (node.list droppedEvents) and warned of, at most
// once per dropWarnEvery.
func (h *hub) allowEvent(ln *liveNode) bool {
	if ln.events == nil || ln.events.Allow() {
		return true
	}
	now := time.Now()
	h.mu.Lock()
	ln.droppedEvents++
	n := ln.droppedEvents
	warn := now.Sub(ln.lastDropWarn) >= dropWarnEvery
	if warn {
		ln.lastDropWarn = now
	}
	h.mu.Unlock()
	if warn {
		h.warn("node %s: node.event over the rate limit (%d a second, %d at once): %d dropped on this connection so far",
			short(ln.nodeID), eventRate, eventBurst, n)
	}
	return false
}

// flushStatsLater writes the node's record (its last host stats) once,
// statsFlushEvery from now, however many stats arrive meanwhile: one
// writer per node instead of a goroutine and a write per event.
func (h *hub) flushStatsLater(id string) {
	if h.db == nil {
		return
	}
	h.mu.Lock()
	if h.statsFlush[id] {
		h.mu.Unlock()
		return
	}
	h.statsFlush[id] = true
	h.mu.Unlock()
	stop := h.ctx
	if stop == nil {
		stop = context.Background()
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTimer(statsFlushEvery)
		defer t.Stop()
		select {
		case <-t.C:
		case <-stop.Done(): // stopping: write them now
		}
		h.mu.Lock()
		delete(h.statsFlush, id)
		var save *pairedNode
		if rec := h.paired[id]; rec != nil {
			snap := *rec // copied under h.mu: the record keeps changing after Unlock
			save = &snap
		}
		h.mu.Unlock()
		if save != nil {
			if err := h.persist(id, save); err != nil {
				h.warn("%v", err)
			}
		}
	}()
}
