package nodes

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// ConnReady registers a node connection (tools.ConnWatcher): the node id is
// its device id, its declared surface is compared with the approved one,
// and a new or wider surface becomes a pending request (node.pair.requested)
// while the node keeps only what was approved before. The connection's end
// fails its pending invokes at once.
func (h *hub) ConnReady(info tools.ConnInfo) {
	if info.Role != protocol.RoleNode {
		return
	}
	nodeID := info.DeviceID
	if nodeID == "" {
		nodeID = info.Client.ID
	}
	cfg := h.config()
	caps := normList(info.Caps)
	declared := publicCommands(normList(info.Commands))
	pairable := allowlist(cfg, nodeFacts{platform: info.Client.Platform, deviceFamily: info.Client.DeviceFamily,
		caps: caps, commands: declared}, allowlistOpts{desktopHost: true, dangerous: true})
	commands := intersect(declared, pairable)
	var withheld []string
	for _, c := range declared {
		if !pairable[c] {
			withheld = append(withheld, c)
		}
	}
	now := nowMs()
	ln := &liveNode{info: info, nodeID: nodeID, caps: caps, commands: commands, withheld: withheld,
		perms: maps.Clone(info.Permissions), allDeclared: declared, lastSeenAtMs: now, lastSeenReason: "connect"}
	if h.conns != nil {
		ln.gone = h.conns.Closed(info.ConnID)
	}

	var requested, superseded *pendingRequest
	var replaced *liveNode
	h.mu.Lock()
	if old := h.live[nodeID]; old != nil && old.info.ConnID != info.ConnID {
		// A newer connection of the same node replaces the older one,
		// which is closed below: left open it would be an orphan whose
		// requests all fail "unknown nodeId", and its node host would
		// never reconnect.
		delete(h.byConn, old.info.ConnID)
		replaced = old
	}
	// The node.event budget is the node's, not the connection's: a
	// reconnect does not refill it.
	if h.eventBudget[nodeID] == nil {
		h.eventBudget[nodeID] = rate.NewLimiter(eventRate, eventBurst)
	}
	ln.events = h.eventBudget[nodeID]
	h.live[nodeID] = ln
	h.byConn[info.ConnID] = ln
	rec := h.paired[nodeID]
	need := rec == nil || !subset(commands, rec.Commands) || !subset(caps, rec.Caps) || permsExpand(ln.perms, rec.Permissions)
	cur := h.pendingFor(nodeID)
	switch {
	case need && cur != nil && sameSurface(cur, caps, commands, ln.perms):
		cur.TS, cur.RemoteIP, cur.DisplayName, cur.Version = now, info.RemoteIP, info.Client.DisplayName, info.Client.Version
	case need:
		if cur != nil {
			delete(h.pending, cur.RequestID)
			superseded = cur
		}
		h.prunePendingLocked()
		requested = &pendingRequest{RequestID: uuid.NewString(), NodeID: nodeID, ClientID: info.Client.ID,
			ClientMode: info.Client.Mode, DisplayName: info.Client.DisplayName, Platform: info.Client.Platform,
			Version: info.Client.Version, DeviceFamily: info.Client.DeviceFamily, ModelIdentifier: info.Client.ModelIdentifier,
			Caps: caps, Commands: commands, RequiredApproveScopes: approveScopes(commands), Permissions: maps.Clone(ln.perms),
			RemoteIP: info.RemoteIP, TS: now}
		h.pending[requested.RequestID] = requested
	case cur != nil: // the node no longer asks for more than it has
		delete(h.pending, cur.RequestID)
		superseded = cur
	}
	var save *pairedNode
	if rec != nil {
		rec.LastConnectedAtMs, rec.LastSeenAtMs, rec.LastSeenReason = now, now, "connect"
		rec.RemoteIP = info.RemoteIP
		if info.Client.Version != "" {
			rec.Version = info.Client.Version
		}
		snap := *rec // copied under h.mu: the record keeps changing after Unlock
		save = &snap
	}
	h.mu.Unlock()

	if replaced != nil {
		h.warn("node %s: a new connection replaces the open one (%s); closing the old one", short(nodeID), short(replaced.info.ConnID))
		h.disconnected(replaced) // its pending invokes fail now
		if h.conns != nil {
			h.conns.Close(replaced.info.ConnID, protocol.ClosePolicyViolation, reasonReplaced)
		}
	}
	if superseded != nil {
		h.publish("node.pair.resolved", map[string]any{"requestId": superseded.RequestID, "nodeId": nodeID, "decision": "rejected", "ts": now})
	}
	if requested != nil {
		h.publish("node.pair.requested", requested)
	}
	h.persistLater(nodeID, save)
	if ln.gone != nil {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			select {
			case <-ln.gone:
				h.disconnected(ln)
			case <-h.ctx.Done():
			}
		}()
	}
}

