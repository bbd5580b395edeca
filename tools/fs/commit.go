package fs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// commitFile replaces path with data so that every reader, and the file
// after a crash, a kill -9 or a full disk, sees either the old or the new
// content, never a mix: the data goes to a temp file in the same directory,
// is fsynced, and renamed over path. prev is the file being replaced (nil
// for a new one): its mode and, where allowed, its owner are kept. check,
// when set, runs just before the rename and can veto it (edit's "changed
// underneath" test). On failure nothing is left behind.
//
// A rename gives path a new inode: other hard links to the old file keep
// the old content, as with any editor that saves atomically. A target that
// is a mount point (EBUSY) is written in place instead (writeInPlace).
func commitFile(ctx context.Context, t *target, data []byte, prev os.FileInfo, check func() error) error {
	dir, base := filepath.Split(t.real)
	perm := os.FileMode(0o644)
	if prev != nil {
		perm = prev.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
	}
	removeStaleTemps(dir, time.Now())
	f, tmp, err := createTemp(dir, base, perm)
	if err != nil {
		return writeError(t, err)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if prev != nil {
		// Created under the umask; the replaced file's mode wins.
		if err := f.Chmod(perm); err != nil {
			return writeError(t, err)
		}
		keepOwner(f, prev)
	}
	if _, err := f.Write(data); err != nil {
		return writeError(t, err)
	}
	if err := f.Sync(); err != nil {
		return writeError(t, err)
	}
	if err := f.Close(); err != nil {
		return writeError(t, err)
	}
	if hook, ok := ctx.Value(beforeCommitKey{}).(func(string)); ok {
		hook(t.real)
	}
	if check != nil {
		if err := check(); err != nil {
			os.Remove(tmp)
			done = true
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		os.Remove(tmp)
		done = true
		return err
	}
	if err := os.Rename(tmp, t.real); err != nil {
		if prev == nil || !(errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV)) {
			return writeError(t, err)
		}
		// The target is a mount point (a file bind-mounted into a
		// container): it can only be changed in place.
		os.Remove(tmp)
		done = true
		if err := writeInPlace(t.real, data, prev.Size()); err != nil {
			return writeError(t, err)
		}
		return nil
	}
	done = true
	syncDir(dir)
	return nil
}

// writeInPlace overwrites a file that cannot be replaced. It first grows
// the file to its new size, so a file-size limit fails before any byte
// changes; a failure after that can still leave a mix (as any in-place
// write), which is why this is only the fallback.
func writeInPlace(path string, data []byte, oldSize int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	if n := int64(len(data)); n > oldSize {
		if err := f.Truncate(n); err != nil {
			_ = f.Truncate(oldSize)
			return err
		}
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return err
	}
	return f.Sync()
}

// beforeCommitKey carries a test hook (see export_test.go).
type beforeCommitKey struct{}

// createTemp makes a new file next to the target, named after it so a
// leftover from a killed process is recognisable (and removed by a later
// write's removeStaleTemps, which callers run first).
func createTemp(dir, base string, perm os.FileMode) (*os.File, string, error) {
	if len(base) > 200 {
		base = base[:200]
	}
	for range 10 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(r[:])+".tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.Perm())
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("cannot create a temporary file")
}

// writeError reports a failed write without the temp file's name: the
// target is what the caller knows, and it was not changed.
func writeError(t *target, err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return tools.Errorf(tools.CodeFailed, "Could not write %s: %v; nothing was written.", t.shown, err)
}

// syncDir makes the rename durable. Not every platform can fsync a
// directory; the rename is still atomic there.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// unchanged returns a check that the file at the target is still the one
// edit read (same inode, size, mtime, and bytes) just before the rename, so
// edit never overwrites a change made by someone else in between.
func unchanged(t *target, prev os.FileInfo, data []byte) func() error {
	return func() error {
		changed := tools.Errorf(tools.CodeFailed,
			"File changed while editing, nothing written: %s. Read it again, then retry the edit.", t.shown)
		f, err := os.OpenFile(t.real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != nil {
			return changed
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || !os.SameFile(fi, prev) || fi.Size() != prev.Size() || !fi.ModTime().Equal(prev.ModTime()) {
			return changed
		}
		if !sameContent(f, data) {
			return changed
		}
		return nil
	}
}

// sameContent compares a file with data without a second whole copy.
func sameContent(r io.Reader, data []byte) bool {
	buf := make([]byte, 64*1024)
	for {
		n, err := io.ReadFull(r, buf)
		if n > len(data) || !bytes.Equal(buf[:n], data[:n]) {
			return false
		}
		data = data[n:]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return len(data) == 0
		}
		if err != nil {
			return false
		}
	}
}
