package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// fileLock is an exclusive flock(2) on <config>.lock. It serialises
// writers across processes (the CLI and the gateway) and, because each
// lock takes its own open file description, across goroutines too. The
// lock file is never removed: removing it would let two writers lock
// different inodes.
type fileLock struct{ f *os.File }

// lockConfig takes the write lock of the config at path, waiting until it
// is free or ctx is done. The config directory must exist.
func lockConfig(ctx context.Context, path string) (*fileLock, error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("config lock: %w", err)
	}
	wait := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &fileLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("config lock %s.lock: %w", path, err)
		}
		// flock(2) cannot be interrupted by a context: poll with backoff.
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("config lock %s.lock: another writer holds it: %w", path, ctx.Err())
		case <-t.C:
		}
		wait = min(wait*2, 50*time.Millisecond)
	}
}

func (l *fileLock) unlock() {
	if l != nil && l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		_ = l.f.Close()
	}
}

// tempPrefixes are the names our writers give temp files beside the config
// at path: atomic writes of the file and of its .bak, the validation copy
// of an edit, and the gateway's former validation file.
func tempPrefixes(path string) []string {
	base := filepath.Base(path)
	return []string{"." + base + ".tmp-", "." + base + ".bak.tmp-", "." + base + ".validate-", ".openclaw-validate-"}
}

// CleanTemp removes temp files that interrupted config writes (kill -9,
// power loss) left beside the config at path. It takes the write lock, so
// a running writer's temp file is never removed under it. A missing
// directory has nothing to clean. It returns the names removed.
func CleanTemp(ctx context.Context, path string) ([]string, error) {
	if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	l, err := lockConfig(ctx, path)
	if err != nil {
		return nil, err
	}
	defer l.unlock()
	return cleanTempLocked(path)
}

func cleanTempLocked(path string) ([]string, error) {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("config temp cleanup: %w", err)
	}
	var removed []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		for _, p := range tempPrefixes(path) {
			if strings.HasPrefix(e.Name(), p) {
				if err := os.Remove(filepath.Join(dir, e.Name())); err == nil {
					removed = append(removed, e.Name())
				}
				break
			}
		}
	}
	return removed, nil
}