// reasonReplaced is the close reason of a node connection replaced by a
// newer one with the same identity.
const reasonReplaced = "replaced by a newer connection of this node"

// isGone reports that the node's socket has closed (its watcher may not
// have run yet).
func (ln *liveNode) isGone() bool {
	if ln.gone == nil {
		return false
	}
	select {
	case <-ln.gone:
		return true
	default:
		return false
	}
}

// reap forgets now the connections that have closed but whose watcher has
// not run yet, so a reader never lists, describes or invokes a node whose
// socket is gone.
func (h *hub) reap() {
	h.mu.Lock()
	var gone []*liveNode
	for _, ln := range h.live {
		if ln.isGone() {
			gone = append(gone, ln)
		}
	}
	h.mu.Unlock()
	for _, ln := range gone {
		h.disconnected(ln)
	}
}

// disconnected forgets a node connection: its pending invokes fail now
// (the original lets them run into their timeout), and its record keeps
// when it was last seen.
func (h *hub) disconnected(ln *liveNode) {
	now := nowMs()
	h.mu.Lock()
	delete(h.byConn, ln.info.ConnID)
	current := h.live[ln.nodeID] == ln
	if current {
		delete(h.live, ln.nodeID)
	}
	var failed []*invocation
	for id, inv := range h.invokes {
		if inv.connID == ln.info.ConnID {
			delete(h.invokes, id)
			failed = append(failed, inv)
		}
	}
	var save *pairedNode
	if rec := h.paired[ln.nodeID]; rec != nil && current {
		rec.LastDisconnectedAtMs, rec.LastSeenAtMs, rec.LastSeenReason = now, now, "disconnect"
		if ln.hostStats != nil {
			rec.LastHostStats = ln.hostStatsRecord()
		}
		snap := *rec // copied under h.mu: the record keeps changing after Unlock
		save = &snap
	}
	h.mu.Unlock()
	for _, inv := range failed {
		inv.finish(invokeOutcome{disconnected: true, err: &nodeError{Code: "NOT_CONNECTED", Message: "node disconnected before it answered"}})
	}
	h.persistLater(ln.nodeID, save)
}

// pendingFor is the node's pending request (h.mu held).
func (h *hub) pendingFor(nodeID string) *pendingRequest {
	for _, p := range h.pending {
		if p.NodeID == nodeID {
			return p
		}
	}
	return nil
}

// prunePendingLocked makes room for one more request: the oldest of an
// offline node goes first, then the oldest.
func (h *hub) prunePendingLocked() {
	for len(h.pending) >= maxPending {
		var victim *pendingRequest
		for _, p := range h.pending {
			_, online := h.live[p.NodeID]
			vOnline := victim != nil && h.live[victim.NodeID] != nil
			if victim == nil || (!online && vOnline) || (online == vOnline && p.TS < victim.TS) {
				victim = p
			}
		}
		delete(h.pending, victim.RequestID)
		h.pendingDropped++
	}
}

func sameSurface(p *pendingRequest, caps, commands []string, perms map[string]bool) bool {
	return slices.Equal(p.Caps, caps) && slices.Equal(p.Commands, commands) && maps.Equal(nonNilPerms(p.Permissions), nonNilPerms(perms))
}

func nonNilPerms(m map[string]bool) map[string]bool {
	if m == nil {
		return map[string]bool{}
	}
	return m
}

