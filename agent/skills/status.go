package skills

import (
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/config"
)

// Reqs is one list per requirement kind; the JSON names are the original's.
type Reqs struct {
	Bins    []string `json:"bins"`
	AnyBins []string `json:"anyBins"`
	Env     []string `json:"env"`
	Config  []string `json:"config"`
	OS      []string `json:"os"`
}

// ConfigCheck is one requires.config path and whether it is truthy.
type ConfigCheck struct {
	Path      string `json:"path"`
	Satisfied bool   `json:"satisfied"`
}

// InstallOption is an installer hint as skills.status lists it.
type InstallOption struct {
	ID    string   `json:"id"`
	Kind  string   `json:"kind"`
	Label string   `json:"label"`
	Bins  []string `json:"bins"`
}

// SkillStatus is one skill in the original's skills.status report.
type SkillStatus struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	Source               string          `json:"source"`
	Bundled              bool            `json:"bundled"`
	FilePath             string          `json:"filePath"`
	BaseDir              string          `json:"baseDir"`
	SkillKey             string          `json:"skillKey"`
	PrimaryEnv           string          `json:"primaryEnv,omitempty"`
	Emoji                string          `json:"emoji,omitempty"`
	Homepage             string          `json:"homepage,omitempty"`
	Always               bool            `json:"always"`
	Disabled             bool            `json:"disabled"`
	BlockedByAllowlist   bool            `json:"blockedByAllowlist"`
	BlockedByAgentFilter bool            `json:"blockedByAgentFilter"`
	Eligible             bool            `json:"eligible"`
	PlatformIncompatible bool            `json:"platformIncompatible"`
	ModelVisible         bool            `json:"modelVisible"`
	UserInvocable        bool            `json:"userInvocable"`
	CommandVisible       bool            `json:"commandVisible"`
	Requirements         Reqs            `json:"requirements"`
	Missing              Reqs            `json:"missing"`
	ConfigChecks         []ConfigCheck   `json:"configChecks"`
	Install              []InstallOption `json:"install"`

	skill *Skill
}

// Report is the original's skills.status answer (plus diagnostics: the
// SKILL.md files that were skipped, and why).
type Report struct {
	WorkspaceDir     string         `json:"workspaceDir"`
	ManagedSkillsDir string         `json:"managedSkillsDir"`
	AgentID          string         `json:"agentId,omitempty"`
	AgentSkillFilter []string       `json:"agentSkillFilter,omitempty"`
	Skills           []*SkillStatus `json:"skills"`
	Diagnostics      []Diagnostic   `json:"diagnostics,omitempty"`
}

// Platform is this host's OS as the original names it (darwin, linux, win32).
func Platform() string {
	if runtime.GOOS == "windows" {
		return "win32"
	}
	return runtime.GOOS
}

func normOS(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "macos":
		return "darwin"
	case "windows":
		return "win32"
	}
	return s
}

// configDefaults are paths that count as truthy when unset, as the
// original's skill gating defaults them.
var configDefaults = map[string]bool{"browser.enabled": true, "browser.evaluateEnabled": true}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case int:
		return x != 0
	}
	return true // objects and arrays, as in JavaScript
}

// Status loads the skills and evaluates each: eligible when not disabled
// by skills.entries.<key>.enabled=false, its os matches, and (unless
// always) every bin, one of anyBins, every env var (in the process, in
// skills.entries.<key>.env, or the apiKey of its primaryEnv) and every
// config path is present. The agent's skills allowlist
// (agents.list[].skills, else agents.defaults.skills) marks the others
// blockedByAgentFilter.
func Status(in Inputs) *Report {
	cfg := cfgOf(in)
	loaded, diags := Load(in)
	rep := &Report{WorkspaceDir: in.Workspace, ManagedSkillsDir: ManagedDir(in.StateDir), AgentID: in.AgentID,
		Skills: []*SkillStatus{}, Diagnostics: diags}
	filter, filtered := AgentFilter(cfg, in.AgentID)
	allowed := map[string]bool{}
	if filtered {
		rep.AgentSkillFilter = filter
		for _, n := range filter {
			allowed[n] = true
		}
	}
	bins := map[string]bool{}
	hasBin := func(b string) bool {
		ok, seen := bins[b]
		if !seen {
			_, err := exec.LookPath(b)
			ok = err == nil
			bins[b] = ok
		}
		return ok
	}
	platform := Platform()
	for _, s := range loaded {
		st := evaluate(cfg, s, hasBin, platform)
		st.BlockedByAgentFilter = filtered && !allowed[s.Name]
		avail := st.Eligible && !st.BlockedByAgentFilter
		st.ModelVisible = avail && !s.DisableModelInvocation
		st.CommandVisible = avail && s.UserInvocable
		rep.Skills = append(rep.Skills, st)
	}
	return rep
}

