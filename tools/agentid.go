package tools

import "github.com/openclaw-go/openclaw/config"

// DefaultAgentID is the agents.list entry marked default, else the first,
// else "main": the agent a call is for when it names none. The gateway's
// hello and health and the agents family all read it here.
func DefaultAgentID(cfg *config.Config) string {
	if cfg == nil {
		return "main"
	}
	var list []struct {
		ID      string `json:"id"`
		Default bool   `json:"default"`
	}
	_ = cfg.Decode("agents.list", &list)
	for _, a := range list {
		if a.Default && a.ID != "" {
			return a.ID
		}
	}
	if len(list) > 0 && list[0].ID != "" {
		return list[0].ID
	}
	return "main"
}

// AgentConfigured reports whether id is an agent the config knows: an
// agents.list entry, the default agent, or main (every gateway has main:
// the approvals file and the session keys fall back to it).
func AgentConfigured(cfg *config.Config, id string) bool {
	if id == "main" || id == DefaultAgentID(cfg) {
		return true
	}
	if cfg == nil {
		return false
	}
	var list []struct {
		ID string `json:"id"`
	}
	_ = cfg.Decode("agents.list", &list)
	for _, a := range list {
		if a.ID == id {
			return true
		}
	}
	return false
}

// CheckAgentID refuses an agent id the config does not know, as the
// original answers an unknown agentId (INVALID_REQUEST `unknown agent id
// "x"`, details.code UNKNOWN_AGENT_ID): a call for an agent nobody
// configured must never run under the laxer policy of no agent at all.
func CheckAgentID(cfg *config.Config, id string) error {
	if id == "" || AgentConfigured(cfg, id) {
		return nil
	}
	return Errorf(CodeInvalidParams, "unknown agent id %q: it is not in agents.list (add it there, or name a configured agent)", id).
		WithDetails(map[string]any{"code": "UNKNOWN_AGENT_ID", "agentId": id})
}
