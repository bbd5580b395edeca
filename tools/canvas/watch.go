package canvas

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher watches the canvas root recursively (fsnotify watches one
// directory at a time: every directory is added, and new ones as they
// appear), ignoring dotfiles and node_modules. Events are debounced: fire
// runs once the tree has been quiet for the debounce interval, so a file
// still being written (each write an event) reloads once, after its last
// write. A watcher error (inotify limits: EMFILE, ENOSPC) turns live
// reload off rather than reloading pages forever or never.
type watcher struct {
	fsw      *fsnotify.Watcher
	root     string
	debounce time.Duration
	fire     func()
	onError  func(error)

	mu    sync.Mutex
	timer *time.Timer
	done  chan struct{}
	once  sync.Once
}

func ignored(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

func newWatcher(root string, debounce time.Duration, fire func(), onError func(error)) (*watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{fsw: fsw, root: root, debounce: debounce, fire: fire, onError: onError, done: make(chan struct{})}
	if err := w.addTree(root); err != nil {
		fsw.Close()
		return nil, err
	}
	go w.loop()
	return w, nil
}

// addTree watches dir and every directory below it that is not ignored.
// Symlinked directories are not followed (the host does not serve them).
func (w *watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // vanished or unreadable below: not ours to watch
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && ignored(d.Name()) {
			return filepath.SkipDir
		}
		return w.fsw.Add(p)
	})
}

func (w *watcher) loop() {
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if w.skip(ev.Name) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					if err := w.addTree(ev.Name); err != nil {
						w.fail(err)
						return
					}
				}
			}
			w.kick()
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.fail(err)
			return
		case <-w.done:
			return
		}
	}
}

// skip: a path with an ignored component below the root.
func (w *watcher) skip(name string) bool {
	rel, err := filepath.Rel(w.root, name)
	if err != nil {
		return true
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part != "." && ignored(part) {
			return true
		}
	}
	return false
}

// kick (re)starts the quiet-period timer.
func (w *watcher) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.done:
		return
	default:
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timer = time.AfterFunc(w.debounce, func() {
		select {
		case <-w.done:
		default:
			w.fire()
		}
	})
}

func (w *watcher) fail(err error) {
	if w.onError != nil {
		w.onError(err)
	}
	w.Close()
}

// Close stops watching; a pending reload is dropped.
func (w *watcher) Close() {
	w.once.Do(func() {
		close(w.done)
		w.mu.Lock()
		if w.timer != nil {
			w.timer.Stop()
		}
		w.mu.Unlock()
		_ = w.fsw.Close()
	})
}
