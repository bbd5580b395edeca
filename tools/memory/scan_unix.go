//go:build unix

package memory

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// maxScanDepth bounds the directories below memory/ (a bind mount can make
// a tree without end).
const maxScanDepth = 64

// scanNotes is the stat scan: MEMORY.md (or memory.md) at the workspace
// root and every *.md under memory/, read through directory descriptors
// opened with O_NOFOLLOW, one fstatat per entry and no path resolution.
// Symlinks are never followed (files and directories alike), and a note
// with more than one hard link is skipped: its other name may be outside
// the workspace, as apply_patch and upload refuse such files too. Only
// regular files count.
func scanNotes(root string) ([]scanned, error) { return scanNotesHook(root, nil) }

// scanNotesHook is scanNotes calling onDir (when set) with each directory
// it is about to list, open as fd ("" for the workspace root, then
// "memory" and below): the gateway's watcher watches each before its
// entries are stat'ed, so no change after the stat goes unseen.
func scanNotesHook(root string, onDir func(fd int, rel string)) ([]scanned, error) {
	rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil, nil
		}
		return nil, fmt.Errorf("memory: workspace %s: %w", root, err)
	}
	defer unix.Close(rfd)
	if onDir != nil {
		onDir(rfd, "")
	}
	var out []scanned
	var seen []uint64 // MEMORY.md and memory.md are one file on case-insensitive disks
	for _, name := range []string{"MEMORY.md", "memory.md"} {
		var st unix.Stat_t
		if unix.Fstatat(rfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !loneRegular(&st) {
			continue
		}
		if slices.Contains(seen, uint64(st.Ino)) {
			continue
		}
		seen = append(seen, uint64(st.Ino))
		out = append(out, scanned{rel: name, st: statOf(&st)})
	}
	mfd, err := openDirAt(rfd, "memory")
	if err != nil {
		return out, nil // no memory/ (or a symlink, not followed)
	}
	if err := scanDir(mfd, "memory", 0, onDir, &out); err != nil {
		return nil, fmt.Errorf("memory: %s/memory: %w", root, err)
	}
	return out, nil
}

// scanDir lists one directory (taking ownership of fd) and recurses; an
// unreadable subdirectory is skipped, not fatal.
func scanDir(fd int, rel string, depth int, onDir func(int, string), out *[]scanned) error {
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	if onDir != nil {
		onDir(fd, rel)
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		if depth == 0 {
			return err
		}
		return nil
	}
	ents := statAll(fd, names)
	for i, name := range names {
		e := &ents[i]
		switch e.kind {
		case unix.S_IFDIR:
			if depth+1 >= maxScanDepth {
				continue
			}
			if sub, err := openDirAt(fd, name); err == nil {
				_ = scanDir(sub, rel+"/"+name, depth+1, onDir, out)
			}
		case unix.S_IFREG:
			if isNoteName(name) && e.nlink == 1 {
				*out = append(*out, scanned{rel: rel + "/" + name, st: e.st})
			}
		}
	}
	return nil
}

// entry is one fstatat result; kind 0 means gone since the listing.
type entry struct {
	kind  uint32
	nlink uint64
	st    noteStat
}

// parallelStats is the directory size from which its entries are stat'ed
// by several goroutines: the scan is one syscall per note, and a warm
// search at 40,000 notes spends most of its time here.
const parallelStats = 2048

func statAll(fd int, names []string) []entry {
	ents := make([]entry, len(names))
	stat := func(lo, hi int) {
		var st unix.Stat_t
		for i := lo; i < hi; i++ {
			if unix.Fstatat(fd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				ents[i] = entry{kind: uint32(st.Mode & unix.S_IFMT), nlink: uint64(st.Nlink), st: statOf(&st)}
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 4, len(names)/parallelStats+1)
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { stat(len(names)*w/workers, len(names)*(w+1)/workers) })
	}
	stat(0, len(names)/workers)
	wg.Wait()
	return ents
}

func openDirAt(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// loneRegular: a regular file with exactly one name.
func loneRegular(st *unix.Stat_t) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink == 1
}

func statOf(st *unix.Stat_t) noteStat {
	return noteStat{ino: int64(st.Ino), size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// errNotNote is a path that is not a note the memory tools may read.
var errNotNote = errors.New("not a regular, singly linked note")

// noteErr says errNotNote for a symlink met with O_NOFOLLOW (ELOOP, or
// ENOTDIR for a directory component).
func noteErr(rel string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		err = errNotNote
	}
	return &os.PathError{Op: "open", Path: rel, Err: err}
}

// openNote opens rel (a slash path below root) for reading the way the
// scan reaches it: each directory with O_NOFOLLOW below the root, the file
// with O_NOFOLLOW|O_NONBLOCK (a FIFO swapped in never blocks), then checks
// on the opened descriptor that it is a regular file with one link. A
// symlink or hard link planted after a check cannot redirect the read.
func openNote(root, rel string) (*os.File, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	parts := strings.Split(rel, "/")
	for _, dir := range parts[:len(parts)-1] {
		next, err := openDirAt(fd, dir)
		unix.Close(fd)
		if err != nil {
			return nil, noteErr(rel, err)
		}
		fd = next
	}
	nfd, err := unix.Openat(fd, parts[len(parts)-1], unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	unix.Close(fd)
	if err != nil {
		return nil, noteErr(rel, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(nfd, &st); err != nil || !loneRegular(&st) {
		unix.Close(nfd)
		return nil, &os.PathError{Op: "open", Path: rel, Err: errNotNote}
	}
	return os.NewFile(uintptr(nfd), rel), nil
}
