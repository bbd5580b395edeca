// Package approvalsfile reads and writes the host's exec approvals file
// (exec-approvals.json under the state dir, the original's format). The
// decisions over its content live in policy, which stays pure; this
// package is the file: a capped read that refuses symlinks and non-regular
// files (security fails closed), and every write under one flock(2) lock
// shared by the CLI and the gateway, so two writers never lose an entry.
package approvalsfile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/flock"
	"github.com/openclaw-go/openclaw/policy"
)

// Name is the file's name under the state dir.
const Name = "exec-approvals.json"

// maxBytes caps what is read of the file.
const maxBytes = 4 << 20

// Path is the approvals file of a state dir.
func Path(stateDir string) string { return filepath.Join(stateDir, Name) }

// lockPath is the lock every writer takes (never removed: see flock).
func lockPath(path string) string { return path + ".lock" }

// Snapshot is the file as read: the document, the SHA-256 of its bytes
// (the compare-and-set token of exec.approvals.set) and whether it exists.
// A missing file hashes as "missing:" + the SHA-256 of nothing.
type Snapshot struct {
	Doc    *policy.ExecApprovals
	Hash   string
	Exists bool
}

// Load reads the document; a missing file is an empty one.
func Load(path string) (*policy.ExecApprovals, error) {
	s, err := Read(path)
	if err != nil {
		return nil, err
	}
	return s.Doc, nil
}

// Read reads the file with its hash. A symlinked, non-regular, oversized or
// unparsable file is an error.
func Read(path string) (*Snapshot, error) {
	b, err := readCapped(path)
	if errors.Is(err, os.ErrNotExist) {
		sum := sha256.Sum256(nil)
		return &Snapshot{Doc: policy.NewExecApprovals(), Hash: "missing:" + hex.EncodeToString(sum[:])}, nil
	}
	if err != nil {
		return nil, err
	}
	doc := policy.NewExecApprovals()
	if err := json.Unmarshal(b, doc); err != nil {
		return nil, fmt.Errorf("exec approvals: %s: %w", path, err)
	}
	doc.Normalize()
	sum := sha256.Sum256(b)
	return &Snapshot{Doc: doc, Hash: hex.EncodeToString(sum[:]), Exists: true}, nil
}

// readCapped reads the file without following a symlink or blocking on a
// FIFO, at most maxBytes of a regular file (atomicfile.ReadCapped).
func readCapped(path string) ([]byte, error) {
	b, err := atomicfile.ReadCapped(path, maxBytes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("exec approvals: %w", err)
	}
	return b, err
}

// Update changes the file under the writers' lock: it reads the current
// file, lets edit change the document (an error leaves the file as it
// was), and writes the result atomically with mode 0600 in a 0700
// directory. It returns the file as written.
func Update(ctx context.Context, path string, edit func(*Snapshot) error) (*Snapshot, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("exec approvals: %w", err)
	}
	unlock, err := flock.Lock(ctx, lockPath(path))
	if err != nil {
		return nil, fmt.Errorf("exec approvals: %w", err)
	}
	defer unlock()
	cur, err := Read(path)
	if err != nil {
		return nil, err
	}
	if err := edit(cur); err != nil {
		return nil, err
	}
	if err := write(path, cur.Doc); err != nil {
		return nil, err
	}
	return Read(path)
}

// write gives entries without an id one, then replaces the file.
func write(path string, d *policy.ExecApprovals) error {
	if d.Version == 0 {
		d.Version = 1
	}
	for _, a := range d.Agents {
		for i := range a.Allowlist {
			if a.Allowlist[i].ID == "" {
				a.Allowlist[i].ID = uuid.NewString()
			}
		}
	}
	for i := range d.Defaults.Allowlist {
		if d.Defaults.Allowlist[i].ID == "" {
			d.Defaults.Allowlist[i].ID = uuid.NewString()
		}
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("exec approvals: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("exec approvals: %w", err)
	}
	return nil
}
