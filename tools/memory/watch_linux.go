//go:build linux

package memory

import (
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// watchMask is what makes a watched directory's notes change: content
// written, metadata (size, mode, link count of a child) changed, entries
// created, deleted or renamed, and the directory itself moved or deleted.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// watcher is the gateway's change signal for one workspace's notes: an
// inotify descriptor with a watch on the workspace root and on every
// directory under memory/ the scan reaches (added as the scan opens each,
// before it lists it). Events are read at the start of each search,
// without blocking: the kernel queues an event inside the write that
// causes it, so a change that completed before the search began is always
// seen by it. Any event that can touch a note marks the notes dirty; the
// next search then scans them as a one-shot process does.
type watcher struct {
	mu    sync.Mutex
	fd    int
	root  string
	wds   map[int32]string // watch → directory ("" the root)
	seen  map[int32]bool   // watches the scan under way reached
	dirty bool
	// broken: the watcher cannot vouch for the notes (no inotify, watch
	// limit reached, queue overflow is only dirty): every search scans.
	broken  bool
	rootIno uint64
	rootDev uint64
	buf     []byte
}

// newWatcher returns a watcher for root, or nil where none can work: no
// inotify, or a network or FUSE file system, whose changes made by other
// machines or by the daemon raise no event here.
func newWatcher(root string) *watcher {
	var fs unix.Statfs_t
	if unix.Statfs(root, &fs) != nil || remoteFS(int64(fs.Type)) {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &watcher{fd: fd, root: root, wds: map[int32]string{}, dirty: true, buf: make([]byte, 64<<10)}
}

// remoteFS: file systems whose files change without local inotify events.
func remoteFS(magic int64) bool {
	switch magic {
	case unix.NFS_SUPER_MAGIC, unix.SMB_SUPER_MAGIC, unix.SMB2_SUPER_MAGIC, unix.CIFS_SUPER_MAGIC,
		unix.FUSE_SUPER_MAGIC, unix.V9FS_MAGIC, unix.CEPH_SUPER_MAGIC, unix.AFS_SUPER_MAGIC,
		unix.AFS_FS_MAGIC, unix.CODA_SUPER_MAGIC, unix.NCP_SUPER_MAGIC, 0x47504653 /* GPFS */, 0x0BD00BD0 /* Lustre */ :
		return true
	}
	return false
}

func (w *watcher) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
	w.broken = true
}

// clean reports whether no note can have changed since the last scan:
// the events queued so far are read first.
func (w *watcher) clean() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken {
		return false
	}
	w.drain()
	if w.dirty || w.broken {
		return false
	}
	// The root itself replaced (a parent renamed, another directory put
	// in its place) shows on no watch: compare its identity.
	var st unix.Stat_t
	if unix.Stat(w.root, &st) != nil || st.Ino != w.rootIno || st.Dev != w.rootDev {
		w.dirty = true
		return false
	}
	return true
}

// markDirty makes the next search scan (the periodic re-check found a
// change no event reported).
func (w *watcher) markDirty() {
	w.mu.Lock()
	w.dirty = true
	w.mu.Unlock()
}

// scan runs the note scan, watching each directory as the scan opens it,
// then drops the watches of directories it no longer reached. Events
// queued before it are taken as seen: the scan is what looks at the notes.
func (w *watcher) scan(root string) ([]scanned, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken {
		return scanNotes(root)
	}
	w.drain()
	w.dirty = false
	w.seen = map[int32]bool{}
	notes, err := scanNotesHook(root, w.watchDir)
	if err != nil {
		w.dirty = true
		return nil, err
	}
	for wd := range w.wds {
		if !w.seen[wd] {
			unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.wds, wd)
		}
	}
	w.seen = nil
	return notes, nil
}

// watchDir watches the directory open as fd (through /proc/self/fd, so
// the watch is on the very directory the scan lists, whatever its path
// turned into).
func (w *watcher) watchDir(fd int, rel string) {
	if w.broken {
		return
	}
	if rel == "" {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			w.broken = true
			return
		}
		w.rootIno, w.rootDev = st.Ino, st.Dev
	}
	wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(fd), watchMask)
	if err != nil {
		// No /proc, or the watch limit (fs.inotify.max_user_watches):
		// scan on every search instead.
		w.broken = true
		return
	}
	w.wds[int32(wd)] = rel
	w.seen[int32(wd)] = true
}

// drain reads the queued events without blocking and marks the notes dirty
// for those that can change one.
func (w *watcher) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil {
			if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				w.broken = true
			}
			return
		}
		if n <= 0 {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(w.buf[off:]))
			mask := binary.NativeEndian.Uint32(w.buf[off+4:])
			nameLen := int(binary.NativeEndian.Uint32(w.buf[off+12:]))
			name := ""
			if nameLen > 0 && off+unix.SizeofInotifyEvent+nameLen <= n {
				name = strings.TrimRight(string(w.buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+nameLen]), "\x00")
			}
			off += unix.SizeofInotifyEvent + nameLen
			if w.relevant(wd, mask, name) {
				w.dirty = true
			}
		}
	}
}

// relevant: an event that can change what the scan finds. At the root only
// MEMORY.md, memory.md and memory/ matter (agents write other files there);
// below memory/, *.md files and directories.
func (w *watcher) relevant(wd int32, mask uint32, name string) bool {
	rel, ok := w.wds[wd]
	switch {
	case mask&unix.IN_Q_OVERFLOW != 0:
		return true // events were lost
	case mask&unix.IN_IGNORED != 0:
		return ok // the kernel dropped a watch (not one the scan dropped)
	case !ok:
		return false // a watch the scan dropped
	case mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0 || name == "":
		return true // the directory itself moved, went or changed
	}
	if rel == "" {
		return name == "MEMORY.md" || name == "memory.md" || name == "memory"
	}
	return mask&unix.IN_ISDIR != 0 || isNoteName(name)
}
