package fs

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// target is a resolved file argument.
type target struct {
	// shown is the path as the caller gave it (a leading @ stripped); it is
	// what messages name, as the original does.
	shown string
	// abs is the absolute, cleaned path the tool opens.
	abs string
	// real is abs with every symlink resolved (dangling ones included); it
	// keys the per-file lock and is what workspace confinement checks.
	real string
}

// resolve turns a path argument into a target: leading @ stripped, file://
// URLs and ~ expanded, relative paths joined to the workspace. With
// tools.fs.workspaceOnly the real path must stay inside the workspace.
func resolve(env *tools.Env, raw string) (*target, error) {
	p := strings.TrimPrefix(raw, "@")
	shown := p
	if len(p) >= 7 && strings.EqualFold(p[:7], "file://") {
		u, err := url.Parse(p)
		if err != nil || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) || u.Path == "" {
			return nil, tools.Errorf(tools.CodeInvalidParams,
				"Invalid file URL: %s. Use a local file:///absolute/path or a plain path.", raw)
		}
		p = filepath.FromSlash(u.Path)
		if runtime.GOOS == "windows" && len(p) > 2 && os.IsPathSeparator(p[0]) && p[2] == ':' { // file:///C:/x
			p = p[1:]
		}
	}
	p = tools.ExpandHome(p)
	root := workspaceRoot(env)
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	t := &target{shown: shown, abs: filepath.Clean(p)}
	real, err := realPath(t.abs)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%s: %v", shown, err)
	}
	t.real = real
	if env.Config.Bool("tools.fs.workspaceOnly", false) {
		if err := confine(root, t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func workspaceRoot(env *tools.Env) string {
	root := env.WorkspaceDir()
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return root
}

// confine refuses a target whose real path leaves the workspace, through
// ../ or through a symlink anywhere on the way (a dangling final link too).
func confine(root string, t *target) error {
	realRoot, err := realPath(root)
	if err != nil {
		realRoot = root
	}
	if !within(realRoot, t.real) {
		return tools.Errorf(tools.CodeDenied, "Path escapes workspace root (%s): %s", root, t.shown)
	}
	return nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// realPath resolves every symlink in an absolute path, component by
// component. Unlike filepath.EvalSymlinks it accepts paths whose tail does
// not exist yet and follows dangling links, so the result is where a write
// would land.
func realPath(p string) (string, error) {
	vol := filepath.VolumeName(p)
	cur := vol + string(filepath.Separator)
	todo := splitPath(p[len(vol):])
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			// Missing components (and everything below them) are taken as
			// written; errors other than "not there" surface on open.
			cur = next
			continue
		}
		if hops++; hops > 255 {
			return "", errors.New("too many levels of symbolic links")
		}
		link, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(link) {
			lv := filepath.VolumeName(link)
			cur = lv + string(filepath.Separator)
			link = link[len(lv):]
		}
		todo = append(splitPath(link), todo...)
	}
	return cur, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return os.IsPathSeparator(uint8(r)) && r < 0x80 })
}
