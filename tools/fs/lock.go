package fs

import (
	"context"
	"sync"
)

// fileLocks serialises read/write/edit on one file inside this process
// (OpenClaw's per-file mutation queue). Keys are real paths, so two
// spellings of one file, or a symlink and its target, share a lock.
var fileLocks = struct {
	sync.Mutex
	m map[string]*fileLock
}{m: map[string]*fileLock{}}

// fileLock is a one-slot semaphore, so a waiter can give up when its
// context ends.
type fileLock struct {
	slot chan struct{}
	refs int
}

// lockFile locks path and returns the unlock function, or the context's
// error when ctx ends first. Entries are dropped when no caller holds or
// waits for them, so the table does not grow.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	fileLocks.Lock()
	l := fileLocks.m[path]
	if l == nil {
		l = &fileLock{slot: make(chan struct{}, 1)}
		fileLocks.m[path] = l
	}
	l.refs++
	fileLocks.Unlock()

	release := func() {
		fileLocks.Lock()
		if l.refs--; l.refs == 0 {
			delete(fileLocks.m, path)
		}
		fileLocks.Unlock()
	}
	select {
	case l.slot <- struct{}{}:
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
	return func() {
		<-l.slot
		release()
	}, nil
}
