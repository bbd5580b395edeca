package mcpserve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchDebounce lets an editor's write-and-rename settle before a reload.
const watchDebounce = 150 * time.Millisecond

// WatchFile calls onChange after path changes (written, created, renamed
// over), until ctx ends. It watches the directory, so an atomic
// replacement (temp + rename) is seen, and a file created later too.
func WatchFile(ctx context.Context, path string, onChange func()) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", path, err)
	}
	dir, name := filepath.Split(filepath.Clean(path))
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o700); err != nil { // the state dir, before any state
		w.Close()
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	go func() {
		defer w.Close()
		var timer *time.Timer
		fire := make(chan struct{}, 1)
		for {
			select {
			case <-ctx.Done():
				if timer != nil {
					timer.Stop()
				}
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Base(ev.Name) != name || ev.Op == fsnotify.Chmod {
					continue
				}
				if timer != nil {
					timer.Stop()
				}
				timer = time.AfterFunc(watchDebounce, func() {
					select {
					case fire <- struct{}{}:
					default:
					}
				})
			case <-fire:
				onChange()
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return nil
}
