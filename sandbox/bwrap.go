package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Binary is the bubblewrap executable looked up on PATH.
var Binary = "bwrap"

// limitShell sets the limits, then runs the command with the caller's
// shell: ulimit without -S/-H sets both, so the command cannot raise them.
const limitShell = "/usr/bin/bash"

// etcFiles are what the sandbox sees of /etc (read-only): name lookup,
// TLS roots, the dynamic loader's cache and the Debian alternatives that
// /usr/bin links through. Not shadow, gshadow, sudoers, ssh keys or
// anything else.
var etcFiles = []string{"passwd", "group", "hosts", "hostname", "resolv.conf", "nsswitch.conf", "host.conf",
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ssl", "ca-certificates", "ca-certificates.conf", "alternatives",
	"localtime", "timezone", "mime.types", "bash.bashrc", "profile", "inputrc", "terminfo", "protocols", "services",
	"gai.conf", "os-release", "debian_version", "gitconfig", "magic", "mailcap"}

// Request is one command to run in the sandbox.
type Request struct {
	Shell         string // the shell that runs Command (inside the sandbox's /usr)
	Command       string
	Workdir       string // as the caller gave it ("" the workspace)
	HostWorkspace string // the agent workspace on the host
	SessionKey    string
	PTY           bool
}

// Plan is how to start it: Argv (bwrap and its arguments) started in Dir
// (as the gateway's own user).
type Plan struct {
	Argv    []string
	Files   []*os.File // the bound directories, as fds 3, 4, …: pass them as ExtraFiles, Close after the start
	Dir     string
	Workdir string // inside the sandbox
	Scratch string // the private workspace on the host ("" with rw)
	Warn    string
}

// Plan builds the bwrap command line for r, creating the private
// workspace when the access needs one. It checks the backend first: a
// sandbox that cannot start is an error, never a host run.
func (s Settings) Plan(r Request) (*Plan, error) {
	if s.Backend != "bubblewrap" {
		return nil, fmt.Errorf("sandbox backend %q is not available in this build (%s): set it to \"bubblewrap\" "+
			"or set %s to \"off\"", s.Backend, s.keyOr("backend"), s.keyOr("mode"))
	}
	if err := s.Available(); err != nil {
		return nil, err
	}
	if err := s.CheckBinds(r.HostWorkspace, s.WorkspaceRoot); err != nil {
		return nil, err
	}
	p := &Plan{Dir: "/"}
	id, err := s.identity(s.ScopeDir(r.SessionKey))
	if err != nil {
		return nil, err
	}
	a := append([]string{Binary}, id.bwrapArgs(s.Network)...)
	if !r.PTY {
		// No controlling terminal (TIOCSTI into the caller's terminal). A
		// PTY command keeps its private terminal as its controlling one.
		a = append(a, "--new-session")
	}
	a = append(a, systemMounts()...)
	a = append(a, "--dir", "/etc")
	for _, f := range etcFiles {
		a = append(a, "--ro-bind-try", "/etc/"+f, "/etc/"+f)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--tmpfs", "/var/tmp", "--dir", "/run")

	// Every host folder is opened here and bound by its fd: what was
	// checked is what is bound (a symlink swapped in afterwards changes
	// nothing), and a sandbox user that cannot walk the path to it (the
	// gateway's 0700 state dir) still gets it.
	bind := func(src, dst string, ro bool) error {
		f, err := os.OpenFile(src, os.O_RDONLY|unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("sandbox: %v", err)
		}
		p.Files = append(p.Files, f)
		flag := "--bind-fd"
		if ro {
			flag = "--ro-bind-fd"
		}
		a = append(a, flag, strconv.Itoa(2+len(p.Files)), dst)
		return nil
	}
	fail := func(err error) (*Plan, error) {
		p.Close()
		return nil, err
	}
	hostOf := map[string]string{} // sandbox mount → host dir, for the workdir
	if s.WorkspaceAccess != "none" {
		if err := os.MkdirAll(r.HostWorkspace, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: agent workspace: %v", err)
		}
	}
	if s.WorkspaceAccess == "rw" {
		if err := bind(r.HostWorkspace, "/workspace", false); err != nil {
			return fail(err)
		}
		hostOf["/workspace"] = r.HostWorkspace
	} else {
		p.Scratch = s.ScopeDir(r.SessionKey)
		if err := os.MkdirAll(p.Scratch, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox workspace %s: %v", p.Scratch, err)
		}
		if id.setuid {
			if err := os.Chown(p.Scratch, id.uid, id.gid); err != nil {
				return nil, fmt.Errorf("sandbox workspace %s: %v", p.Scratch, err)
			}
		}
		if err := bind(p.Scratch, "/workspace", false); err != nil {
			return fail(err)
		}
		hostOf["/workspace"] = p.Scratch
		if s.WorkspaceAccess == "ro" {
			if err := bind(r.HostWorkspace, "/agent", true); err != nil {
				return fail(err)
			}
			hostOf["/agent"] = r.HostWorkspace
		}
	}
	for _, b := range s.Binds {
		real, _ := realPath(b.Source) // checked above
		if err := bind(real, b.Target, b.ReadOnly); err != nil {
			return fail(err)
		}
	}
	// The sandbox's own root (a tmpfs holding the mount points) read-only
	// too: only /tmp, /var/tmp and the workspace take writes.
	a = append(a, "--remount-ro", "/")
	p.Workdir, p.Warn = workdirInside(r, hostOf, s.WorkspaceAccess)

	sh := r.Shell
	if !strings.HasPrefix(sh, "/usr/") && !strings.HasPrefix(sh, "/bin/") {
		sh = "/bin/sh"
	}
	if _, err := os.Stat(limitShell); err != nil {
		p.Close()
		return nil, fmt.Errorf("sandbox: %s is needed to set the limits inside: install bash", limitShell)
	}
	l := s.Limits
	// The bound fds must not reach the command: an O_PATH fd of the
	// workspace is a way around a read-only bind (openat on it).
	script := "ulimit -c 0"
	for i := range p.Files {
		script += fmt.Sprintf(" && exec %d>&-", 3+i)
	}
	for _, x := range []struct {
		flag string
		v    int64
	}{{"-t", l.CPUSeconds}, {"-v", l.MemoryBytes / 1024}, {"-u", l.Procs}, {"-n", l.Files}, {"-f", l.FileSize / 512}} {
		if x.v > 0 {
			script += " && ulimit " + x.flag + " " + strconv.FormatInt(x.v, 10)
		}
	}
	// cd here, as the sandbox's user (bwrap's --chdir runs before the switch).
	script += ` && cd -- "$2" && exec "$0" -c "$1"`
	a = append(a, "--")
	a = append(a, id.dropArgs()...)
	a = append(a, limitShell, "-c", script, sh, r.Command, p.Workdir)
	p.Argv = a
	return p, nil
}

// systemMounts are /usr read-only and the top-level links (or, without
// merged /usr, directories) into it.
func systemMounts() []string {
	a := []string{"--ro-bind", "/usr", "/usr"}
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if t, err := os.Readlink(d); err == nil {
			a = append(a, "--symlink", t, d)
		} else if st, err := os.Stat(d); err == nil && st.IsDir() {
			a = append(a, "--ro-bind", d, d)
		}
	}
	return a
}

