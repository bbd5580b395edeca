package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/flock"
)

// One gateway per state dir: a second one would run the same cron jobs and
// its start-up recovery (job records, background exec) would end the first
// one's running work. `openclaw serve` takes <state>/gateway.lock before it
// opens the database, and writes who holds it to gateway.pid beside it (the
// lock file itself is never rewritten or removed; see package flock).
const (
	stateLockName = "gateway.lock"
	stateInfoName = "gateway.pid"
	maxInfoBytes  = 4 << 10
)

// StateLock is a held gateway lock on a state dir.
type StateLock struct {
	dir    string
	unlock func()
	info   lockInfo
}

// lockInfo is gateway.pid: the holder's pid and port.
type lockInfo struct {
	PID         int   `json:"pid"`
	Port        int   `json:"port"`
	StartedAtMs int64 `json:"startedAtMs"`
}

// LockState takes the state dir's gateway lock for a gateway that will
// listen on port. While another process holds it, it fails at once (or,
// with wait > 0, after waiting that long: `serve --force` has just stopped
// the holder) with one line naming that gateway's pid and port; the error's
// code is FAILED (exit 1).
func LockState(stateDir string, port int, wait time.Duration) (*StateLock, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, fmt.Errorf("state dir %s: %w", stateDir, err)
	}
	path := filepath.Join(stateDir, stateLockName)
	deadline := time.Now().Add(wait)
	for {
		unlock, err := flock.TryLock(path)
		if err == nil {
			l := &StateLock{dir: stateDir, unlock: unlock,
				info: lockInfo{PID: os.Getpid(), Port: port, StartedAtMs: time.Now().UnixMilli()}}
			if err := l.write(); err != nil {
				unlock()
				return nil, err
			}
			return l, nil
		}
		if !errors.Is(err, flock.ErrHeld) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, failure.Errorf(failure.CodeFailed, "another gateway %s is already running with state dir %s: stop it first, or give this one its own state dir (--profile NAME or OPENCLAW_STATE_DIR)",
				holderDesc(stateDir), stateDir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// holderDesc is "(pid N, port P)" from gateway.pid when that process is
// alive, else what is known.
func holderDesc(stateDir string) string {
	b, err := atomicfile.ReadCapped(filepath.Join(stateDir, stateInfoName), maxInfoBytes)
	var info lockInfo
	if err != nil || json.Unmarshal(b, &info) != nil || info.PID <= 0 || !processAlive(info.PID) {
		return "(pid unknown: it is still starting)"
	}
	return fmt.Sprintf("(pid %d, port %d)", info.PID, info.Port)
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// SetPort records the port actually bound (it differs with port 0).
func (l *StateLock) SetPort(port int) error {
	if l == nil || l.info.Port == port {
		return nil
	}
	l.info.Port = port
	return l.write()
}

func (l *StateLock) write() error {
	b, _ := json.Marshal(l.info)
	if err := atomicfile.WriteFile(filepath.Join(l.dir, stateInfoName), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("state dir lock: %w", err)
	}
	return nil
}

// Release removes gateway.pid and releases the lock.
func (l *StateLock) Release() {
	if l == nil || l.unlock == nil {
		return
	}
	_ = os.Remove(filepath.Join(l.dir, stateInfoName))
	l.unlock()
	l.unlock = nil
}
