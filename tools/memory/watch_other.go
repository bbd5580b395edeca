//go:build !linux

package memory

// watcher is inotify's (Linux only); elsewhere the gateway scans the notes
// on every search, as a one-shot process does.
type watcher struct{}

func newWatcher(string) *watcher                       { return nil }
func (w *watcher) close()                              {}
func (w *watcher) clean() bool                         { return false }
func (w *watcher) markDirty()                          {}
func (w *watcher) scan(root string) ([]scanned, error) { return scanNotes(root) }
