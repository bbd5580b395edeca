//go:build !unix

package memory

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// scanNotes without directory descriptors: a WalkDir with Lstat. No inode
// or ctime is known here, so a same-size edit that restores the mtime is
// seen only by the racy-window re-check.
func scanNotes(root string) ([]scanned, error) {
	var out []scanned
	for _, name := range []string{"MEMORY.md", "memory.md"} {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		dup := false
		for _, s := range out {
			if s2, err := os.Lstat(filepath.Join(root, s.rel)); err == nil && os.SameFile(s2, fi) {
				dup = true
			}
		}
		if !dup {
			out = append(out, scanned{rel: name, st: noteStat{size: fi.Size(), mtime: fi.ModTime().UnixNano()}})
		}
	}
	dir := filepath.Join(root, "memory")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return out, nil
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() || !isNoteName(d.Name()) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		out = append(out, scanned{rel: filepath.ToSlash(rel), st: noteStat{size: fi.Size(), mtime: fi.ModTime().UnixNano()}})
		return nil
	})
	return out, err
}

var errNotNote = errors.New("not a regular note")

func openNote(root, rel string) (*os.File, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: rel, Err: errNotNote}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: rel, Err: errNotNote}
	}
	return f, nil
}
