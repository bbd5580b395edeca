package tools

import (
	"io"
	"path/filepath"

	"github.com/openclaw-go/openclaw/config"
)

// Subject says who is calling: it feeds the tool policy and scope checks.
type Subject struct {
	// AgentID is the agent the call is made for ("main" when unset).
	AgentID string `json:"agentId,omitempty"`
	// Provider and Model select tools.byProvider entries ("openai", "gpt-5").
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Role and Scopes are the gateway connection's ("operator", ["operator.read"]).
	Role   string   `json:"role,omitempty"`
	Scopes []string `json:"scopes,omitempty"`
	// SessionKey is the session the call belongs to, when any.
	SessionKey string `json:"sessionKey,omitempty"`
}

// Env is what a handler may use: the loaded config, where state lives, who
// calls, and (inside `openclaw serve`) the running gateway.
type Env struct {
	Config   *config.Config
	StateDir string
	Subject  Subject
	// Workspace is the agent workspace; relative file paths resolve here.
	Workspace string
	// Server is the running gateway when the action is invoked inside
	// `openclaw serve` (gateway-native methods type-assert it); nil elsewhere.
	Server any
	// Warn receives non-fatal warnings (policy notes); nil discards them.
	Warn io.Writer
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
	var list []struct {
		ID        string `json:"id"`
		Workspace string `json:"workspace"`
	}
	_ = cfg.Decode("agents.list", &list)
	for _, a := range list {
		if a.ID == e.AgentID() && a.Workspace != "" {
			return ExpandHome(a.Workspace)
		}
	}
	if ws := cfg.String("agents.defaults.workspace", ""); ws != "" {
		return ExpandHome(ws)
	}
	return filepath.Join(e.StateDir, "workspace")
}
