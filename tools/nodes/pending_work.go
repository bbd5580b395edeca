package nodes

import (
	"sort"

	"github.com/google/uuid"
)

// Queued node work, as the original's node-pending-work.ts and
// nodes.pending.ts: operators enqueue status or location requests for a
// node (node.pending.enqueue), the node drains them (node.pending.drain,
// which always includes a baseline status request); and the gateway's own
// queue of deferred invokes the node pulls and acknowledges
// (node.pending.pull/ack). This gateway defers no invokes (it wakes no
// phones), so that queue stays empty unless something puts actions there.

const (
	baselineStatusID    = "baseline-status"
	defaultWorkTTL      = 24 * 60 * 60 * 1000 // ms
	defaultDrainItems   = 4
	maxDrainItems       = 10
	maxWorkItemsPerNode = 32
)

// workItem is one queued request (NodePendingDrainItemSchema).
type workItem struct {
	ID          string         `json:"id"`
	Type        string         `json:"type"`
	Priority    string         `json:"priority"`
	CreatedAtMs int64          `json:"createdAtMs"`
	ExpiresAtMs *int64         `json:"expiresAtMs"`
	Payload     map[string]any `json:"payload,omitempty"`
}

type workQueue struct {
	revision int64
	items    map[string]*workItem
}

// pendingAction is one deferred invoke (node.pending.pull).
type pendingAction struct {
	ID           string  `json:"id"`
	Command      string  `json:"command"`
	ParamsJSON   *string `json:"paramsJSON"`
	EnqueuedAtMs int64   `json:"enqueuedAtMs"`
}

var priorityRank = map[string]int{"high": 3, "normal": 2, "default": 1}

// pruneLocked drops expired items (h.mu held).
func (q *workQueue) pruneLocked(now int64) {
	changed := false
	for id, it := range q.items {
		if it.ExpiresAtMs != nil && *it.ExpiresAtMs <= now {
			delete(q.items, id)
			changed = true
		}
	}
	if changed {
		q.revision++
	}
}

func (q *workQueue) sorted() []*workItem {
	out := make([]*workItem, 0, len(q.items))
	for _, it := range q.items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if priorityRank[a.Priority] != priorityRank[b.Priority] {
			return priorityRank[a.Priority] > priorityRank[b.Priority]
		}
		if a.CreatedAtMs != b.CreatedAtMs {
			return a.CreatedAtMs < b.CreatedAtMs
		}
		return a.ID < b.ID
	})
	return out
}

// enqueue adds a work item for a node (one per type: a second is deduped).
func (h *hub) enqueue(nodeID, typ, priority string, expiresInMs int64) (revision int64, item workItem) {
	now := nowMs()
	h.mu.Lock()
	defer h.mu.Unlock()
	q := h.work[nodeID]
	if q == nil {
		q = &workQueue{items: map[string]*workItem{}}
		h.work[nodeID] = q
	}
	q.pruneLocked(now)
	for _, it := range q.items {
		if it.Type == typ {
			return q.revision, *it
		}
	}
	if priority == "" {
		priority = "normal"
	}
	ttl := int64(defaultWorkTTL)
	if expiresInMs > 0 {
		ttl = max(1000, expiresInMs)
	}
	exp := now + ttl
	it := &workItem{ID: uuid.NewString(), Type: typ, Priority: priority, CreatedAtMs: now, ExpiresAtMs: &exp}
	if len(q.items) >= maxWorkItemsPerNode {
		oldest := q.sorted()[len(q.items)-1]
		delete(q.items, oldest.ID)
	}
	q.items[it.ID] = it
	q.revision++
	return q.revision, *it
}

// drain hands the node up to maxItems of its queued work, plus the
// baseline status request.
func (h *hub) drain(nodeID string, maxItems int) map[string]any {
	now := nowMs()
	if maxItems <= 0 {
		maxItems = defaultDrainItems
	}
	maxItems = min(maxItems, maxDrainItems)
	h.mu.Lock()
	defer h.mu.Unlock()
	q := h.work[nodeID]
	var explicit []*workItem
	var revision int64
	if q != nil {
		q.pruneLocked(now)
		explicit = q.sorted()
		revision = q.revision
	}
	items := []workItem{}
	hasStatus := false
	for _, it := range explicit {
		hasStatus = hasStatus || it.Type == "status.request"
		if len(items) < maxItems {
			items = append(items, *it)
		}
	}
	baseline := !hasStatus
	if baseline && len(items) < maxItems {
		items = append(items, workItem{ID: baselineStatusID, Type: "status.request", Priority: "default", CreatedAtMs: now})
	}
	returned := 0
	baselineIn := false
	for _, it := range items {
		if it.ID == baselineStatusID {
			baselineIn = true
			continue
		}
		returned++
		delete(q.items, it.ID)
	}
	if returned > 0 {
		q.revision++
		revision = q.revision
		if len(q.items) == 0 {
			delete(h.work, nodeID)
		}
	}
	return map[string]any{"nodeId": nodeID, "revision": revision, "items": items,
		"hasMore": len(explicit) > returned || (baseline && !baselineIn)}
}

// pullActions lists the node's deferred invokes.
func (h *hub) pullActions(nodeID string) []pendingAction {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := append([]pendingAction{}, h.actions[nodeID]...)
	return out
}

// ackActions removes acknowledged actions and says how many remain.
func (h *hub) ackActions(nodeID string, ids []string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	drop := set(ids)
	kept := h.actions[nodeID][:0]
	for _, a := range h.actions[nodeID] {
		if !drop[a.ID] {
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 {
		delete(h.actions, nodeID)
	} else {
		h.actions[nodeID] = kept
	}
	return len(kept)
}
