package exectool

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// execParams are the exec tool's params (spec §1.1, Classic names plus the
// later timeoutSeconds alias).
type execParams struct {
	Command        string            `json:"command"`
	Workdir        string            `json:"workdir"`
	Env            map[string]string `json:"env"`
	YieldMs        *float64          `json:"yieldMs"`
	Background     bool              `json:"background"`
	Timeout        *float64          `json:"timeout"`
	TimeoutSeconds *float64          `json:"timeoutSeconds"`
	PTY            bool              `json:"pty"`
	Elevated       bool              `json:"elevated"`
	Host           string            `json:"host"`
	Security       string            `json:"security"`
	Ask            string            `json:"ask"`
	Node           string            `json:"node"`
	AwaitApproval  bool              `json:"awaitApproval"`

	// approved is set once an operator (or the askFallback) allowed this
	// command: the policy is not asked again. Never from the wire.
	approved bool
}

const execSchema = `{"type":"object","properties":{
	"command":{"type":"string","description":"Shell command to run"},
	"workdir":{"type":"string","description":"Working directory (default: the workspace)"},
	"env":{"type":"object","additionalProperties":{"type":"string"},"description":"Environment overrides (refused: PATH; loader variables LD_*, DYLD_*, GCONV_PATH; exported bash functions BASH_FUNC_*; shell start-up variables such as BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PS0-PS4, PROMPT_COMMAND, IFS; interpreter start-up variables such as NODE_OPTIONS, PYTHONPATH, PERL5OPT, RUBYOPT, JAVA_TOOL_OPTIONS)"},
	"yieldMs":{"type":"number","minimum":0,"description":"Milliseconds before the command continues in the background (default 10000, needs a gateway)"},
	"background":{"type":"boolean","description":"Run in the background at once (needs a gateway)"},
	"timeout":{"type":"number","minimum":0,"description":"Seconds before the process group is killed (default 1800; 0 disables)"},
	"timeoutSeconds":{"type":"number","minimum":0,"description":"Alias of timeout"},
	"pty":{"type":"boolean","description":"Run under a pseudo-terminal"},
	"elevated":{"type":"boolean","description":"Run on the host outside a sandbox (needs tools.elevated)"},
	"host":{"type":"string","description":"sandbox, gateway or node"},
	"security":{"type":"string","enum":["deny","allowlist","full"],"description":"Can only tighten the configured security"},
	"ask":{"type":"string","enum":["off","on-miss","always"],"description":"Can only tighten the configured ask mode"},
	"node":{"type":"string","description":"Node id or name for host=node"},
	"awaitApproval":{"type":"boolean","description":"On the gateway, wait for an operator to resolve a needed approval (openclaw approvals resolve) instead of answering pending (exit 8) at once"}
},"required":["command"]}`

// checkEnv refuses dangerous overrides; nothing runs when it fails.
func checkEnv(env map[string]string) error {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case strings.EqualFold(k, "PATH"):
			return tools.Errorf(tools.CodeDenied, "Security Violation: Custom 'PATH' variable is forbidden during host execution.")
		case policy.EnvKeyBlocked(k):
			return tools.Errorf(tools.CodeDenied, "Security Violation: Environment variable '%s' is forbidden during host execution.", k)
		}
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return tools.Errorf(tools.CodeInvalidParams, "invalid environment variable name %q", k)
		}
	}
	return nil
}

// childEnv is the inherited environment with the overrides merged over it
// and OPENCLAW_SHELL=exec.
func childEnv(over map[string]string) []string {
	base := os.Environ()
	out := make([]string, 0, len(base)+len(over)+1)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := over[k]; ok || k == "OPENCLAW_SHELL" {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range over {
		out = append(out, k+"="+v)
	}
	return append(out, "OPENCLAW_SHELL=exec")
}

// resolveWorkdir returns the directory to run in and a warning when the
// requested one is unavailable (spec: warn and fall back, never fail).
func resolveWorkdir(env *tools.Env, wd string) (string, string) {
	def, warn := workspaceDir(env)
	if wd == "" {
		return def, warn
	}
	p := wd
	if !filepath.IsAbs(p) {
		p = filepath.Join(def, p)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p, ""
	}
	return def, fmt.Sprintf("Warning: workdir %q is unavailable; using %q.", wd, def)
}

// workspaceDir is where a command runs when it names no workdir: the
// agent's workspace. On the gateway a missing workspace is created (0700),
// as the original does, rather than running in whatever directory the
// gateway was started from; if it cannot be, the result says where the
// command ran instead. A CLI run without a workspace uses the current
// directory, as a shell would.
func workspaceDir(env *tools.Env) (string, string) {
	def := env.WorkspaceDir()
	if st, err := os.Stat(def); err == nil && st.IsDir() {
		return def, ""
	}
	_, onGateway := env.Services[serviceName]
	var mkErr error
	if onGateway {
		if mkErr = os.MkdirAll(def, 0o700); mkErr == nil {
			return def, ""
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return def, ""
	}
	if onGateway {
		return cwd, fmt.Sprintf("Warning: workspace %q is unavailable (%v); running in %q.", def, mkErr, cwd)
	}
	return cwd, ""
}

// checkHost refuses hosts this build cannot run on: never silently on the
// gateway machine when a sandbox or node was asked for.
func checkHost(env *tools.Env, p execParams) error {
	host := p.Host
	if host == "" {
		host = env.Config.String("tools.exec.host", "gateway")
	}
	switch host {
	case "gateway", "auto":
		return nil
	case "node":
		return nil // runExec hands host=node to runOnNode (host_node.go) before this check
	case "sandbox":
		if p.Elevated {
			if conf(env).Bool("tools.elevated.enabled", false) {
				return nil
			}
			return tools.Errorf(tools.CodeDenied, "elevated is not available right now (runtime=direct).\n"+
				"Failing gates: enabled (tools.elevated.enabled / agents.list[].tools.elevated.enabled)")
		}
		return nil // runExec runs host=sandbox in the sandbox (sandbox.go) before this check
	}
	return tools.Errorf(tools.CodeInvalidParams, "Invalid exec host %q. Allowed values: auto, sandbox, gateway, node.", host)
}
