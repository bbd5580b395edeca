package gateway

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FreePort is `serve --force`: it finds the processes listening on the TCP
// port (from /proc/net/tcp{,6} and /proc/*/fd), sends them SIGTERM, and
// SIGKILL after grace if the port is still taken. It returns the pids it
// signalled.
func FreePort(port int, grace time.Duration) ([]int, error) {
	inodes, err := listenInodes(port)
	if err != nil || len(inodes) == 0 {
		return nil, err
	}
	pids := socketOwners(inodes)
	self := os.Getpid()
	var signalled []int
	for _, pid := range pids {
		if pid == self {
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGTERM); err == nil {
			signalled = append(signalled, pid)
		}
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if in, _ := listenInodes(port); len(in) == 0 {
			return signalled, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range signalled {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	time.Sleep(100 * time.Millisecond)
	if in, _ := listenInodes(port); len(in) > 0 {
		return signalled, fmt.Errorf("--force: port %d is still in use", port)
	}
	return signalled, nil
}

// listenInodes returns the socket inodes in LISTEN state on port.
func listenInodes(port int) (map[string]bool, error) {
	out := map[string]bool{}
	hexPort := fmt.Sprintf(":%04X", port)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], hexPort) {
				continue
			}
			out[fields[9]] = true
		}
		fh.Close()
	}
	return out, nil
}

// socketOwners finds the pids holding any of the socket inodes.
func socketOwners(inodes map[string]bool) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	seen := map[int]bool{}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join(p, "fd"))
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(p, "fd", fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] && !seen[pid] {
				seen[pid] = true
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
