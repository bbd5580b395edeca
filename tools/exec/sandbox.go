package exectool

import (
	"strings"

	"github.com/openclaw-go/openclaw/sandbox"
	"github.com/openclaw-go/openclaw/tools"
)

// sandboxFor decides where a command runs: nil on this machine, else the
// sandbox settings it runs under. A session the config sandboxes
// (agents.*.sandbox.mode "all", or "non-main" for a session other than the
// agent's main one) or a call that asks for host=sandbox runs in the
// sandbox; elevated leaves it only when tools.elevated.enabled and the
// agent's own tools.elevated.enabled allow it, as in the original. A
// sandbox that cannot start fails the call (planSandbox): it never runs on
// the host instead.
func sandboxFor(env *tools.Env, p execParams) (*sandbox.Settings, error) {
	cfg := conf(env)
	s, err := sandbox.Resolve(cfg, env.AgentID(), env.StateDir)
	if err != nil {
		return nil, tools.Errorf(tools.CodeDenied, "sandbox: %v", err)
	}
	host := p.Host
	if host == "" {
		host = cfg.String("tools.exec.host", "gateway")
	}
	if !s.Applies(env.Subject.SessionKey) && host != "sandbox" {
		return nil, nil
	}
	if p.Elevated {
		gates, ok := sandbox.ElevatedGates(cfg, env.AgentID())
		if ok {
			return nil, nil
		}
		var failing []string
		for _, g := range gates {
			if !g.OK {
				failing = append(failing, g.Key)
			}
		}
		return nil, tools.Errorf(tools.CodeDenied, "elevated is not available right now (runtime=sandboxed).\n"+
			"Failing gates: %s", strings.Join(failing, ", ")).WithDetails(map[string]any{"sandboxMode": s.Mode})
	}
	return &s, nil
}

// planSandbox builds the bwrap command line; its error (no bwrap, no user
// namespaces, a refused bind) is the call's, with what to install or set.
func planSandbox(env *tools.Env, s *sandbox.Settings, p execParams, pty ...bool) (*sandbox.Plan, error) {
	usePTY := p.PTY
	if len(pty) > 0 {
		usePTY = pty[0]
	}
	plan, err := s.Plan(sandbox.Request{Shell: shell(), Command: p.Command, Workdir: p.Workdir,
		HostWorkspace: env.WorkspaceDir(), SessionKey: env.Subject.SessionKey, PTY: usePTY})
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%v", err).WithDetails(map[string]any{
			"sandboxMode": s.Mode, "backend": s.Backend})
	}
	return plan, nil
}
