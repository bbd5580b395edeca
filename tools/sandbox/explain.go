// Package sandboxtool declares `openclaw sandbox explain` (sandbox.explain):
// what the sandbox settings (package sandbox) mean for one agent and
// session — mode, scope, workspace access, backend and whether it can
// start, whether this session is sandboxed, the sandbox tool policy, and
// the elevated gates — with the config keys to change.
package sandboxtool

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/sandbox"
	"github.com/openclaw-go/openclaw/tools"
)

type explainParams struct {
	Session string `json:"session"`
	Agent   string `json:"agent"`
}

func init() {
	tools.Register(&tools.Action{
		Where:   tools.Either,
		Method:  "sandbox.explain",
		Command: []string{"sandbox", "explain"},
		Summary: "Explain the effective sandbox of an agent's session: mode, scope, workspace access, backend, elevated gates, and the keys to change",
		Examples: []string{"openclaw sandbox explain", "openclaw sandbox explain --session agent:main:main",
			"openclaw sandbox explain --agent work", "openclaw sandbox explain --json"},
		Schema: `{"type":"object","properties":{
			"session":{"type":"string","description":"Session key (a short name such as main expands to agent:<agent>:main); default the agent's main session"},
			"agent":{"type":"string","description":"Agent id (default: the session key's agent, else the default agent)"}
		},"additionalProperties":false}`,
		Scope:  protocol.ScopeRead,
		Run:    tools.Typed(explain),
		Render: render,
	})
}

func explain(ctx context.Context, env *tools.Env, p explainParams) (any, error) {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	agent := strings.TrimSpace(p.Agent)
	key := strings.TrimSpace(p.Session)
	if agent == "" && strings.HasPrefix(key, "agent:") {
		if parts := strings.SplitN(key, ":", 3); len(parts) == 3 {
			agent = parts[1]
		}
	}
	if agent == "" {
		agent = tools.DefaultAgentID(cfg)
	}
	if err := tools.CheckAgentID(cfg, agent); err != nil {
		return nil, err
	}
	mainKey := "agent:" + agent + ":main"
	switch {
	case key == "":
		key = mainKey
	case !strings.HasPrefix(key, "agent:") && key != "global":
		key = "agent:" + agent + ":" + key // main, discord:group:1, …
	}
	s, err := sandbox.Resolve(cfg, agent, env.StateDir)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "%v", err)
	}
	sub := *env
	sub.Config, sub.Workspace = cfg, ""
	sub.Subject.AgentID = agent
	hostWS := sub.WorkspaceDir()

	sandboxed := s.Applies(key)
	box := map[string]any{
		"mode": s.Mode, "scope": s.Scope, "workspaceAccess": s.WorkspaceAccess, "backend": s.Backend,
		"workspaceRoot": s.WorkspaceRoot, "network": map[bool]string{true: "host", false: "none"}[s.Network],
		"limits": s.Limits, "binds": s.Binds, "sessionIsSandboxed": sandboxed, "keys": s.Keys,
	}
	if box["binds"] == nil || len(s.Binds) == 0 {
		box["binds"] = []any{}
	}
	mounts := []map[string]any{}
	switch s.WorkspaceAccess {
	case "rw":
		box["effectiveHostWorkspaceRoot"] = hostWS
		mounts = append(mounts, map[string]any{"host": hostWS, "sandbox": "/workspace", "readOnly": false})
	case "ro":
		box["effectiveHostWorkspaceRoot"] = s.ScopeDir(key)
		mounts = append(mounts, map[string]any{"host": s.ScopeDir(key), "sandbox": "/workspace", "readOnly": false},
			map[string]any{"host": hostWS, "sandbox": "/agent", "readOnly": true})
	default:
		box["effectiveHostWorkspaceRoot"] = s.ScopeDir(key)
		mounts = append(mounts, map[string]any{"host": s.ScopeDir(key), "sandbox": "/workspace", "readOnly": false})
	}
	for _, b := range s.Binds {
		mounts = append(mounts, map[string]any{"host": b.Source, "sandbox": b.Target, "readOnly": b.ReadOnly})
	}
	box["mounts"] = mounts
	box["workdir"] = "/workspace"
	box["available"] = true
	if s.Backend != "bubblewrap" {
		box["available"], box["unavailableReason"] = false, fmt.Sprintf("backend %q is not available in this build", s.Backend)
	} else if err := s.Available(); err != nil {
		box["available"], box["unavailableReason"] = false, err.Error()
	} else if err := s.CheckBinds(hostWS, s.WorkspaceRoot); err != nil {
		box["available"], box["unavailableReason"] = false, err.Error()
	}

	gates, allowed := sandbox.ElevatedGates(cfg, agent)
	var failing []string
	for _, g := range gates {
		if !g.OK {
			failing = append(failing, g.Key)
		}
	}
	elevated := map[string]any{"allowedByConfig": allowed, "gates": gates, "failures": failing,
		"matters": sandboxed}
	if failing == nil {
		elevated["failures"] = []string{}
	}

	modeKey := s.Keys["mode"]
	if modeKey == "" {
		modeKey = "agents.defaults.sandbox.mode"
	}
	fix := []string{}
	if sandboxed {
		fix = append(fix, modeKey+"=off (run this session's commands on the host)")
		if !allowed {
			fix = append(fix, "tools.elevated.enabled=true (lets exec with elevated leave the sandbox)")
		}
		if s.WorkspaceAccess != "rw" {
			fix = append(fix, "agents.defaults.sandbox.workspaceAccess=rw (the agent workspace read-write at /workspace)")
		}
		if !s.Network {
			fix = append(fix, "agents.defaults.sandbox.docker.network=host (share the host's network)")
		}
	} else if s.Mode == "non-main" {
		fix = append(fix, modeKey+"=all (sandbox the main session too)")
	} else {
		fix = append(fix, modeKey+"=non-main or all (sandbox sessions)")
	}
	return map[string]any{
		"agentId": agent, "sessionKey": key, "mainSessionKey": mainKey,
		"sandbox": box, "toolPolicy": toolPolicy(cfg, agent), "elevated": elevated, "fixIt": fix,
	}, nil
}

