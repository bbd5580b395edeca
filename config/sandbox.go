package config

import "fmt"

// agents.*.sandbox.mode decides which sessions' commands run in the
// sandbox (package sandbox, the bubblewrap backend); a sandbox that cannot
// start fails the call, it never runs on the host instead.

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

// SandboxRequests lists, one line each, the keys that ask for a sandbox
// (a mode other than off): what the gateway says at start.
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
		what := "every session's commands run"
		if mode == "non-main" {
			what = "the commands of every session but the main one run"
		}
		out = append(out, fmt.Sprintf("%s is %q: %s in the sandbox (`openclaw sandbox explain` shows how)", key, mode, what))
	}
	note(a.Defaults.Sandbox.Mode, "agents.defaults.sandbox.mode")
	for i, e := range a.List {
		note(e.Sandbox.Mode, fmt.Sprintf("agents.list[%d].sandbox.mode", i))
	}
	return out
}
