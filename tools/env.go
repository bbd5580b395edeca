package tools

import (
	"io"
	"path/filepath"

	"github.com/openclaw-go/openclaw/config"
)

// Subject says who is calling: it feeds the tool policy, the scope checks
// and loop detection (caller.go has the kinds and the rules). The zero
// Subject is the local user (the CLI in this process).
type Subject struct {
	// Kind is the kind of caller; empty resolves from the other fields to
	// the least privileged kind they fit (Subject.Caller).
	Kind Caller `json:"kind,omitempty"`
	// AgentID is the agent the call is made for ("main" when unset).
	AgentID string `json:"agentId,omitempty"`
	// Provider and Model select tools.byProvider entries ("openai", "gpt-5").
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Role and Scopes are those of the gateway connection the call arrived
	// on ("operator", ["operator.read"]); empty when it came over none.
	Role   string   `json:"role,omitempty"`
	Scopes []string `json:"scopes,omitempty"`
	// SessionKey is the session the call belongs to, when any.
	SessionKey string `json:"sessionKey,omitempty"`
}

// Env is what a handler may use: the loaded config, where state lives, who
// calls, and the services the caller provides (see services.go). A service
// is nil when the caller lacks it; ask through NeedX for a clear error.
type Env struct {
	Config   *config.Config
	StateDir string
	Subject  Subject
	// Workspace is the agent workspace; relative file paths resolve here.
	Workspace string
	// Warn receives non-fatal warnings (policy notes); nil discards them.
	Warn io.Writer

	// Sink receives progress and events; nil discards them.
	Sink Sink
	// Gateway is the running gateway (inside `openclaw serve`).
	Gateway GatewayControl
	// Events publishes gateway events.
	Events Events
	// Jobs runs work that outlives its request.
	Jobs Jobs
	// Store is the state database.
	Store Store
	// Media stores result files.
	Media Media
	// Conns sends to one connection by id; ConnID is the caller's ("" when
	// the call did not come over a gateway connection).
	Conns  Conns
	ConnID string
	// Routes registers HTTP routes behind the gateway's auth (services).
	Routes Routes
	// Services are the running gateway services by name (read-only): all
	// of them for a handler, only the required ones for a constructor.
	// Reach one through its ServiceKey (service.go).
	Services map[string]Service

	in *callParams // set by Invoke for the handler (callparams.go)
}

// needGateway is the error for a service only a running gateway provides.
func needGateway(what string) error {
	return Errorf(CodeUnreachable, "%s needs a running gateway: start it with `openclaw serve`", what)
}

// NeedGateway returns the running gateway or an UNREACHABLE error (exit 5)
// naming what needed it.
func (e *Env) NeedGateway(what string) (GatewayControl, error) {
	if e == nil || e.Gateway == nil {
		return nil, needGateway(what)
	}
	return e.Gateway, nil
}

// NeedEvents returns the event publisher or an UNREACHABLE error.
func (e *Env) NeedEvents(what string) (Events, error) {
	if e == nil || e.Events == nil {
		return nil, needGateway(what)
	}
	return e.Events, nil
}

// NeedJobs returns the job runner or an UNREACHABLE error.
func (e *Env) NeedJobs(what string) (Jobs, error) {
	if e == nil || e.Jobs == nil {
		return nil, needGateway(what)
	}
	return e.Jobs, nil
}

// NeedStore returns the state database or an UNREACHABLE error.
func (e *Env) NeedStore(what string) (Store, error) {
	if e == nil || e.Store == nil {
		return nil, needGateway(what)
	}
	return e.Store, nil
}

// NeedConns returns the connection sender or an UNREACHABLE error.
func (e *Env) NeedConns(what string) (Conns, error) {
	if e == nil || e.Conns == nil {
		return nil, needGateway(what)
	}
	return e.Conns, nil
}

// NeedRoutes returns the route registry or an UNREACHABLE error.
func (e *Env) NeedRoutes(what string) (Routes, error) {
	if e == nil || e.Routes == nil {
		return nil, needGateway(what)
	}
	return e.Routes, nil
}

// NeedMedia returns the media store or an UNREACHABLE error.
func (e *Env) NeedMedia(what string) (Media, error) {
	if e == nil || e.Media == nil {
		return nil, needGateway(what)
	}
	return e.Media, nil
}

// Service returns the running service registered under name, or an
// UNREACHABLE error when this caller runs none (outside the gateway).
// Prefer the family's typed ServiceKey.From.
func (e *Env) Service(name, what string) (Service, error) {
	if e != nil {
		if s, ok := e.Services[name]; ok && s != nil {
			return s, nil
		}
	}
	return nil, needGateway(what)
}

// Progress reports progress to the sink, if any.
func (e *Env) Progress(msg string, done, total int64) {
	if e != nil && e.Sink != nil {
		e.Sink.Progress(msg, done, total)
	}
}

// Event reports an event to the sink, if any.
func (e *Env) Event(name string, payload any) {
	if e != nil && e.Sink != nil {
		e.Sink.Event(name, payload)
	}
}

// AgentID returns the calling agent, "main" by default.
func (e *Env) AgentID() string {
	if e.Subject.AgentID == "" {
		return "main"
	}
	return e.Subject.AgentID
}

// WorkspaceDir returns the agent workspace: the agent's configured workspace,
// agents.defaults.workspace, or <state>/workspace.
func (e *Env) WorkspaceDir() string {
	if e.Workspace != "" {
		return e.Workspace
	}
	cfg := e.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	agents := cfg.Agents() // decoded once per config load
	for _, a := range agents.List {
		if a.ID == e.AgentID() && a.Workspace != "" {
			return ExpandHome(a.Workspace)
		}
	}
	if ws := agents.Defaults.Workspace; ws != "" {
		return ExpandHome(ws)
	}
	return filepath.Join(e.StateDir, "workspace")
}
