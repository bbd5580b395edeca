package tools

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/openclaw-go/openclaw/mediaref"
)

// The typed services a handler may need beyond one request and one
// response. Whoever runs the action provides what it has on the Env: the
// gateway provides all of them, the CLI what it can. A handler asks for one
// through Env.NeedX, which fails with exit 5 and the hint to start
// `openclaw serve` when the caller lacks it. Families never import gateway/.

// Sink receives progress and events from a running action. On the CLI it
// drives a progress line on a TTY (or NDJSON with --stream), on the gateway
// event frames to the caller. Env.Progress and Env.Event are nil-safe.
type Sink interface {
	// Progress reports done of total units; total < 0 means unknown.
	Progress(msg string, done, total int64)
	// Event reports a named event with a JSON-encodable payload.
	Event(name string, payload any)
}

// Job statuses.
const (
	JobRunning   = "running"
	JobOK        = "ok"
	JobError     = "error"
	JobCancelled = "cancelled"
	// JobInterrupted: the gateway stopped (or was killed) while it ran.
	JobInterrupted = "interrupted"
)

// JobSpec is work that outlives its request (background exec, agent runs,
// cron runs). Run gets a gateway-lifetime context, cancelled only by
// Jobs.Cancel or gateway shutdown, and a sink that reports through events.
type JobSpec struct {
	Kind  string // "exec", "agent", "cron", ...
	Owner string // who started it (session key, connection id), for listing
	Run   func(ctx context.Context, sink Sink) (any, error)
}

// JobInfo is a job's state. Result is the encoded result once Status is ok.
type JobInfo struct {
	ID        string          `json:"id"`
	Kind      string          `json:"kind"`
	Owner     string          `json:"owner,omitempty"`
	Status    string          `json:"status"` // running|ok|error|cancelled|interrupted
	StartedAt time.Time       `json:"startedAt"`
	EndedAt   time.Time       `json:"endedAt,omitzero"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
}

// Jobs runs and tracks long-running work by id.
type Jobs interface {
	Start(spec JobSpec) (JobInfo, error)
	Cancel(id string) error
	Get(id string) (JobInfo, bool)
	List() []JobInfo
}

// MediaRef points at bytes stored under the state dir's media/ instead of
// base64 inlined into a result. Agent text refers to it as MEDIA:<path>.
// The type lives in the leaf mediaref, so the media store need not import
// tools.
type MediaRef = mediaref.Ref

// Media stores result files (screenshots, PDFs, clips).
type Media interface {
	Save(ctx context.Context, r io.Reader, mimeType, nameHint string) (MediaRef, error)
}

// Store is the one SQLite database in the state dir, opened once.
type Store interface {
	DB() *sql.DB
}

// Events publishes gateway events to the connections allowed to see them.
// An event without a scope guard is refused (an error), not delivered.
type Events interface {
	Publish(event string, payload any) error
}

// GatewayControl is what the `gateway` agent tool needs from the running server.
// Config reads and writes go through the config.* methods (Invoke with
// Call.Method), so they keep their own scope and validation.
type GatewayControl interface {
	// Version is the running gateway's version string.
	Version() string
	// ScheduleRestart schedules an in-place restart (config reload,
	// listeners kept) after delay. coalesced is true when one was already
	// pending (this request then changes nothing).
	ScheduleRestart(delay time.Duration, reason string) (coalesced bool, err error)
}

// Deferred is a result for work that continues after answering: Invoke
// encodes Accepted once (it must carry "status":"accepted", e.g.
// {"runId":…,"status":"accepted","acceptedAt":…}) and the gateway answers
// it at once, then Final's result on the same request id. Final's ctx is
// the request's: cancelling it stops the waiting, not necessarily the work
// (work that must survive a disconnect runs as a Job).
type Deferred struct {
	Accepted any
	Final    func(ctx context.Context) (any, error)
}

// Conns reaches one gateway connection by its id (hello-ok's
// server.connId; Env.ConnID is the caller's): node.invoke.request goes to
// one node, not to every connection with a scope.
type Conns interface {
	// Send queues one event frame (no seq: it is not a broadcast) for that
	// connection only. It fails when the connection is unknown, not past
	// its handshake, or closing.
	Send(connID, event string, payload any) error
	// Closed returns a channel closed once that connection has closed
	// (already closed when the id is unknown), so a service can drop what
	// it holds for it.
	Closed(connID string) <-chan struct{}
	// Close closes that connection with a WebSocket close code and
	// reason, after the frames already queued for it (a node connection
	// replaced by a newer one of the same node). Unknown ids are ignored.
	Close(connID string, code int, reason string)
}

// Routes lets a service serve HTTP on the gateway's port behind the
// gateway's auth: the caller sends the gateway token or password, or the
// device token of a paired operator device holding scope, as
// "Authorization: Bearer <secret>" (401 without, 403 short of scope).
// Patterns are net/http.ServeMux patterns ("GET /__openclaw__/canvas/").
type Routes interface {
	// Handle serves plain requests matching pattern. A duplicate or
	// invalid pattern is an error.
	Handle(pattern, scope string, h http.Handler) error
	// HandleUpgrade serves WebSocket upgrades matching pattern that are
	// not the gateway protocol (canvas live reload): h upgrades itself.
	HandleUpgrade(pattern, scope string, h http.Handler) error
}

// OpenOnLoopback marks a route's handler as served without the gateway's
// auth to clients on this machine while the gateway binds loopback only,
// and behind auth otherwise: the original's rule for the canvas host,
// whose pages a node's browser opens without credentials. A request that
// came through a proxy (forwarding headers) still needs auth.
func OpenOnLoopback(h http.Handler) http.Handler { return loopbackOpen{h} }

type loopbackOpen struct{ http.Handler }

// OpenOnLoopback tells the gateway's guard about the mark.
func (loopbackOpen) OpenOnLoopback() bool { return true }