func evaluate(cfg *config.Config, s *Skill, hasBin func(string) bool, platform string) *SkillStatus {
	key := s.Key()
	entry, _ := entryOf(cfg, key)
	m := s.Meta
	req := Reqs{Bins: m.Requires.Bins, AnyBins: m.Requires.AnyBins, Env: m.Requires.Env, Config: m.Requires.Config, OS: m.OS}
	req = nonNil(req)
	miss := nonNil(Reqs{})
	for _, b := range req.Bins {
		if !hasBin(b) {
			miss.Bins = append(miss.Bins, b)
		}
	}
	if len(req.AnyBins) > 0 {
		any := false
		for _, b := range req.AnyBins {
			if hasBin(b) {
				any = true
				break
			}
		}
		if !any {
			miss.AnyBins = req.AnyBins
		}
	}
	if len(req.OS) > 0 {
		ok := false
		for _, o := range req.OS {
			if normOS(o) == platform {
				ok = true
			}
		}
		if !ok {
			miss.OS = req.OS
		}
	}
	for _, e := range req.Env {
		if !envSatisfied(e, entry, m.PrimaryEnv) {
			miss.Env = append(miss.Env, e)
		}
	}
	checks := []ConfigCheck{}
	for _, p := range req.Config {
		v, ok := cfg.Get(p)
		sat := truthy(v)
		if !ok {
			sat = configDefaults[p]
		}
		checks = append(checks, ConfigCheck{Path: p, Satisfied: sat})
		if !sat {
			miss.Config = append(miss.Config, p)
		}
	}
	if m.Always { // always bypasses everything but the OS
		miss = nonNil(Reqs{OS: miss.OS})
	}
	disabled := false
	if v, ok := entry["enabled"].(bool); ok && !v {
		disabled = true
	}
	reqsOK := len(miss.OS) == 0 && (m.Always || len(miss.Bins)+len(miss.AnyBins)+len(miss.Env)+len(miss.Config) == 0)
	st := &SkillStatus{Name: s.Name, Description: s.Description, Source: s.Source, FilePath: s.FilePath, BaseDir: s.BaseDir,
		SkillKey: key, PrimaryEnv: m.PrimaryEnv, Emoji: m.Emoji, Homepage: s.Homepage, Always: m.Always, Disabled: disabled,
		Eligible: !disabled && reqsOK, PlatformIncompatible: len(miss.OS) > 0, UserInvocable: s.UserInvocable,
		Requirements: req, Missing: miss, ConfigChecks: checks, Install: installOptions(m, platform), skill: s}
	return st
}

func nonNil(r Reqs) Reqs {
	for _, p := range []*[]string{&r.Bins, &r.AnyBins, &r.Env, &r.Config, &r.OS} {
		if *p == nil {
			*p = []string{}
		}
	}
	return r
}

// entryOf is skills.entries.<key> as a map (nil when absent).
func entryOf(cfg *config.Config, key string) (map[string]any, bool) {
	v, ok := cfg.Get("skills.entries")
	if !ok {
		return nil, false
	}
	entries, _ := v.(map[string]any)
	e, ok := entries[key].(map[string]any)
	return e, ok
}

func envSatisfied(name string, entry map[string]any, primary string) bool {
	if strings.TrimSpace(os.Getenv(name)) != "" {
		return true
	}
	if env, ok := entry["env"].(map[string]any); ok {
		if s, _ := env[name].(string); strings.TrimSpace(s) != "" {
			return true
		}
	}
	return primary == name && apiKeySet(entry["apiKey"])
}

// apiKeySet: a non-empty string, or a SecretRef object naming an id.
func apiKeySet(v any) bool {
	switch k := v.(type) {
	case string:
		return strings.TrimSpace(k) != ""
	case map[string]any:
		id, _ := k["id"].(string)
		return strings.TrimSpace(id) != ""
	}
	return false
}

