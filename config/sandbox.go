package config

import "fmt"

// This build has no sandbox backend (no container runtime behind
// agents.*.sandbox): a config that asks for one must not have its agents'
// commands silently run on the host instead (issue 30 item 5). The config
// still loads and the gateway still starts (so the agents whose sessions
// are not sandboxed keep working, and nobody is pushed to mode "off",
// which would run every session on the host); every call that would have
// run in the sandbox is refused with SandboxUnavailable, and the gateway
// says at start which keys ask for one (SandboxRequests).

// SandboxMode is the sandbox mode that applies to agent's sessions: its
// agents.list entry's sandbox.mode, else agents.defaults.sandbox.mode, else
// "off"; key is the config key that set it ("" for the built-in off).
func (c *Config) SandboxMode(agent string) (mode, key string) {
	if c == nil {
		return "off", ""
	}
	a := c.Agents()
	for i, e := range a.List {
		if e.ID == agent && e.Sandbox.Mode != "" {
			return e.Sandbox.Mode, fmt.Sprintf("agents.list[%d].sandbox.mode", i)
		}
	}
	if m := a.Defaults.Sandbox.Mode; m != "" {
		return m, "agents.defaults.sandbox.mode"
	}
	return "off", ""
}

// Sandboxed reports whether a session of agent runs in a sandbox under
// mode: "all" every session, "non-main" every one but the agent's main
// session (mainSession), anything but "off" fails closed.
func Sandboxed(mode string, mainSession bool) bool {
	switch mode {
	case "", "off":
		return false
	case "non-main":
		return !mainSession
	}
	return true
}

// SandboxUnavailable is the one-line refusal of a call that would run in
// the sandbox that mode (set at key) asks for.
func SandboxUnavailable(mode, key string) string {
	return fmt.Sprintf("sandbox mode %q is configured (%s) but this build has no sandbox backend yet: "+
		"set %s to \"off\" to run on this machine, or send the command to a node (host=node)", mode, key, key)
}

// SandboxRequests lists, one line each, the keys that ask for a sandbox
// (a mode other than off): what the gateway prints at start.
func (c *Config) SandboxRequests() []string {
	if c == nil {
		return nil
	}
	var out []string
	a := c.Agents()
	note := func(mode, key string) {
		if mode == "" || mode == "off" {
			return
		}
		what := "every session's commands"
		if mode == "non-main" {
			what = "the commands of every session but the main one"
		}
		out = append(out, fmt.Sprintf("%s is %q but this build has no sandbox backend yet: %s will be refused (set it to \"off\" to run them on this machine)",
			key, mode, what))
	}
	note(a.Defaults.Sandbox.Mode, "agents.defaults.sandbox.mode")
	for i, e := range a.List {
		note(e.Sandbox.Mode, fmt.Sprintf("agents.list[%d].sandbox.mode", i))
	}
	return out
}
