//go:build unix

package mcpclient

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so closing the
// session can end the helpers it spawned too (npx starts node).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group led by pid (an ended group is fine).
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
