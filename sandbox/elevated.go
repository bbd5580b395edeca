package sandbox

import (
	"fmt"

	"github.com/openclaw-go/openclaw/config"
)

// Gate is one condition elevated exec needs, with the key that sets it.
type Gate struct {
	Name string `json:"name"`
	Key  string `json:"key"`
	OK   bool   `json:"ok"`
}

// ElevatedGates are the gates an elevated exec of agent passes or fails:
// tools.elevated.enabled must be true, and the agent's own
// agents.list[].tools.elevated.enabled must not be false. Allowed is
// whether every gate passes.
func ElevatedGates(cfg *config.Config, agent string) (gates []Gate, allowed bool) {
	if cfg == nil {
		cfg = config.Empty()
	}
	gates = append(gates, Gate{Name: "enabled", Key: "tools.elevated.enabled", OK: cfg.Bool("tools.elevated.enabled", false)})
	for i, e := range cfg.Agents().List {
		if e.ID == agent {
			k := fmt.Sprintf("agents.list[%d].tools.elevated.enabled", i)
			gates = append(gates, Gate{Name: "agent", Key: k, OK: cfg.Bool(k, true)})
		}
	}
	allowed = true
	for _, g := range gates {
		allowed = allowed && g.OK
	}
	return gates, allowed
}
