package fs

import (
	"path/filepath"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// guardGatewayFiles refuses a write by a gateway caller without
// operator.admin to the gateway's own files: its config file (with its
// .bak and the files it $includes, wherever they live) and its state dir
// (credentials, devices, logs, ...), except the agent workspaces inside
// the state dir. The file tools must not be a way around the config.*
// scopes: a write-scoped client could otherwise set gateway.auth.mode to
// none and reconnect as admin. Only the local CLI user, the machine's
// owner, is not restricted; an agent turn holds the scopes of whoever
// started it, and an MCP client in this process none (tools.Subject.
// IsUser). The refusal names no other way to the same change: it is read
// by models, which would take it. Paths are compared with every symlink
// resolved.
func guardGatewayFiles(env *tools.Env, t *target) error {
	if env == nil || env.Subject.IsUser() || protocol.ScopeSatisfied(env.Subject.Scopes, protocol.ScopeAdmin) {
		return nil
	}
	deny := tools.Errorf(tools.CodeDenied,
		"refusing to write %s: it is the gateway's own configuration or state, which this caller may not change; "+
			"leave it as it is, or ask the user to change it", t.shown)
	if cfg := env.Config; cfg != nil {
		files := append([]string{}, cfg.IncludedPaths...)
		if cfg.Path != "" {
			files = append(files, cfg.Path, cfg.Path+".bak")
		}
		for _, f := range files {
			if real, ok := absReal(f); ok && real == t.real {
				return deny
			}
		}
	}
	state, ok := absReal(env.StateDir)
	if !ok || env.StateDir == "" || !within(state, t.real) {
		return nil
	}
	for _, ws := range workspaces(env) {
		if w, ok := absReal(ws); ok && w != state && within(state, w) && within(w, t.real) {
			return nil
		}
	}
	return deny
}

// workspaces lists every agent workspace the config names, plus the
// caller's and the default <state>/workspace.
func workspaces(env *tools.Env) []string {
	out := []string{env.WorkspaceDir(), filepath.Join(env.StateDir, "workspace")}
	if env.Config == nil {
		return out
	}
	var list []struct {
		Workspace string `json:"workspace"`
	}
	_ = env.Config.Decode("agents.list", &list)
	for _, a := range list {
		if a.Workspace != "" {
			out = append(out, tools.ExpandHome(a.Workspace))
		}
	}
	if ws := env.Config.String("agents.defaults.workspace", ""); ws != "" {
		out = append(out, tools.ExpandHome(ws))
	}
	return out
}

// absReal is realPath for a possibly relative path.
func absReal(p string) (string, bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	real, err := realPath(abs)
	return real, err == nil
}