// effective is what a live node may run now: declared ∩ approved ∩ the
// platform allowlist (the current config). h.mu held.
func (h *hub) effective(cfg *config.Config, ln *liveNode) (caps, commands []string, perms map[string]bool) {
	rec := h.paired[ln.nodeID]
	if rec == nil {
		return []string{}, []string{}, nil
	}
	allow := allowlist(cfg, nodeFacts{platform: ln.info.Client.Platform, deviceFamily: ln.info.Client.DeviceFamily,
		caps: ln.caps, commands: ln.commands, approved: rec.Commands}, allowlistOpts{})
	approved := set(rec.Commands)
	commands = []string{}
	for _, c := range ln.commands {
		if approved[c] && allow[c] {
			commands = append(commands, c)
		}
	}
	caps = intersect(ln.caps, set(rec.Caps))
	if len(ln.perms) > 0 {
		perms = map[string]bool{}
		for k, v := range ln.perms {
			perms[k] = v && rec.Permissions[k]
		}
	}
	return caps, commands, perms
}

// hostStatsRecord is the host stats with the time they were received, as
// the original keeps them (updatedAtMs).
func (ln *liveNode) hostStatsRecord() json.RawMessage {
	var m map[string]any
	if json.Unmarshal(ln.hostStats, &m) != nil || m == nil {
		return nil
	}
	m["updatedAtMs"] = ln.hostStatsAtMs
	b, _ := json.Marshal(m)
	return b
}

// nodeEntry is one node.list row (spec §5.2 Node).
type nodeEntry struct {
	NodeID               string          `json:"nodeId"`
	DisplayName          string          `json:"displayName,omitempty"`
	Platform             string          `json:"platform,omitempty"`
	Version              string          `json:"version,omitempty"`
	ClientID             string          `json:"clientId,omitempty"`
	ClientMode           string          `json:"clientMode,omitempty"`
	DeviceFamily         string          `json:"deviceFamily,omitempty"`
	ModelIdentifier      string          `json:"modelIdentifier,omitempty"`
	RemoteIP             string          `json:"remoteIp,omitempty"`
	Caps                 []string        `json:"caps"`
	Commands             []string        `json:"commands"`
	HostStats            json.RawMessage `json:"hostStats,omitempty"`
	NodePluginTools      json.RawMessage `json:"nodePluginTools,omitempty"`
	NodeSkills           json.RawMessage `json:"nodeSkills,omitempty"`
	RunnerInventory      json.RawMessage `json:"runnerInventory,omitempty"`
	PathEnv              string          `json:"pathEnv,omitempty"`
	Permissions          map[string]bool `json:"permissions,omitempty"`
	ApprovalState        string          `json:"approvalState"`
	PendingRequestID     string          `json:"pendingRequestId,omitempty"`
	DeclaredCommands     []string        `json:"declaredCommands,omitempty"`
	WithheldCommands     []string        `json:"withheldCommands,omitempty"`
	ConnectedAtMs        int64           `json:"connectedAtMs,omitempty"`
	LastConnectedAtMs    int64           `json:"lastConnectedAtMs,omitempty"`
	LastDisconnectedAtMs int64           `json:"lastDisconnectedAtMs,omitempty"`
	LastSeenAtMs         int64           `json:"lastSeenAtMs,omitempty"`
	LastSeenReason       string          `json:"lastSeenReason,omitempty"`
	ApprovedAtMs         int64           `json:"approvedAtMs,omitempty"`
	DroppedEvents        int64           `json:"droppedEvents,omitempty"` // node.event over the rate limit on this connection
	Paired               bool            `json:"paired"`
	Connected            bool            `json:"connected"`
}

