// Package sandbox runs agent commands inside a bubblewrap sandbox: the
// settings an agent's sessions get (agents.defaults.sandbox and the
// agent's override, as in the original) and the bwrap command line that
// carries them out. A sandbox that cannot start fails the call closed: it
// never falls back to running the command on the host.
package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/config"
)

// Defaults of the limits each sandboxed process (or sandbox, for Procs) gets.
const (
	DefaultProcs      = 256
	DefaultMemory     = 4 << 30 // address space per process
	DefaultCPUSeconds = 900     // CPU time per process
	DefaultUser       = "65534:65534"
)

// Settings is what applies to one agent's sessions, each value with the
// config key that set it (Keys[field], "" for the built-in default).
type Settings struct {
	Agent           string            `json:"agentId"`
	Mode            string            `json:"mode"`
	Backend         string            `json:"backend"`
	Scope           string            `json:"scope"`
	WorkspaceAccess string            `json:"workspaceAccess"`
	WorkspaceRoot   string            `json:"workspaceRoot"`
	Network         bool              `json:"network"`
	Binds           []Bind            `json:"binds"`
	User            string            `json:"user"`
	Limits          Limits            `json:"limits"`
	AllowExternal   bool              `json:"dangerouslyAllowExternalBindSources"`
	Keys            map[string]string `json:"keys"`
}

// Limits are the rlimits set inside the sandbox before the command runs.
type Limits struct {
	CPUSeconds  int64 `json:"cpuSeconds"`  // RLIMIT_CPU, per process
	MemoryBytes int64 `json:"memoryBytes"` // RLIMIT_AS, per process
	Procs       int64 `json:"procs"`       // RLIMIT_NPROC, counted in the sandbox's own user namespace
	Files       int64 `json:"nofile"`      // RLIMIT_NOFILE (0: inherited)
	FileSize    int64 `json:"fsizeBytes"`  // RLIMIT_FSIZE (0: inherited)
}

