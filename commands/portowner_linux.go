package commands

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// portOwner is a process listening on a TCP port.
type portOwner struct {
	PID     int    // 0 when the socket's process is not visible to us
	UID     int    // the socket's owner
	Cmdline string // from /proc/PID/cmdline
}

func (o portOwner) String() string {
	if o.PID == 0 {
		return fmt.Sprintf("a process of uid %d (not visible to you)", o.UID)
	}
	return fmt.Sprintf("pid %d (%s)", o.PID, o.Cmdline)
}

// portOwners finds the processes listening on port: the LISTEN sockets in
// /proc/net/tcp{,6} give inodes, and /proc/*/fd links name "socket:[inode]".
func portOwners(port int) ([]portOwner, error) {
	inodes := map[string]int{} // inode → uid
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if err := listenInodes(f, port, inodes); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	if len(inodes) == 0 {
		return nil, nil
	}
	found := map[string]bool{}
	var out []portOwner
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, proc := range procs {
		pid, err := strconv.Atoi(filepath.Base(proc))
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join(proc, "fd"))
		if err != nil {
			continue // another user's process
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(proc, "fd", fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			ino := strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")
			if _, ok := inodes[ino]; ok && !found[ino] {
				found[ino] = true
				out = append(out, portOwner{PID: pid, UID: inodes[ino], Cmdline: cmdline(pid)})
			}
		}
	}
	for ino, uid := range inodes {
		if !found[ino] {
			out = append(out, portOwner{UID: uid})
		}
	}
	return out, nil
}

// listenInodes adds the inodes of sockets listening on port in one
// /proc/net/tcp-format file.
func listenInodes(path string, port int, into map[string]int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" { // 0A = LISTEN
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(hexPort, 16, 16); err != nil || int(p) != port {
			continue
		}
		uid, _ := strconv.Atoi(fields[7])
		if fields[9] != "0" {
			into[fields[9]] = uid
		}
	}
	return sc.Err()
}

func cmdline(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return "?"
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for i, a := range args { // a secret on a command line is not ours to print
		name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if secretFlag(name) && strings.HasPrefix(a, "-") {
			if hasVal {
				args[i] = a[:strings.Index(a, "=")+1] + "***"
			} else if i+1 < len(args) {
				args[i+1] = "***"
			}
		}
	}
	s := strings.Join(args, " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func secretFlag(name string) bool {
	switch strings.ToLower(name) {
	case "token", "password", "secret", "api-key", "apikey":
		return true
	}
	return false
}