// entries builds the node catalog: every paired, pending or connected
// node, connected first, then by name. withPending shows the pending
// request and the declared surface (callers who may read pairing).
func (h *hub) entries(cfg *config.Config, only string, withPending bool) []nodeEntry {
	h.reap()
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := map[string]bool{}
	for id := range h.paired {
		ids[id] = true
	}
	for id := range h.live {
		ids[id] = true
	}
	for _, p := range h.pending {
		ids[p.NodeID] = true
	}
	if only != "" {
		if !ids[only] {
			return nil
		}
		ids = map[string]bool{only: true}
	}
	out := make([]nodeEntry, 0, len(ids))
	for id := range ids {
		out = append(out, h.entryLocked(cfg, id, withPending))
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Connected != b.Connected {
			return a.Connected
		}
		an, bn := strings.ToLower(first(a.DisplayName, a.NodeID)), strings.ToLower(first(b.DisplayName, b.NodeID))
		if an != bn {
			return an < bn
		}
		return a.NodeID < b.NodeID
	})
	return out
}

func (h *hub) entryLocked(cfg *config.Config, id string, withPending bool) nodeEntry {
	rec, ln, pend := h.paired[id], h.live[id], h.pendingFor(id)
	e := nodeEntry{NodeID: id, Caps: []string{}, Commands: []string{}}
	if rec != nil {
		e.DisplayName, e.Platform, e.Version = rec.DisplayName, rec.Platform, rec.Version
		e.ClientID, e.ClientMode, e.DeviceFamily, e.ModelIdentifier = rec.ClientID, rec.ClientMode, rec.DeviceFamily, rec.ModelIdentifier
		e.RemoteIP, e.ApprovedAtMs = rec.RemoteIP, rec.ApprovedAtMs
		e.LastConnectedAtMs, e.LastSeenAtMs, e.LastSeenReason = rec.LastConnectedAtMs, rec.LastSeenAtMs, rec.LastSeenReason
		e.Caps, e.Commands, e.Permissions = normList(rec.Caps), publicCommands(normList(rec.Commands)), rec.Permissions
		if ln == nil {
			e.LastDisconnectedAtMs, e.HostStats = rec.LastDisconnectedAtMs, rec.LastHostStats
		}
		e.Paired = true
	}
	if ln == nil && rec == nil && pend != nil {
		e.DisplayName, e.Platform, e.Version = pend.DisplayName, pend.Platform, pend.Version
		e.ClientID, e.ClientMode, e.DeviceFamily = pend.ClientID, pend.ClientMode, pend.DeviceFamily
		e.ModelIdentifier, e.RemoteIP = pend.ModelIdentifier, pend.RemoteIP
	}
	if ln != nil {
		c := ln.info.Client
		e.DisplayName = first(e.DisplayName, c.DisplayName)
		e.Platform, e.Version = first(c.Platform, e.Platform), first(c.Version, e.Version)
		e.ClientID, e.ClientMode = c.ID, c.Mode
		e.DeviceFamily, e.ModelIdentifier = first(c.DeviceFamily, e.DeviceFamily), first(c.ModelIdentifier, e.ModelIdentifier)
		e.RemoteIP, e.PathEnv = ln.info.RemoteIP, ln.info.PathEnv
		e.Caps, e.Commands, e.Permissions = h.effective(cfg, ln)
		e.HostStats = ln.hostStatsRecord()
		e.NodePluginTools, e.NodeSkills, e.RunnerInventory = ln.pluginTools, ln.skills, ln.runnerInventory
		e.ConnectedAtMs = ln.info.ConnectedAtMs
		e.LastConnectedAtMs = max(e.LastConnectedAtMs, ln.info.ConnectedAtMs)
		if ln.lastSeenAtMs >= e.LastSeenAtMs {
			e.LastSeenAtMs, e.LastSeenReason = ln.lastSeenAtMs, ln.lastSeenReason
		}
		e.Connected, e.Paired = true, true // a node connects only with a paired device
		e.DroppedEvents = ln.droppedEvents
		if withPending {
			e.DeclaredCommands, e.WithheldCommands = ln.allDeclared, ln.withheld
		}
	}
	switch {
	case pend != nil && rec != nil:
		e.ApprovalState = "pending-reapproval"
	case pend != nil:
		e.ApprovalState = "pending-approval"
	case rec != nil:
		e.ApprovalState = "approved"
	default:
		e.ApprovalState = "unapproved"
	}
	if pend != nil && withPending {
		e.PendingRequestID = pend.RequestID
	}
	return e
}

func first(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
