package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// blockedSources are never bound into a sandbox: system and credential
// paths (a path under one of them is blocked too).
var blockedSources = []string{"/etc", "/proc", "/sys", "/dev", "/root", "/boot", "/run", "/var/run"}

var blockedHome = []string{".aws", ".cargo", ".config", ".docker", ".gnupg", ".netrc", ".npm", ".ssh", ".openclaw"}

// reservedTargets are the sandbox's own mount points.
var reservedTargets = []string{"/workspace", "/agent", "/proc", "/dev", "/tmp", "/usr", "/etc"}

// realPath resolves p through its deepest existing ancestor, so that a
// path whose leaf does not exist yet is still judged where a symlinked
// parent takes it.
func realPath(p string) (string, error) {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fmt.Errorf("cannot resolve %s", p)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func under(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// CheckBinds validates the extra binds: the source, both as written and
// resolved through symlinks, must not be a blocked path, and must lie
// under allowed roots (the agent workspace, the sandbox workspace root)
// unless dangerouslyAllowExternalBindSources; the target must not shadow
// the sandbox's own mounts.
func (s Settings) CheckBinds(roots ...string) error {
	home, _ := os.UserHomeDir()
	var realRoots []string
	for _, r := range roots {
		if rr, err := realPath(r); err == nil {
			realRoots = append(realRoots, rr)
		}
	}
	for _, b := range s.Binds {
		for _, t := range reservedTargets {
			if under(filepath.Clean(b.Target), t) {
				return fmt.Errorf("sandbox bind %s:%s: the target %s is the sandbox's own mount", b.Source, b.Target, t)
			}
		}
		real, err := realPath(b.Source)
		if err != nil {
			return fmt.Errorf("sandbox bind %s: %v", b.Source, err)
		}
		for _, p := range []string{filepath.Clean(b.Source), real} {
			if p == "/" {
				return fmt.Errorf("sandbox bind %s: binding / is refused", b.Source)
			}
			for _, bl := range blockedSources {
				if under(p, bl) {
					return fmt.Errorf("sandbox bind %s: resolves to %s, under %s, which is never bound into a sandbox", b.Source, p, bl)
				}
			}
			if strings.HasSuffix(p, "docker.sock") || strings.HasSuffix(p, "podman.sock") {
				return fmt.Errorf("sandbox bind %s: a container socket is never bound into a sandbox", b.Source)
			}
			if home != "" {
				for _, h := range blockedHome {
					if under(p, filepath.Join(home, h)) {
						return fmt.Errorf("sandbox bind %s: resolves to %s, a credential folder, which is never bound into a sandbox", b.Source, p)
					}
				}
			}
		}
		if s.AllowExternal {
			continue
		}
		ok := false
		for _, r := range realRoots {
			if under(real, r) {
				ok = true
			}
		}
		if !ok {
			return fmt.Errorf("sandbox bind %s: resolves to %s, outside the agent workspace and the sandbox workspace root "+
				"(set agents.defaults.sandbox.docker.dangerouslyAllowExternalBindSources to allow it)", b.Source, real)
		}
	}
	return nil
}
