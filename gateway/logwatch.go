package gateway

import "sync"

// logWatch wakes `logs.follow` streams when the gateway log grows, so a
// follower sees a line as it is written instead of on its next poll.
// A follower takes changed() before reading the file, then waits on it:
// a write between the read and the wait still wakes it.
type logWatch struct {
	mu sync.Mutex
	ch chan struct{}
}

// changed returns a channel closed by the next write.
func (w *logWatch) changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

// notify wakes every waiter (cheap when nobody follows).
func (w *logWatch) notify() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}