// toolPolicy is the sandbox tool policy (tools.sandbox.tools and the
// agent's) as the original resolves it, with where each list came from.
func toolPolicy(cfg *config.Config, agent string) map[string]any {
	var global, mine *policy.Policy
	var g, a policy.Policy
	if _, ok := cfg.Get("tools.sandbox.tools"); ok && cfg.Decode("tools.sandbox.tools", &g) == nil {
		global = &g
	}
	agentKey := ""
	for i, e := range cfg.Agents().List {
		if e.ID == agent {
			k := fmt.Sprintf("agents.list[%d].tools.sandbox.tools", i)
			if _, ok := cfg.Get(k); ok && cfg.Decode(k, &a) == nil {
				mine, agentKey = &a, k
			}
		}
	}
	source := func(get func(*policy.Policy) []string) string {
		if mine != nil && get(mine) != nil {
			return agentKey
		}
		if global != nil && get(global) != nil {
			return "tools.sandbox.tools"
		}
		return "default"
	}
	eff := policy.SandboxPolicy(mine, global)
	return map[string]any{"allow": eff.Allow, "deny": eff.Deny,
		"sources": map[string]string{
			"allow": source(func(p *policy.Policy) []string { return p.Allow }),
			"deny":  source(func(p *policy.Policy) []string { return p.Deny }),
		},
		"enforced": false,
		"note":     "this build does not yet apply the sandbox tool policy to sandboxed sessions",
	}
}

func render(w io.Writer, r gjson.Result) error {
	b := r.Get("sandbox")
	var sb strings.Builder
	fmt.Fprintf(&sb, "Agent: %s\nSession: %s", r.Get("agentId").String(), r.Get("sessionKey").String())
	if r.Get("sessionKey").String() == r.Get("mainSessionKey").String() {
		sb.WriteString(" (main)")
	}
	where := "on the host"
	if b.Get("sessionIsSandboxed").Bool() {
		where = "in the sandbox"
	}
	fmt.Fprintf(&sb, "\n\nSandbox: mode %s, so this session's commands run %s\n", b.Get("mode").String(), where)
	avail := "available"
	if !b.Get("available").Bool() {
		avail = "NOT available: " + b.Get("unavailableReason").String()
	}
	fmt.Fprintf(&sb, "  backend:   %s (%s)\n", b.Get("backend").String(), avail)
	fmt.Fprintf(&sb, "  scope:     %s\n  access:    %s\n  network:   %s\n", b.Get("scope").String(),
		b.Get("workspaceAccess").String(), b.Get("network").String())
	for _, m := range b.Get("mounts").Array() {
		mode := "rw"
		if m.Get("readOnly").Bool() {
			mode = "ro"
		}
		fmt.Fprintf(&sb, "  mount:     %s -> %s (%s)\n", m.Get("host").String(), m.Get("sandbox").String(), mode)
	}
	l := b.Get("limits")
	fmt.Fprintf(&sb, "  limits:    cpu %d s per process, memory %d MiB per process, %d processes\n",
		l.Get("cpuSeconds").Int(), l.Get("memoryBytes").Int()>>20, l.Get("procs").Int())
	tp := r.Get("toolPolicy")
	fmt.Fprintf(&sb, "\nSandbox tool policy (not applied yet in this build):\n  allow (%s): %s\n  deny (%s): %s\n",
		tp.Get("sources.allow").String(), joinArr(tp.Get("allow")), tp.Get("sources.deny").String(), joinArr(tp.Get("deny")))
	e := r.Get("elevated")
	if e.Get("allowedByConfig").Bool() {
		sb.WriteString("\nElevated: allowed (exec with elevated runs on the host)\n")
	} else {
		fmt.Fprintf(&sb, "\nElevated: not allowed; failing gates: %s\n", joinArr(e.Get("failures")))
	}
	sb.WriteString("\nFix-it keys:\n")
	for _, f := range r.Get("fixIt").Array() {
		fmt.Fprintf(&sb, "  %s\n", f.String())
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func joinArr(a gjson.Result) string {
	var out []string
	for _, v := range a.Array() {
		out = append(out, v.String())
	}
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, ", ")
}
