package client

import "context"

// eventSync tracks how far OnEvent delivery has got, so a caller can wait
// for the events that arrived before a response (a relayed call's progress
// frames) to be handled before it closes the connection.
type eventSync struct {
	pushed, done uint64
	finished     bool
	progress     chan struct{} // closed and replaced when done advances
}

// delivered records n more events handed to OnEvent; last means the queue
// has stopped for good.
func (q *eventQueue) delivered(n int, last bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.synced.done += uint64(n)
	q.synced.finished = q.synced.finished || last
	if q.synced.progress != nil && (n > 0 || last) {
		close(q.synced.progress)
		q.synced.progress = nil
	}
}

// SyncEvents waits until every event received so far has been handed to
// OnEvent (or the connection's event delivery has ended, or ctx ends).
// Events that arrived before a response are received before it, so calling
// this after Call returns flushes the call's events.
func (c *Conn) SyncEvents(ctx context.Context) error {
	q := c.events
	if q == nil {
		return nil
	}
	q.mu.Lock()
	target := q.synced.pushed
	q.mu.Unlock()
	for {
		q.mu.Lock()
		if q.synced.done >= target || q.synced.finished {
			q.mu.Unlock()
			return nil
		}
		if q.synced.progress == nil {
			q.synced.progress = make(chan struct{})
		}
		ch := q.synced.progress
		q.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
