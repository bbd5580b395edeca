package config

import (
	"encoding/json"

	"github.com/openclaw-go/openclaw/policy"
)

// GatewaySection is the typed `gateway` block.
type GatewaySection struct {
	Port           int                `json:"port"`
	Bind           string             `json:"bind"`
	CustomBindHost string             `json:"customBindHost"`
	Mode           string             `json:"mode"`
	Auth           GatewayAuthSection `json:"auth"`
	Remote         GatewayRemote      `json:"remote"`
}

// GatewayAuthSection is `gateway.auth`.
type GatewayAuthSection struct {
	Mode      string `json:"mode"`
	Token     string `json:"token"`
	Password  string `json:"password"`
	RateLimit struct {
		MaxAttempts    *int  `json:"maxAttempts"`
		WindowMs       *int  `json:"windowMs"`
		LockoutMs      *int  `json:"lockoutMs"`
		ExemptLoopback *bool `json:"exemptLoopback"`
	} `json:"rateLimit"`
}

// GatewayRemote is `gateway.remote` (the CLI's remote gateway).
type GatewayRemote struct {
	URL      string `json:"url"`
	Token    string `json:"token"`
	Password string `json:"password"`
}

// AgentsSection is the typed `agents` block.
type AgentsSection struct {
	Defaults struct {
		Workspace string         `json:"workspace"`
		Sandbox   SandboxSection `json:"sandbox"`
	} `json:"defaults"`
	List []AgentEntry `json:"list"`
}

// AgentEntry is one `agents.list[]` item.
type AgentEntry struct {
	ID        string             `json:"id"`
	Name      string             `json:"name"`
	Default   bool               `json:"default"`
	Workspace string             `json:"workspace"`
	Tools     *policy.ToolPolicy `json:"tools"`
	Sandbox   SandboxSection     `json:"sandbox"`
}

// SandboxSection is `agents.defaults.sandbox` or an agent's `sandbox`
// (the keys the bubblewrap backend reads, package sandbox; an agent's
// field left out falls back on the defaults').
type SandboxSection struct {
	Mode            string        `json:"mode"`
	Backend         string        `json:"backend"`
	Scope           string        `json:"scope"`
	WorkspaceAccess string        `json:"workspaceAccess"`
	WorkspaceRoot   string        `json:"workspaceRoot"`
	Docker          SandboxDocker `json:"docker"`
}

// SandboxDocker is the original's `sandbox.docker` block, the part that
// means something without a container: network, binds, the user the
// sandbox runs as when the gateway is root, and the limits.
type SandboxDocker struct {
	Network                             string         `json:"network"`
	Binds                               []string       `json:"binds"`
	User                                string         `json:"user"`
	PidsLimit                           *int64         `json:"pidsLimit"`
	Memory                              any            `json:"memory"`
	Ulimits                             map[string]any `json:"ulimits"`
	DangerouslyAllowExternalBindSources *bool          `json:"dangerouslyAllowExternalBindSources"`
}

// sections are decoded from Doc once per load, each on first use; a section that does not
// decode (a wrong type the schema check reports) is left zero.
type sections struct {
	gateway GatewaySection
	tools   policy.ToolPolicy
	agents  AgentsSection
}

func decodeSection(doc map[string]any, key string, v any) {
	raw, ok := doc[key]
	if !ok {
		return
	}
	b, err := json.Marshal(raw)
	if err == nil {
		_ = json.Unmarshal(b, v)
	}
}

// Gateway is the typed `gateway` section (decoded once per load; do not
// modify).
func (c *Config) Gateway() *GatewaySection {
	d := c.derived()
	d.gatewayOnce.Do(func() { decodeSection(c.Doc, "gateway", &d.sections.gateway) })
	return &d.sections.gateway
}

// Tools is the typed `tools` section, the global tool policy.
func (c *Config) Tools() *policy.ToolPolicy {
	d := c.derived()
	d.toolsOnce.Do(func() { decodeToolPolicy(c.Doc["tools"], &d.sections.tools) })
	return &d.sections.tools
}

// Agents is the typed `agents` section.
func (c *Config) Agents() *AgentsSection {
	d := c.derived()
	d.agentsOnce.Do(func() { decodeSection(c.Doc, "agents", &d.sections.agents) })
	return &d.sections.agents
}
