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

// maxKillRounds bounds killTagged: a process may fork while we scan, and
// each round kills what the one before it missed.
const maxKillRounds = 10

// killTagged SIGKILLs every process carrying token, in rounds until a scan
// finds none alive.
func killTagged(token string) {
	for round := 0; round < maxKillRounds; round++ {
		if killLive(tagged(token)) == 0 {
			return
		}
	}
}

// killLive SIGKILLs the pids that are not zombies and returns how many
// were alive.
func killLive(pids []int) int {
	alive := 0
	for _, pid := range pids {
		if zombie(pid) {
			continue
		}
		alive++
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return alive
}

// zombie reports a process that has exited but is not reaped yet (or is
// gone: a pid whose stat cannot be read needs no kill).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	st := procState(b)
	return st == 'Z' || st == 'X'
}

// procState is the state letter of a /proc/<pid>/stat line, 0 when the
// line is cut short. The command name is in parentheses and may itself
// hold ") ", so the state follows the last ')'.
func procState(stat []byte) byte {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return 0
	}
	return stat[i+2]
}
