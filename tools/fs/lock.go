package fs

import "sync"

// fileLocks serialises read/write/edit on one file inside this process
// (OpenClaw's per-file mutation queue). Keys are real paths, so two
// spellings of one file, or a symlink and its target, share a lock.
var fileLocks = struct {
	sync.Mutex
	m map[string]*fileLock
}{m: map[string]*fileLock{}}

type fileLock struct {
	sync.Mutex
	refs int
}

// lockFile locks path and returns the unlock function. Entries are dropped
// when no caller holds or waits for them, so the table does not grow.
func lockFile(path string) (unlock func()) {
	fileLocks.Lock()
	l := fileLocks.m[path]
	if l == nil {
		l = &fileLock{}
		fileLocks.m[path] = l
	}
	l.refs++
	fileLocks.Unlock()

	l.Lock()
	return func() {
		l.Unlock()
		fileLocks.Lock()
		if l.refs--; l.refs == 0 {
			delete(fileLocks.m, path)
		}
		fileLocks.Unlock()
	}
}
