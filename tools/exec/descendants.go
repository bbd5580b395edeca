package exectool

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"syscall"
)

// Every command runs with OPENCLAW_EXEC_TOKEN=<random> in its environment,
// which its descendants inherit: a child that left the process group
// (setsid, a daemon) is still found by the token, by this gateway's stop
// and kill and by the next gateway's start after a crash. (A process that
// clears its environment escapes; a subreaper would not help across a
// restart, and would make the gateway the parent of orphans it cannot tell
// from other families' children.)
const tokenEnv = "OPENCLAW_EXEC_TOKEN"

func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tagged lists the pids whose environment holds token (Linux /proc; none
// elsewhere). Only processes of our own user are readable, which is all
// a command can have started.
func tagged(token string) []int {
	if token == "" {
		return nil
	}
	want := []byte(tokenEnv + "=" + token)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(b, []byte{0}) {
			if bytes.Equal(kv, want) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// killTagged SIGKILLs every process carrying token, in rounds until none
// is left (a process may fork while we scan); it returns how many it hit.
func killTagged(token string) int {
	n := 0
	for round := 0; round < 10; round++ {
		pids := tagged(token)
		alive := 0
		for _, pid := range pids {
			if zombie(pid) {
				continue
			}
			alive++
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
		if alive == 0 {
			break
		}
	}
	return n
}

// zombie reports a process that has exited but is not reaped yet.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}
