package nodehost

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// formatExecCommand is the original's display form of an argv (what
// rawCommand must equal); one definition, shared with the gateway's exec
// host=node (policy.DisplayArgv).
func formatExecCommand(argv []string) string { return policy.DisplayArgv(argv) }

// shellWrappers are the POSIX shells whose `-c PAYLOAD` is an inline script.
var shellWrappers = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "fish": true}

// shellPayload is the inline script of `sh -c PAYLOAD` (also -lc), or "".
func shellPayload(argv []string) (string, bool) {
	if len(argv) < 3 || !shellWrappers[filepath.Base(argv[0])] {
		return "", false
	}
	for i := 1; i < len(argv)-1; i++ {
		f := argv[i]
		if !strings.HasPrefix(f, "-") {
			return "", false
		}
		if strings.Contains(f, "c") && !strings.HasPrefix(f, "--") {
			return argv[i+1], true
		}
	}
	return "", false
}

// posixQuote quotes one word for the shell exec runs the command with.
func posixQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~=%^") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = posixQuote(a)
	}
	return strings.Join(q, " ")
}

// resolveExecutable is the real absolute path of argv[0] as the shell
// would find it (PATH for a bare name, cwd for a relative path), or "".
func resolveExecutable(name, cwd string) string {
	var p string
	if strings.Contains(name, "/") {
		p = name
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
	} else {
		lp, err := exec.LookPath(name)
		if err != nil {
			return ""
		}
		p = lp
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return ""
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() {
		return ""
	}
	return abs
}

type whichParams struct {
	Bins []string `json:"bins"`
}

// runWhich is system.which: each bin found on this node's PATH, {bins:{name:path}}.
func (h *Host) runWhich(ctx context.Context, _ *tools.Env, p whichParams) (any, error) {
	found := map[string]string{}
	dirs := filepath.SplitList(h.getenv("PATH"))
	if len(dirs) == 0 {
		dirs = filepath.SplitList("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	for _, bin := range p.Bins {
		bin = strings.TrimSpace(bin)
		if bin == "" || strings.ContainsAny(bin, `/\`) {
			continue
		}
		for _, d := range dirs {
			if d == "" {
				continue
			}
			c := filepath.Join(d, bin)
			if st, err := os.Stat(c); err == nil && !st.IsDir() {
				found[bin] = c
				break
			}
		}
	}
	return map[string]any{"bins": found}, nil
}

type listDirParams struct {
	Path *string `json:"path"`
}

type dirEntry struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Hidden bool   `json:"hidden,omitempty"`
}

// maxDirEntries bounds one listing.
const maxDirEntries = 10000

// runListDir is fs.listDir, the original's shape: the directories of one
// absolute path (default the home directory), visible first, then hidden,
// each sorted by name; symlinks to directories count.
func (h *Host) runListDir(ctx context.Context, _ *tools.Env, p listDirParams) (any, error) {
	home, _ := os.UserHomeDir()
	req := home
	if p.Path != nil && *p.Path != "" {
		req = *p.Path
	}
	if !filepath.IsAbs(req) {
		return nil, failure.Errorf(failure.CodeInvalidParams, "fs.listDir path must be absolute")
	}
	dir := filepath.Clean(req)
	f, err := os.Open(dir)
	if err != nil {
		return nil, failure.Errorf(failure.CodeFailed, "fs.listDir: %v", err)
	}
	defer f.Close()
	ents, err := f.ReadDir(maxDirEntries)
	if err != nil && len(ents) == 0 && err.Error() != "EOF" {
		return nil, failure.Errorf(failure.CodeFailed, "fs.listDir: %v", err)
	}
	out := []dirEntry{}
	for _, e := range ents {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		path := filepath.Join(dir, e.Name())
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			st, err := os.Stat(path)
			isDir = err == nil && st.IsDir()
		}
		if !isDir {
			continue
		}
		out = append(out, dirEntry{Name: e.Name(), Path: path, Hidden: strings.HasPrefix(e.Name(), ".")})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Hidden != out[j].Hidden {
			return !out[i].Hidden
		}
		return out[i].Name < out[j].Name
	})
	res := map[string]any{"path": dir, "home": home, "entries": out}
	if parent := filepath.Dir(dir); parent != dir {
		res["parent"] = parent
	}
	return res, nil
}

type notifyParams struct {
	Title    string `json:"title"`
	Body     string `json:"body"`
	Sound    string `json:"sound"`
	Priority string `json:"priority"`
	Delivery string `json:"delivery"`
}

// runNotify is system.notify through notify-send (declared only when it
// is on PATH): priority passive/active/timeSensitive is urgency
// low/normal/critical.
func (h *Host) runNotify(ctx context.Context, _ *tools.Env, p notifyParams) (any, error) {
	if strings.TrimSpace(p.Title) == "" && strings.TrimSpace(p.Body) == "" {
		return nil, failure.Errorf(failure.CodeInvalidParams, "title or body required")
	}
	bin := h.lookPath("notify-send")
	if bin == "" {
		return nil, nodeErrorf("UNAVAILABLE", "notify-send is not on PATH")
	}
	urgency := map[string]string{"passive": "low", "active": "normal", "timeSensitive": "critical"}[p.Priority]
	if urgency == "" {
		urgency = "normal"
	}
	title := p.Title
	if title == "" {
		title = "OpenClaw"
	}
	args := []string{"--app-name=OpenClaw", "--urgency=" + urgency, "--", title}
	if p.Body != "" {
		args = append(args, p.Body)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, nodeErrorf("UNAVAILABLE", "notify-send failed: %v: %s", err, truncate(strings.TrimSpace(string(out)), 500))
	}
	return map[string]any{"ok": true}, nil
}
