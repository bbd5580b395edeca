// Package nodes is the nodes family: the gateway's registry of connected
// node hosts (keyed by device id), their two-stage pairing (the device is
// admitted by device pairing, its command surface by node.pair.*), the
// node.* methods the original's operators and node hosts call, node.invoke
// routed to one node connection, and the `nodes` agent tool and CLI.
package nodes

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

var hubKey = tools.NewServiceKey[*hub]("nodes")

func init() {
	spec := hubKey.Spec(newHub)
	spec.Migrations = []tools.Migration{{Version: 1, Name: "paired nodes", Up: tools.ExecMigration(
		`CREATE TABLE nodes_paired (
			node_id TEXT PRIMARY KEY,
			record TEXT NOT NULL,
			updated_at_ms INTEGER NOT NULL
		)`)}}
	tools.RegisterService(spec)
}

// Limits that keep a node's reports and the queues bounded.
const (
	maxReportBytes = 512 << 10 // one skills/pluginTools/runnerInventory report
	defaultInvoke  = 30 * time.Second
	maxInvoke      = 24 * time.Hour
	// node.event per node, kept across its reconnects: a token bucket
	// (eventRate a second, eventBurst at once); the excess is dropped,
	// counted and warned of at most once per dropWarnEvery. A node host
	// sends stats once a minute and a few exec events per command.
	eventRate     = 20
	eventBurst    = 100
	dropWarnEvery = 10 * time.Second
	// statsFlushEvery: a node's host stats reach the store at most this
	// often (the last ones; its disconnect writes them too).
	statsFlushEvery = 10 * time.Second
)

// maxPending is how many pending surface requests are kept in all (one
// per node); a var so a test can lower it.
var maxPending = 256

// pairedNode is a node's approved command surface and what the gateway
// remembers of it while it is offline (node.pair.list paired[]). It is the
// row persisted in nodes_paired, as JSON.
type pairedNode struct {
	NodeID               string          `json:"nodeId"`
	ClientID             string          `json:"clientId,omitempty"`
	ClientMode           string          `json:"clientMode,omitempty"`
	DisplayName          string          `json:"displayName,omitempty"`
	Platform             string          `json:"platform,omitempty"`
	Version              string          `json:"version,omitempty"`
	DeviceFamily         string          `json:"deviceFamily,omitempty"`
	ModelIdentifier      string          `json:"modelIdentifier,omitempty"`
	Caps                 []string        `json:"caps"`
	Commands             []string        `json:"commands"`
	Permissions          map[string]bool `json:"permissions,omitempty"`
	RemoteIP             string          `json:"remoteIp,omitempty"`
	CreatedAtMs          int64           `json:"createdAtMs"`
	ApprovedAtMs         int64           `json:"approvedAtMs"`
	LastConnectedAtMs    int64           `json:"lastConnectedAtMs,omitempty"`
	LastDisconnectedAtMs int64           `json:"lastDisconnectedAtMs,omitempty"`
	LastHostStats        json.RawMessage `json:"lastHostStats,omitempty"`
	LastSeenAtMs         int64           `json:"lastSeenAtMs,omitempty"`
	LastSeenReason       string          `json:"lastSeenReason,omitempty"`
}

// pendingRequest is a node's declared surface waiting for an operator
// (node.pair.list pending[], event node.pair.requested).
type pendingRequest struct {
	RequestID             string          `json:"requestId"`
	NodeID                string          `json:"nodeId"`
	ClientID              string          `json:"clientId,omitempty"`
	ClientMode            string          `json:"clientMode,omitempty"`
	DisplayName           string          `json:"displayName,omitempty"`
	Platform              string          `json:"platform,omitempty"`
	Version               string          `json:"version,omitempty"`
	DeviceFamily          string          `json:"deviceFamily,omitempty"`
	ModelIdentifier       string          `json:"modelIdentifier,omitempty"`
	Caps                  []string        `json:"caps"`
	Commands              []string        `json:"commands"`
	RequiredApproveScopes []string        `json:"requiredApproveScopes"`
	Permissions           map[string]bool `json:"permissions,omitempty"`
	RemoteIP              string          `json:"remoteIp,omitempty"`
	Silent                bool            `json:"silent"`
	TS                    int64           `json:"ts"`
}

// liveNode is a node's current connection and what it reported on it.
type liveNode struct {
	info   tools.ConnInfo
	nodeID string
	// declared surface, normalized; commands already filtered by the
	// pairing allowlist (withheld holds the rest).
	caps, commands, withheld []string
	perms                    map[string]bool
	allDeclared              []string

	hostStats       json.RawMessage
	hostStatsAtMs   int64
	skills          json.RawMessage
	pluginTools     json.RawMessage
	runnerInventory json.RawMessage
	lastSeenAtMs    int64
	lastSeenReason  string
	gone            <-chan struct{}

	events        *rate.Limiter // node.event budget
	droppedEvents int64         // node.event over the budget (h.mu)
	lastDropWarn  time.Time     // (h.mu)
}