// AgentFilter is the agent's skills allowlist: agents.list[<id>].skills
// (or agents.entries.<id>.skills) when set, else agents.defaults.skills;
// ok is false when neither is set (every skill is visible).
func AgentFilter(cfg *config.Config, agentID string) (names []string, ok bool) {
	if agentID == "" {
		agentID = "main"
	}
	var list []map[string]any
	_ = cfg.Decode("agents.list", &list)
	for _, a := range list {
		if id, _ := a["id"].(string); id == agentID {
			if v, has := a["skills"]; has {
				return strs(v), true
			}
		}
	}
	if v, has := cfg.Get("agents.entries." + agentID + ".skills"); has && !strings.ContainsAny(agentID, ".[]") {
		return strs(v), true
	}
	if v, has := cfg.Get("agents.defaults.skills"); has {
		return strs(v), true
	}
	return nil, false
}

// installOptions lists the installer hints that fit this OS (labels as
// the original words them when the skill gives none).
func installOptions(m Meta, platform string) []InstallOption {
	out := []InstallOption{}
	for i, in := range m.Install {
		if len(in.OS) > 0 {
			fits := false
			for _, o := range in.OS {
				fits = fits || normOS(o) == platform
			}
			if !fits {
				continue
			}
		}
		id := in.ID
		if id == "" {
			id = in.Kind + "-" + itoa(i)
		}
		label := in.Label
		if label == "" {
			switch {
			case in.What != "" && in.Kind == "download":
				label = "Download " + in.What
			case in.What != "":
				label = "Install " + in.What + " (" + in.Kind + ")"
			default:
				label = "Run installer"
			}
		}
		bins := in.Bins
		if bins == nil {
			bins = []string{}
		}
		out = append(out, InstallOption{ID: id, Kind: in.Kind, Label: label, Bins: bins})
	}
	return out
}

// Find resolves a skill by name as `skills info` does: the exact name,
// then the skills.entries key, then case-insensitively, then with _ and
// spaces read as -; a selector matching several skills finds none.
func (r *Report) Find(sel string) *SkillStatus {
	sel = strings.TrimSpace(sel)
	if sel == "" {
		return nil
	}
	norm := func(s string) string {
		return strings.NewReplacer("_", "-", " ", "-").Replace(strings.ToLower(strings.TrimSpace(s)))
	}
	matchers := []func(*SkillStatus) bool{
		func(s *SkillStatus) bool { return s.Name == sel },
		func(s *SkillStatus) bool { return s.SkillKey == sel },
		func(s *SkillStatus) bool {
			return strings.EqualFold(s.Name, sel) || strings.EqualFold(s.SkillKey, sel)
		},
		func(s *SkillStatus) bool { return norm(s.Name) == norm(sel) || norm(s.SkillKey) == norm(sel) },
	}
	for _, m := range matchers {
		var hit []*SkillStatus
		for _, s := range r.Skills {
			if m(s) {
				hit = append(hit, s)
			}
		}
		if len(hit) > 0 {
			if len(hit) == 1 {
				return hit[0]
			}
			return nil
		}
	}
	return nil
}

// MissingSummary is "bins: gh; env: GH_TOKEN" for a skill's missing
// requirements ("" when none).
func (s *SkillStatus) MissingSummary() string {
	var parts []string
	for _, g := range []struct {
		k string
		v []string
	}{{"bins", s.Missing.Bins}, {"anyBins", s.Missing.AnyBins}, {"env", s.Missing.Env}, {"config", s.Missing.Config}, {"os", s.Missing.OS}} {
		if len(g.v) > 0 {
			parts = append(parts, g.k+": "+strings.Join(g.v, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// NeedsSetup: neither eligible, nor disabled, nor blocked on purpose.
func (s *SkillStatus) NeedsSetup() bool { return !s.Eligible && !s.Disabled && !s.BlockedByAllowlist }

// Bins lists every binary the loaded skills name (bins and anyBins),
// sorted and without repeats: what skills.bins answers a node.
func (r *Report) Bins() []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range r.Skills {
		for _, b := range append(append([]string{}, s.Requirements.Bins...), s.Requirements.AnyBins...) {
			if !seen[b] {
				seen[b] = true
				out = append(out, b)
			}
		}
	}
	sort.Strings(out)
	return out
}
