package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/flock"
)

// fileLock is the config's write lock: an exclusive flock on
// <config>.lock, which serialises writers across processes (the CLI and
// the gateway) and goroutines.
type fileLock struct{ release func() }

// lockConfig takes the write lock of the config at path, waiting until it
// is free or ctx is done. The config directory must exist.
func lockConfig(ctx context.Context, path string) (*fileLock, error) {
	release, err := flock.Lock(ctx, path+".lock")
	if err != nil {
		return nil, fmt.Errorf("config %w", err)
	}
	return &fileLock{release: release}, nil
}

func (l *fileLock) unlock() {
	if l != nil && l.release != nil {
		l.release()
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
