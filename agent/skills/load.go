// Package skills loads the agent's skills as the original does: SKILL.md
// folders under the workspace's skills/ (and .agents/skills), the personal
// ~/.agents/skills, the state dir's skills/ and skills.load.extraDirs, in
// that precedence; their frontmatter's metadata.openclaw gates them (bins,
// anyBins, env, config, os), skills.entries.<key> overrides them, and the
// eligible ones are listed in the system prompt (name, description, the
// SKILL.md path), which the model reads with `read` when a task matches.
//
// Nothing is kept between turns but a parse cache keyed by file, size and
// modification time: every turn walks the roots again (a few ReadDirs and
// stats), so a skill added, edited or removed is seen on the next turn
// without a watcher or a restart.
package skills

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// Discovery limits, the original's defaults (skills.limits.* overrides).
const (
	DefaultMaxCandidatesPerRoot     = 300
	DefaultMaxSkillsLoadedPerSource = 200
	DefaultMaxSkillFileBytes        = 256000
	maxScanDepth                    = 6
	maxEntriesPerRoot               = 10000
)

// Source labels, as the original names them in skills.status.
const (
	SourceWorkspace = "openclaw-workspace"
	SourceProject   = "agents-skills-project"
	SourcePersonal  = "agents-skills-personal"
	SourceManaged   = "openclaw-managed"
	SourceExtra     = "openclaw-extra"
)

// Skill is one loaded SKILL.md.
type Skill struct {
	Name     string
	FilePath string // absolute path of SKILL.md
	BaseDir  string // its folder
	Source   string
	Front
}

// Key is the skills.entries key: metadata.openclaw.skillKey, else the name.
func (s *Skill) Key() string {
	if s.Meta.SkillKey != "" {
		return s.Meta.SkillKey
	}
	return s.Name
}

// Diagnostic reports a SKILL.md that was skipped, and why.
type Diagnostic struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Inputs say whose skills to load.
type Inputs struct {
	Config    *config.Config
	StateDir  string
	Workspace string
	AgentID   string
}

type root struct {
	dir, source string
	// contained: every SKILL.md must resolve inside the root (workspace,
	// project and extra roots); otherwise inside its own skill folder.
	contained bool
}

// roots lists the skill roots, highest precedence first.
func roots(in Inputs) []root {
	cfg := cfgOf(in)
	var rs []root
	if in.Workspace != "" {
		rs = append(rs, root{filepath.Join(in.Workspace, "skills"), SourceWorkspace, true},
			root{filepath.Join(in.Workspace, ".agents", "skills"), SourceProject, true})
	}
	// ~/.agents/skills only for the default state dir, as the original.
	if home := tools.ExpandHome("~"); home != "~" && in.StateDir != "" && filepath.Clean(in.StateDir) == filepath.Join(home, ".openclaw") {
		rs = append(rs, root{filepath.Join(home, ".agents", "skills"), SourcePersonal, false})
	}
	if in.StateDir != "" {
		rs = append(rs, root{ManagedDir(in.StateDir), SourceManaged, false})
	}
	var extra []string
	_ = cfg.Decode("skills.load.extraDirs", &extra)
	for _, d := range extra {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		d = tools.ExpandHome(d)
		if !filepath.IsAbs(d) && in.StateDir != "" {
			d = filepath.Join(in.StateDir, d)
		}
		rs = append(rs, root{filepath.Clean(d), SourceExtra, true})
	}
	return rs
}

// ManagedDir is the state dir's shared skills folder.
func ManagedDir(stateDir string) string { return filepath.Join(stateDir, "skills") }

func cfgOf(in Inputs) *config.Config {
	if in.Config == nil {
		return config.Empty()
	}
	return in.Config
}

func limit(cfg *config.Config, key string, def int) int {
	if n := cfg.Int("skills.limits."+key, def); n > 0 {
		return n
	}
	return def
}

// Load discovers every skill, highest precedence first: a name found in
// an earlier root hides the same name in later ones. Skipped files are
// reported as diagnostics.
func Load(in Inputs) ([]*Skill, []Diagnostic) {
	cfg := cfgOf(in)
	maxCand := limit(cfg, "maxCandidatesPerRoot", DefaultMaxCandidatesPerRoot)
	maxPerSource := limit(cfg, "maxSkillsLoadedPerSource", DefaultMaxSkillsLoadedPerSource)
	maxBytes := limit(cfg, "maxSkillFileBytes", DefaultMaxSkillFileBytes)
	var out []*Skill
	diags := []Diagnostic{}
	seen := map[string]bool{}
	seenRoot := map[string]bool{}
	for _, r := range roots(in) {
		real, err := filepath.EvalSymlinks(r.dir)
		if err != nil || seenRoot[real] {
			continue // a missing root is normal; the same root twice loads once
		}
		seenRoot[real] = true
		dirs, truncated := findSkillDirs(real, maxCand)
		if truncated {
			diags = append(diags, Diagnostic{Path: r.dir, Message: "too many skill folders: only the first " + itoa(maxCand) + " are read (skills.limits.maxCandidatesPerRoot)"})
		}
		loaded := 0
		for _, d := range dirs {
			s, msg := loadOne(d, real, r, maxBytes)
			if msg != "" {
				diags = append(diags, Diagnostic{Path: filepath.Join(d.dir, "SKILL.md"), Message: msg})
				continue
			}
			if seen[s.Name] {
				continue
			}
			if loaded >= maxPerSource {
				diags = append(diags, Diagnostic{Path: s.FilePath, Message: "skipped: more than " + itoa(maxPerSource) + " skills in " + r.dir + " (skills.limits.maxSkillsLoadedPerSource)"})
				continue
			}
			seen[s.Name] = true
			loaded++
			out = append(out, s)
		}
	}
	return out, diags
}

