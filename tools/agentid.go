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
