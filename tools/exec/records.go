package exectool

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/openclaw-go/openclaw/atomicfile"
)

// The gateway records every command it has running in exec-sessions.json
// under the state dir, so a gateway that died without stopping them
// (kill -9, OOM, power) has its successor end what survived and list
// those sessions as interrupted. The shell itself dies with the gateway
// (spawn_linux.go); its descendants are found by their token.

const recordsFile = "exec-sessions.json"

// maxRecordsBytes caps the read of the record file.
const maxRecordsBytes = 4 << 20

// record is one running command as the next gateway needs it.
type record struct {
	ID         string `json:"id"`
	Agent      string `json:"agent"`
	Command    string `json:"command"`
	Cwd        string `json:"cwd"`
	PID        int    `json:"pid"`
	Token      string `json:"token"`
	StartedAt  int64  `json:"startedAtMs"`
	Background bool   `json:"background"`
}

func (r *registry) recordsPath() string {
	if r.stateDir == "" {
		return ""
	}
	return filepath.Join(r.stateDir, recordsFile)
}

// persist rewrites the record file with the commands running now.
func (r *registry) persist() {
	path := r.recordsPath()
	if path == "" {
		return
	}
	r.recMu.Lock()
	defer r.recMu.Unlock()
	r.mu.Lock()
	recs := []record{}
	for _, s := range r.sessions {
		if s.p.cmd == nil || s.p.state().exited {
			continue
		}
		recs = append(recs, record{ID: s.id, Agent: s.agent, Command: s.command, Cwd: s.cwd, PID: s.p.pid,
			Token: s.p.token, StartedAt: s.startedAt.UnixMilli(), Background: s.isBackgrounded()})
	}
	r.mu.Unlock()
	sort.Slice(recs, func(i, j int) bool { return recs[i].StartedAt < recs[j].StartedAt })
	b, _ := json.MarshalIndent(recs, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		_ = atomicfile.WriteFile(path, append(b, '\n'), 0o600)
	}
}

// loadRecords reads what a previous gateway left (none when missing).
func loadRecords(path string) ([]record, error) {
	b, err := atomicfile.ReadCapped(path, maxRecordsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("exec records: %w", err)
	}
	var recs []record
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("exec records: %s: %w", path, err)
	}
	return recs, nil
}

// recover ends what a previous gateway's commands left running and keeps
// their sessions, as interrupted, for `process list` and `process poll`.
func (r *registry) recover() {
	path := r.recordsPath()
	if path == "" {
		return
	}
	recs, err := loadRecords(path)
	if err != nil {
		return // unreadable: nothing to recover; persist replaces it below
	}
	now := time.Now()
	for _, rec := range recs {
		killTagged(rec.Token)
		p := &proc{pid: rec.PID, token: rec.Token, out: newOutput(aggCap(), pendCap()), done: make(chan struct{}),
			stdinTurn: make(chan struct{}, 1), started: time.UnixMilli(rec.StartedAt), exited: true,
			killedBy: "interrupted", ended: now}
		close(p.done)
		s := &session{agent: rec.Agent, command: rec.Command, cwd: rec.Cwd, p: p, startedAt: p.started, backgrounded: true}
		r.mu.Lock()
		s.id = rec.ID
		if _, dup := r.sessions[s.id]; dup || s.id == "" {
			s.id = r.freshName()
		}
		r.sessions[s.id] = s
		r.mu.Unlock()
	}
	r.persist()
}