// found is a folder holding a SKILL.md; viaLink when the walk reached
// it through a symlinked folder (its real path then differs).
type found struct {
	dir     string
	viaLink bool
}

// findSkillDirs walks root (a real path, up to six levels) for folders
// holding a SKILL.md; it does not descend below one, nor into hidden
// folders or node_modules. Symlinked folders are followed (containment
// is checked on load). Folders come in name order.
func findSkillDirs(root string, maxCand int) (dirs []found, truncated bool) {
	budget := maxEntriesPerRoot
	var walk func(dir string, depth int, viaLink bool)
	walk = func(dir string, depth int, viaLink bool) {
		if len(dirs) >= maxCand || budget <= 0 {
			truncated = truncated || len(dirs) >= maxCand
			return
		}
		if st, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil && !st.IsDir() {
			dirs = append(dirs, found{dir, viaLink})
			return
		}
		if depth >= maxScanDepth {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		budget -= len(entries)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			p := filepath.Join(dir, name)
			isDir, link := e.IsDir(), e.Type()&os.ModeSymlink != 0
			if link {
				st, err := os.Stat(p)
				isDir = err == nil && st.IsDir()
			}
			if isDir {
				walk(p, depth+1, viaLink || link)
			}
		}
	}
	walk(root, 0, false)
	return dirs, truncated
}

// cache holds parsed SKILL.md files by real path, valid while the file's
// size and modification time are unchanged.
var cache = struct {
	sync.Mutex
	m map[string]cached
}{m: map[string]cached{}}

const maxCached = 4096

type cached struct {
	size  int64
	mtime time.Time
	front Front
	err   string
}

// loadOne reads dir/SKILL.md: it must resolve inside rootReal (or inside
// dir, for the managed and personal roots), be a regular file within
// maxBytes, and have a name and a description.
func loadOne(d found, rootReal string, r root, maxBytes int) (*Skill, string) {
	dir := d.dir
	file := filepath.Join(dir, "SKILL.md")
	// Resolve links only where there are some: the walk starts from the
	// root's real path, so a folder reached without a link is real.
	realDir := dir
	if d.viaLink {
		var err error
		if realDir, err = filepath.EvalSymlinks(dir); err != nil {
			return nil, "unreadable: " + err.Error()
		}
	}
	real := filepath.Join(realDir, "SKILL.md")
	if lst, err := os.Lstat(real); err != nil {
		return nil, "unreadable: " + err.Error()
	} else if lst.Mode()&os.ModeSymlink != 0 {
		if real, err = filepath.EvalSymlinks(real); err != nil {
			return nil, "unreadable: " + err.Error()
		}
	}
	bound := realDir
	if r.contained {
		bound = rootReal
	}
	if !inside(real, bound) {
		return nil, "skipped: resolves outside " + bound + " (a symlink out of the skills folder)"
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, "unreadable: " + err.Error()
	}
	if !st.Mode().IsRegular() {
		return nil, "skipped: not a regular file"
	}
	if st.Size() > int64(maxBytes) {
		return nil, "skipped: larger than " + itoa(maxBytes) + " bytes (skills.limits.maxSkillFileBytes)"
	}
	cache.Lock()
	c, ok := cache.m[real]
	cache.Unlock()
	if !ok || c.size != st.Size() || !c.mtime.Equal(st.ModTime()) {
		c = cached{size: st.Size(), mtime: st.ModTime()}
		b, err := atomicfile.ReadCapped(real, int64(maxBytes)+1)
		switch {
		case err != nil:
			c.err = "unreadable: " + err.Error()
		case len(b) > maxBytes:
			c.err = "skipped: larger than " + itoa(maxBytes) + " bytes (skills.limits.maxSkillFileBytes)"
		default:
			f, perr := ParseFront(b)
			c.front = f
			if perr != nil {
				c.err = perr.Error()
			}
		}
		cache.Lock()
		if len(cache.m) >= maxCached {
			clear(cache.m)
		}
		cache.m[real] = c
		cache.Unlock()
	}
	if c.err != "" {
		return nil, c.err
	}
	f := c.front
	name := f.Name
	if name == "" {
		name = filepath.Base(dir)
	}
	if strings.TrimSpace(f.Description) == "" {
		return nil, "description is required in the frontmatter"
	}
	abs := file
	if a, err := filepath.Abs(file); err == nil {
		abs = a
	}
	return &Skill{Name: name, FilePath: abs, BaseDir: filepath.Dir(abs), Source: r.source, Front: f}, ""
}

func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func itoa(n int) string { return strconv.Itoa(n) }

// sortByName orders skills as the original's prompt does (by name).
func sortByName(ss []*SkillStatus) {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].Name < ss[j].Name })
}
