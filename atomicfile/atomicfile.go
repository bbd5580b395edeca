// Package atomicfile writes files so that a reader (or a crash) sees either
// the old content or the whole new content, never a half-written file: the
// bytes go to a temp file in the target's directory, which is fsynced,
// renamed over the target, and the directory is fsynced so the rename
// itself survives a power cut. It is the one place this pattern lives.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is a pending replacement of a path. Write to it, then Commit to
// rename it into place, or Abort (always safe to defer) to drop it.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts a replacement of path with the given mode. The temp file is
// created in path's directory (so the rename is atomic), named
// ".<base>.tmp-*" so directory scanners can recognise and skip it.
func Create(path string, perm os.FileMode) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("atomic write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("atomic write %s: %w", path, err)
	}
	return &File{File: f, path: path}, nil
}

// TempName is the temp file's path (for callers that must rename it under a
// lock of their own, see CommitTo).
func (f *File) TempName() string { return f.File.Name() }

// Commit fsyncs the file, renames it over the target and fsyncs the
// directory. After a failed Commit the target is unchanged and the temp file
// is gone.
func (f *File) Commit() error { return f.CommitTo(f.path) }

// CommitTo is Commit onto another path in the same directory (a content
// addressed name known only once the bytes are written).
func (f *File) CommitTo(path string) error {
	if f.done {
		return fmt.Errorf("atomic write %s: already committed or aborted", path)
	}
	f.done = true
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.File.Name(), path)
	}
	if err != nil {
		os.Remove(f.File.Name())
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	return nil
}

// Abort drops the pending file; a no-op after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// WriteFile replaces path with data (mode perm).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteFrom replaces path with what r yields, checking ctx between chunks,
// and returns the byte count. A cancelled ctx leaves path unchanged and
// returns ctx's error (wrapped).
func WriteFrom(ctx context.Context, path string, r io.Reader, perm os.FileMode) (int64, error) {
	f, err := Create(path, perm)
	if err != nil {
		return 0, err
	}
	defer f.Abort()
	n, err := io.Copy(f, ctxReader{ctx, r})
	if err != nil {
		return n, fmt.Errorf("atomic write %s: %w", path, err)
	}
	return n, f.Commit()
}

// SyncDir fsyncs a directory so a rename or create in it is durable. File
// systems that cannot fsync a directory (EINVAL) are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !isEINVAL(err) {
		return err
	}
	return nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// WriteCache replaces path with data (mode perm) through a temp file and a
// rename, without the fsyncs: a reader never sees a half-written file, but
// a crash may lose the write. For caches whose loss costs only their
// benefit (a browser snapshot's baseline for the next diff), where an
// fsync per call would cost more than the cache saves.
func WriteCache(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("cache write %s: %w", path, err)
	}
	f.done = true
	if err := f.File.Close(); err != nil {
		os.Remove(f.File.Name())
		return fmt.Errorf("cache write %s: %w", path, err)
	}
	if err := os.Rename(f.File.Name(), path); err != nil {
		os.Remove(f.File.Name())
		return fmt.Errorf("cache write %s: %w", path, err)
	}
	return nil
}