// Bind is one extra host folder.
type Bind struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"readOnly"`
}

// Resolve reads the settings for agent: the agents.list entry's field,
// else agents.defaults.sandbox's, else the default. stateDir is where the
// default workspaceRoot lives.
func Resolve(cfg *config.Config, agent, stateDir string) (Settings, error) {
	if cfg == nil {
		cfg = config.Empty()
	}
	a := cfg.Agents()
	def := a.Defaults.Sandbox
	var ag config.SandboxSection
	agKey := ""
	for i, e := range a.List {
		if e.ID == agent {
			ag, agKey = e.Sandbox, fmt.Sprintf("agents.list[%d].sandbox", i)
		}
	}
	s := Settings{Agent: agent, Keys: map[string]string{}}
	pick := func(field string, agv, defv, builtin string) string {
		switch {
		case agv != "":
			s.Keys[field] = agKey + "." + field
			return agv
		case defv != "":
			s.Keys[field] = "agents.defaults.sandbox." + field
			return defv
		}
		return builtin
	}
	s.Mode = pick("mode", ag.Mode, def.Mode, "off")
	s.Backend = pick("backend", ag.Backend, def.Backend, "bubblewrap")
	s.Scope = pick("scope", ag.Scope, def.Scope, "agent")
	s.WorkspaceAccess = pick("workspaceAccess", ag.WorkspaceAccess, def.WorkspaceAccess, "none")
	s.WorkspaceRoot = pick("workspaceRoot", ag.WorkspaceRoot, def.WorkspaceRoot, filepath.Join(stateDir, "sandboxes"))
	s.WorkspaceRoot = expandHome(s.WorkspaceRoot)
	// Under scope shared, per-agent runtime settings are ignored (as the original).
	dk := ag.Docker
	if s.Scope == "shared" {
		dk = config.SandboxDocker{}
	}
	dd := def.Docker
	net := pick("docker.network", dk.Network, dd.Network, "none")
	s.Network = net != "none"
	s.User = pick("docker.user", dk.User, dd.User, DefaultUser)
	s.AllowExternal = (dd.DangerouslyAllowExternalBindSources != nil && *dd.DangerouslyAllowExternalBindSources) ||
		(dk.DangerouslyAllowExternalBindSources != nil && *dk.DangerouslyAllowExternalBindSources)

	s.Limits = Limits{CPUSeconds: DefaultCPUSeconds, MemoryBytes: DefaultMemory, Procs: DefaultProcs}
	for _, d := range []struct {
		v   config.SandboxDocker
		key string
	}{{dd, "agents.defaults.sandbox.docker"}, {dk, agKey + ".docker"}} {
		if err := applyLimits(&s.Limits, d.v, d.key); err != nil {
			return s, err
		}
	}
	for _, d := range []struct {
		v   []string
		key string
	}{{dd.Binds, "agents.defaults.sandbox.docker.binds"}, {dk.Binds, agKey + ".docker.binds"}} {
		for i, b := range d.v {
			bd, err := parseBind(b)
			if err != nil {
				return s, fmt.Errorf("%s[%d]: %v", d.key, i, err)
			}
			s.Binds = append(s.Binds, bd)
		}
	}
	for field, v := range map[string]string{"mode": s.Mode, "scope": s.Scope, "workspaceAccess": s.WorkspaceAccess} {
		ok := map[string][]string{"mode": {"off", "non-main", "all"}, "scope": {"session", "agent", "shared"},
			"workspaceAccess": {"none", "ro", "rw"}}[field]
		if !contains(ok, v) {
			return s, fmt.Errorf("%s is %q: use one of %s", s.Keys[field], v, strings.Join(ok, ", "))
		}
	}
	return s, nil
}

func contains(l []string, v string) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

func applyLimits(l *Limits, d config.SandboxDocker, key string) error {
	if d.PidsLimit != nil {
		l.Procs = *d.PidsLimit
	}
	if d.Memory != nil {
		n, err := parseBytes(d.Memory)
		if err != nil {
			return fmt.Errorf("%s.memory: %v", key, err)
		}
		l.MemoryBytes = n
	}
	for name, v := range d.Ulimits {
		n, err := ulimitValue(v)
		if err != nil {
			return fmt.Errorf("%s.ulimits.%s: %v", key, name, err)
		}
		switch name {
		case "cpu":
			l.CPUSeconds = n
		case "nproc":
			l.Procs = n
		case "as":
			l.MemoryBytes = n
		case "nofile":
			l.Files = n
		case "fsize":
			l.FileSize = n
		default:
			return fmt.Errorf("%s.ulimits.%s: not supported (cpu, nproc, as, nofile, fsize)", key, name)
		}
	}
	return nil
}

// ulimitValue takes a number or {soft, hard} (the hard value: both are set to it).
func ulimitValue(v any) (int64, error) {
	switch x := v.(type) {
	case float64:
		if x < 1 {
			return 0, fmt.Errorf("must be at least 1")
		}
		return int64(x), nil
	case map[string]any:
		if h, ok := x["hard"]; ok {
			return ulimitValue(h)
		}
		if s, ok := x["soft"]; ok {
			return ulimitValue(s)
		}
	}
	return 0, fmt.Errorf("want a number or {soft, hard}")
}

var sizeRe = regexp.MustCompile(`^(?i)\s*(\d+)\s*([kmgt]?)b?\s*$`)

func parseBytes(v any) (int64, error) {
	switch x := v.(type) {
	case float64:
		if x < 1 {
			return 0, fmt.Errorf("must be positive")
		}
		return int64(x), nil
	case string:
		m := sizeRe.FindStringSubmatch(x)
		if m == nil {
			return 0, fmt.Errorf("%q: want bytes or a size like 512m or 2g", x)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		shift := map[string]uint{"": 0, "k": 10, "m": 20, "g": 30, "t": 40}[strings.ToLower(m[2])]
		return n << shift, nil
	}
	return 0, fmt.Errorf("want bytes or a size like 512m or 2g")
}

func parseBind(b string) (Bind, error) {
	parts := strings.Split(b, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return Bind{}, fmt.Errorf("%q: want host:sandbox[:ro|rw]", b)
	}
	bd := Bind{Source: expandHome(parts[0]), Target: parts[1]}
	if len(parts) == 3 {
		switch parts[2] {
		case "ro":
			bd.ReadOnly = true
		case "rw":
		default:
			return Bind{}, fmt.Errorf("%q: mode %q is not ro or rw", b, parts[2])
		}
	}
	if !filepath.IsAbs(bd.Source) || !filepath.IsAbs(bd.Target) {
		return Bind{}, fmt.Errorf("%q: both paths must be absolute", b)
	}
	return bd, nil
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}

// IsMainSession reports whether sessionKey is agent's main session
// (agent:<id>:main or the alias main), or no session at all (the local
// user, an operator calling directly).
func IsMainSession(agent, sessionKey string) bool {
	key := strings.ToLower(strings.TrimSpace(sessionKey))
	return key == "" || key == "main" || key == "agent:"+strings.ToLower(agent)+":main"
}

// Applies reports whether a session runs sandboxed under these settings:
// "all" every session, "non-main" every one but the agent's main one;
// any other mode but "off" fails closed.
func (s Settings) Applies(sessionKey string) bool {
	return config.Sandboxed(s.Mode, IsMainSession(s.Agent, sessionKey))
}

// ScopeDir is the private sandbox workspace of a session under the scope.
func (s Settings) ScopeDir(sessionKey string) string {
	var name string
	switch s.Scope {
	case "shared":
		name = "shared"
	case "session":
		key := sessionKey
		if key == "" {
			key = "main"
		}
		name = "session-" + safeName(s.Agent) + "-" + safeName(key)
	default:
		name = "agent-" + safeName(s.Agent)
	}
	return filepath.Join(s.WorkspaceRoot, name)
}

var unsafeRe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// safeName makes a path component of an id: readable, plus a short hash
// so that two ids that clean to the same text stay apart.
func safeName(id string) string {
	h := sha256.Sum256([]byte(id))
	c := unsafeRe.ReplaceAllString(id, "-")
	if len(c) > 40 {
		c = c[:40]
	}
	return strings.Trim(c, "-.") + "-" + hex.EncodeToString(h[:4])
}
