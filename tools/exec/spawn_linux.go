package exectool

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// A child started with PR_SET_PDEATHSIG gets SIGKILL when the *thread*
// that forked it exits, not the process: Go may end an idle OS thread, so
// every command is forked from one goroutine locked to its thread for the
// life of the process. Then a gateway that dies (kill -9 included) takes
// the shell of every command with it; what the shell started is ended by
// the next start (records.go), found by its token (descendants.go).
var (
	spawnReq  = make(chan func())
	spawnOnce sync.Once // the thread starts with the first command, not at init
)

func spawner() {
	runtime.LockOSThread() // never unlocked: this thread lives as long as the process
	for f := range spawnReq {
		f()
	}
}

// spawn runs start (which forks) on the spawner thread, with the parent
// death signal set on cmd.
func spawn(cmd *exec.Cmd, start func() error) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	spawnOnce.Do(func() { go spawner() })
	done := make(chan error, 1)
	spawnReq <- func() { done <- start() }
	return <-done
}