// hub is the nodes service.
type hub struct {
	db     *sql.DB
	events tools.Events
	conns  tools.Conns
	warn   func(format string, args ...any)
	cfg    atomic.Pointer[config.Config]

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	writeMu sync.Mutex // orders store writes

	mu       sync.Mutex
	paired   map[string]*pairedNode
	pending  map[string]*pendingRequest // by requestId
	live     map[string]*liveNode       // by nodeId: the current connection
	byConn   map[string]*liveNode       // by connection id
	invokes  map[string]*invocation     // by invoke id
	actions  map[string][]pendingAction // node.pending.pull queue, by nodeId
	work     map[string]*workQueue      // node.pending.enqueue/drain, by nodeId
	consumed map[string]int64           // allow-once approvals spent on system.run, by id → expiry
	// statsFlush holds the nodes whose host stats wait to be written.
	statsFlush map[string]bool
	// pendingDropped counts pending requests pushed out by maxPending.
	pendingDropped int64
	// eventBudget is each node's node.event token bucket, by nodeId (one
	// per device that ever connected as a node).
	eventBudget map[string]*rate.Limiter
}

func newHub(env *tools.Env) (*hub, error) {
	h := &hub{events: env.Events, conns: env.Conns,
		paired: map[string]*pairedNode{}, pending: map[string]*pendingRequest{},
		live: map[string]*liveNode{}, byConn: map[string]*liveNode{}, invokes: map[string]*invocation{},
		actions: map[string][]pendingAction{}, work: map[string]*workQueue{}, consumed: map[string]int64{},
		statsFlush: map[string]bool{}, eventBudget: map[string]*rate.Limiter{}}
	h.warn = func(format string, args ...any) {
		if env.Warn != nil {
			fmt.Fprintf(env.Warn, "nodes: "+format+"\n", args...)
		}
	}
	h.cfg.Store(env.Config)
	if env.Store != nil {
		h.db = env.Store.DB()
	}
	return h, nil
}

// Start loads the paired nodes.
func (h *hub) Start(ctx context.Context) error {
	h.ctx, h.cancel = context.WithCancel(context.Background())
	if h.db == nil {
		return nil
	}
	rows, err := h.db.QueryContext(ctx, `SELECT node_id, record FROM nodes_paired`)
	if err != nil {
		return fmt.Errorf("load paired nodes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, rec string
		if err := rows.Scan(&id, &rec); err != nil {
			return fmt.Errorf("load paired nodes: %w", err)
		}
		var p pairedNode
		if err := json.Unmarshal([]byte(rec), &p); err != nil {
			h.warn("paired node %s: unreadable record skipped: %v", short(id), err)
			continue
		}
		p.NodeID = id
		h.paired[id] = &p
	}
	return rows.Err()
}

// Stop fails every pending invoke (the gateway is going away) and waits
// for the connection watchers.
func (h *hub) Stop(ctx context.Context) error {
	if h.cancel != nil {
		h.cancel()
	}
	h.mu.Lock()
	for id, inv := range h.invokes {
		delete(h.invokes, id)
		inv.finish(invokeOutcome{err: &nodeError{Code: "UNAVAILABLE", Message: "gateway stopping"}})
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// noteConfig keeps the newest config a handler saw, for work that runs
// outside a request (a node's connect).
func (h *hub) noteConfig(env *tools.Env) {
	if env != nil && env.Config != nil {
		h.cfg.Store(env.Config)
	}
}

func (h *hub) config() *config.Config {
	if c := h.cfg.Load(); c != nil {
		return c
	}
	return config.Empty()
}

// persist writes one paired record (nil: deletes it). Writes are ordered;
// the record is a copy taken under h.mu.
func (h *hub) persist(id string, rec *pairedNode) error {
	if h.db == nil {
		return nil
	}
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if rec == nil {
		if _, err := h.db.ExecContext(ctx, `DELETE FROM nodes_paired WHERE node_id = ?`, id); err != nil {
			return fmt.Errorf("remove paired node %s: %w", short(id), err)
		}
		return nil
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode paired node %s: %w", short(id), err)
	}
	_, err = h.db.ExecContext(ctx, `INSERT INTO nodes_paired (node_id, record, updated_at_ms) VALUES (?, ?, ?)
		ON CONFLICT(node_id) DO UPDATE SET record = excluded.record, updated_at_ms = excluded.updated_at_ms`,
		id, string(b), time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("save paired node %s: %w", short(id), err)
	}
	return nil
}

// persistLater writes a record without holding up the caller (host stats,
// connect and disconnect times); a failure is logged. rec is the caller's
// own copy, taken while it held h.mu.
func (h *hub) persistLater(id string, rec *pairedNode) {
	if h.db == nil || rec == nil {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		if err := h.persist(id, rec); err != nil {
			h.warn("%v", err)
		}
	}()
}

func (h *hub) publish(event string, payload any) {
	if h.events != nil {
		if err := h.events.Publish(event, payload); err != nil {
			h.warn("%v", err)
		}
	}
}

// hubOf returns the running nodes service or an UNREACHABLE error (exit 5).
func hubOf(env *tools.Env, what string) (*hub, error) {
	h, err := hubKey.From(env, what)
	if err != nil {
		return nil, err
	}
	h.noteConfig(env)
	return h, nil
}

// callerNode is the node a node-role request comes from: the one
// registered on the calling connection.
func (h *hub) callerNode(env *tools.Env) (*liveNode, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ln := h.byConn[env.ConnID]; ln != nil {
		return ln, nil
	}
	return nil, errUnknownNode
}

var errUnknownNode = errors.New("unknown nodeId")

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func nowMs() int64 { return time.Now().UnixMilli() }