// Close closes the bound directories' fds (after the start, or unused).
func (p *Plan) Close() {
	for _, f := range p.Files {
		f.Close()
	}
}

// workdirInside maps the caller's workdir to the sandbox's view: relative
// to /workspace; a host path inside the agent workspace to where it is
// mounted; a sandbox path as is. One that does not exist falls back to
// /workspace with a warning (as exec does on the host).
func workdirInside(r Request, hostOf map[string]string, access string) (string, string) {
	wd := r.Workdir
	if wd == "" {
		return "/workspace", ""
	}
	inside := wd
	if !filepath.IsAbs(wd) {
		inside = filepath.Join("/workspace", wd)
	} else if r.HostWorkspace != "" && under(filepath.Clean(wd), r.HostWorkspace) {
		rel, _ := filepath.Rel(r.HostWorkspace, wd)
		switch access {
		case "rw":
			inside = filepath.Join("/workspace", rel)
		case "ro":
			inside = filepath.Join("/agent", rel)
		default:
			inside = ""
		}
	}
	inside = filepath.Clean(inside)
	for mount, host := range hostOf {
		if under(inside, mount) {
			rel, _ := filepath.Rel(mount, inside)
			if st, err := os.Stat(filepath.Join(host, rel)); err == nil && st.IsDir() && !strings.HasPrefix(rel, "..") {
				return inside, ""
			}
		}
	}
	if inside == "/tmp" {
		return inside, ""
	}
	return "/workspace", fmt.Sprintf("Warning: workdir %q is not in the sandbox; using \"/workspace\".", wd)
}

// identity is who the sandbox's processes are. A gateway that is not root
// runs bwrap in a new user namespace as itself: the process limit set
// inside counts that namespace's processes only (Linux 5.14+). The kernel
// never applies RLIMIT_NPROC to root's processes, so a gateway that runs as
// root runs bwrap as root without a user namespace, and the command
// switches (setpriv, no new privileges, no capabilities) to docker.user or
// else to a uid of the sandbox's own (2000000 + a hash of its workspace),
// whose processes the limit counts. docker.user "0:0" keeps root (no
// process limit: the kernel exempts root).
type identity struct {
	root     bool // the gateway is root
	setuid   bool // switch to uid:gid inside
	uid, gid int
}

