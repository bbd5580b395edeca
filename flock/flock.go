// Package flock takes exclusive flock(2) locks on lock files, across
// processes (the CLI and the gateway) and across goroutines (each lock
// opens its own file description), waiting as long as the caller's
// context allows. Lock files are never removed: removing one would let two
// holders lock different inodes.
package flock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Lock takes the exclusive lock on path (created 0600 if missing; its
// directory must exist), waiting until it is free or ctx is done. The
// returned func releases it.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	wait := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// flock(2) cannot be interrupted by a context: poll with backoff.
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("lock %s: another process holds it: %w", path, ctx.Err())
		case <-t.C:
		}
		wait = min(wait*2, 50*time.Millisecond)
	}
}

// ErrHeld is TryLock's answer when another holder has the lock.
var ErrHeld = errors.New("held by another process")

// TryLock takes the exclusive lock on path if it is free, without waiting;
// when another open file description holds it the error wraps ErrHeld.
func TryLock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock %s: %w", path, ErrHeld)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
}
