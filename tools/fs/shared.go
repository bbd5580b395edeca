package fs

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// This file exports the file tools' path and write machinery to the other
// families that change files (apply_patch), so every tool that writes
// resolves, confines, locks and commits a file the same way.

// Target is a resolved path argument (see resolve).
type Target = target

// Shown is the path as the caller wrote it.
func (t *target) Shown() string { return t.shown }

// Abs is the absolute, cleaned path.
func (t *target) Abs() string { return t.abs }

// Real is Abs with every symlink resolved: where a write lands.
func (t *target) Real() string { return t.real }

// Resolve resolves a path argument as the file tools do (~, file://, @,
// relative to the workspace; tools.fs.workspaceOnly applied).
func Resolve(env *tools.Env, raw string) (*Target, error) { return resolve(env, raw) }

// WorkspaceRoot is the caller's workspace as an absolute path.
func WorkspaceRoot(env *tools.Env) string { return workspaceRoot(env) }

// RealPath resolves every symlink of an absolute path, missing tails and
// dangling links included.
func RealPath(p string) (string, error) { return realPath(p) }

// Within reports whether p is root or below it (both cleaned, absolute).
func Within(root, p string) bool { return within(root, p) }

// GuardGatewayFiles refuses a gateway caller without operator.admin a
// write to the gateway's config and state (see guardGatewayFiles).
func GuardGatewayFiles(env *tools.Env, t *Target) error { return guardGatewayFiles(env, t) }

// LockFile takes the in-process per-file lock the file tools share.
func LockFile(ctx context.Context, real string) (func(), error) { return lockFile(ctx, real) }

// ReadRegular reads a regular file whole without blocking on a FIFO; what
// is not a regular file is refused with edit's messages.
func ReadRegular(t *Target) ([]byte, os.FileInfo, error) {
	f, fi, err := openRegular(t, editKind)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := readAll(f, fi.Size())
	return data, fi, err
}

// ReadRegularCapped is ReadRegular refusing a file over the edit limit
// (tools.fs.editMaxBytes), for tools that hold the file whole to change it.
func ReadRegularCapped(env *tools.Env, t *Target) ([]byte, os.FileInfo, error) {
	f, fi, err := openRegular(t, editKind)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := readCapped(f, fi, t, editMaxBytes(env))
	return data, fi, err
}

// Unchanged returns the check that the file is still the one read (same
// inode, size, mtime, bytes), for Staged.Commit.
func Unchanged(t *Target, prev os.FileInfo, data []byte) func() error {
	return unchanged(t, prev, data)
}

// Staged is new content written to a temp file next to its target and
// fsynced, waiting for the rename that publishes it. A multi-file change
// stages every file first, so a full disk or a quota fails before any
// target changes; only the renames are left, and they do not allocate.
type Staged struct {
	t     *target
	tmp   string
	batch *Stager // nil: Commit fsyncs the directory itself
}

// Stage writes data next to t (parent directories created) with prev's
// mode and owner (0644 for a new file). For more than one file, use a
// Stager.
func Stage(t *Target, data []byte, prev os.FileInfo) (*Staged, error) {
	s, err := new(Stager).Stage(t, data, prev)
	if s != nil {
		s.batch = nil
	}
	return s, err
}

// Stager stages the files of one multi-file change (apply_patch). It
// removes each directory's stale temp files once per change, not once per
// file: that sweep reads the directory and lstats every temp file in it,
// the ones this change staged before included, so sweeping per file made a
// patch adding n files to one directory cost n² (5,000 files: 42 s).
// Likewise the directories its commits rename into are fsynced once, by
// SyncDirs, not after every rename. The zero value is ready to use.
type Stager struct {
	swept   map[string]bool
	renamed map[string]bool
}

// Stage is the package-level Stage, sweeping t's directory only the first
// time this Stager sees it; the Staged's Commit leaves the directory's
// fsync to SyncDirs.
func (s *Stager) Stage(t *Target, data []byte, prev os.FileInfo) (*Staged, error) {
	dir, base := filepath.Split(t.real)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, writeError(t, err)
	}
	if !s.swept[dir] {
		if s.swept == nil {
			s.swept = map[string]bool{}
		}
		s.swept[dir] = true
		removeStaleTemps(dir, time.Now())
	}
	perm := os.FileMode(0o644)
	if prev != nil {
		perm = prev.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
	}
	f, tmp, err := createTemp(dir, base, perm)
	if err != nil {
		return nil, writeError(t, err)
	}
	fail := func(err error) (*Staged, error) {
		f.Close()
		os.Remove(tmp)
		return nil, writeError(t, err)
	}
	if prev != nil {
		if err := f.Chmod(perm); err != nil {
			return fail(err)
		}
		keepOwner(f, prev)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return nil, writeError(t, err)
	}
	return &Staged{t: t, tmp: tmp, batch: s}, nil
}

// SyncDirs fsyncs, once each, the directories the Stager's commits renamed
// into, which makes those renames durable. Call it when the change is done
// (rolled back included).
func (s *Stager) SyncDirs() {
	for dir := range s.renamed {
		syncDir(dir)
	}
	s.renamed = nil
}

// Commit renames the staged file over its target, after check (when set)
// agrees. The test hook of WithBeforeCommit runs first.
func (s *Staged) Commit(ctx context.Context, check func() error) error {
	if hook, ok := ctx.Value(beforeCommitKey{}).(func(string)); ok {
		hook(s.t.real)
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if err := os.Rename(s.tmp, s.t.real); err != nil {
		return writeError(s.t, err)
	}
	s.tmp = ""
	dir := filepath.Dir(s.t.real)
	if s.batch == nil {
		syncDir(dir)
		return nil
	}
	if s.batch.renamed == nil {
		s.batch.renamed = map[string]bool{}
	}
	s.batch.renamed[dir] = true
	return nil
}

// Abort removes the temp file of a staged write that was not committed.
func (s *Staged) Abort() {
	if s != nil && s.tmp != "" {
		os.Remove(s.tmp)
		s.tmp = ""
	}
}

// WithBeforeCommit runs fn(path) after a tool has read and changed a file
// and just before it commits, so tests can change the file at the worst
// moment (from another process).
func WithBeforeCommit(ctx context.Context, fn func(path string)) context.Context {
	return context.WithValue(ctx, beforeCommitKey{}, fn)
}