const uidBase, uidSpan = 2000000, 1000000

func (s Settings) identity(scopeDir string) (identity, error) {
	if os.Geteuid() != 0 {
		return identity{}, nil
	}
	id := identity{root: true}
	if _, set := s.Keys["docker.user"]; !set {
		h := sha256.Sum256([]byte(scopeDir))
		n := uidBase + int(binary.BigEndian.Uint32(h[:4])%uidSpan)
		id.setuid, id.uid, id.gid = true, n, n
		return id, nil
	}
	u, g, ok := strings.Cut(s.User, ":")
	if !ok {
		g = u
	}
	uid, err1 := strconv.ParseUint(u, 10, 31)
	gid, err2 := strconv.ParseUint(g, 10, 31)
	if err1 != nil || err2 != nil {
		return id, fmt.Errorf("sandbox user %q (%s) must be a numeric uid:gid", s.User, s.keyOr("docker.user"))
	}
	id.uid, id.gid = int(uid), int(gid)
	id.setuid = uid != 0 || gid != 0
	return id, nil
}

func (id identity) bwrapArgs(network bool) []string {
	if !id.root {
		a := []string{"--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent"}
		if network {
			a = append(a, "--share-net")
		}
		return a
	}
	// --unshare-all would make a user namespace mapping root to root only,
	// where no other uid exists to switch to: every namespace but the user's.
	a := []string{"--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent"}
	if !network {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--cap-drop", "ALL")
	if id.setuid {
		a = append(a, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP")
	}
	return a
}

// dropArgs run before the command: the switch to the sandbox's user, its
// capabilities gone for good (bwrap already set no_new_privs).
func (id identity) dropArgs() []string {
	if !id.setuid {
		return nil
	}
	return []string{setpriv, "--reuid", strconv.Itoa(id.uid), "--regid", strconv.Itoa(id.gid), "--clear-groups",
		"--bounding-set", "-all", "--inh-caps", "-all", "--no-new-privs", "--"}
}

const setpriv = "/usr/bin/setpriv"

func (s Settings) keyOr(field string) string {
	if k := s.Keys[field]; k != "" {
		return k
	}
	return "agents.defaults.sandbox." + field
}

var probe struct {
	sync.Mutex
	ok   bool
	path string
}

// Available checks once per process (until it succeeds) that bubblewrap is
// installed and can create its namespaces here; the error is one line
// saying what to install or set.
func (s Settings) Available() error {
	probe.Lock()
	defer probe.Unlock()
	path, err := exec.LookPath(Binary)
	if err != nil {
		return fmt.Errorf("sandbox: bubblewrap (%s) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap) or set %s to \"off\"",
			Binary, s.keyOr("mode"))
	}
	if probe.ok && probe.path == path {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := s.identity(s.WorkspaceRoot)
	if err != nil {
		return err
	}
	if id.setuid {
		if _, err := os.Stat(setpriv); err != nil {
			return fmt.Errorf("sandbox: %s is needed to leave root inside the sandbox: install util-linux, or set %s to \"0:0\" (no process limit)",
				setpriv, s.keyOr("docker.user"))
		}
	}
	args := append(id.bwrapArgs(false), systemMounts()...)
	args = append(append(append(args, "--"), id.dropArgs()...), "/usr/bin/true")
	cmd := exec.CommandContext(ctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		var ee *exec.ExitError
		if msg == "" || !errors.As(err, &ee) {
			msg = err.Error()
		}
		return fmt.Errorf("sandbox: bubblewrap cannot create its namespaces here (%s): allow unprivileged user namespaces "+
			"(sysctl kernel.unprivileged_userns_clone=1 or kernel.apparmor_restrict_unprivileged_userns=0) or set %s to \"off\"",
			msg, s.keyOr("mode"))
	}
	probe.ok, probe.path = true, path
	return nil
}

// Env is the sandbox's environment: nothing of the gateway's (its tokens
// and keys stay out), a fixed PATH and HOME, the caller's overrides.
func Env(over map[string]string, shell string, pty bool) []string {
	term := "dumb"
	if pty {
		term = "xterm-256color"
	}
	base := map[string]string{
		"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/workspace", "TMPDIR": "/tmp",
		"LANG": "C.UTF-8", "TERM": term, "SHELL": shell, "OPENCLAW_SANDBOX": "1",
	}
	for k, v := range over {
		base[k] = v
	}
	out := make([]string, 0, len(base))
	for k, v := range base {
		out = append(out, k+"="+v)
	}
	return out
}
