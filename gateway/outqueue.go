package gateway

import (
	"sync"
	"time"
)

// outQueue is one connection's unsent output, bounded by bytes (what the
// protocol advertises as policy.maxBufferedBytes), not by frame count: a
// client reading as fast as it can must never be mistaken for a slow one
// because its responses are many and small. A frame counts as unsent until
// the writer has finished writing it.
type outQueue struct {
	mu       sync.Mutex
	frames   [][]byte
	bytes    int64
	closing  bool          // write the close frame once the queue is empty
	wake     chan struct{} // the writer: something to do (cap 1)
	progress chan struct{} // closed (and replaced) whenever a write completes
	last     time.Time     // when the writer last completed a write (or started)
}

func newOutQueue() outQueue {
	return outQueue{wake: make(chan struct{}, 1), progress: make(chan struct{}), last: time.Now()}
}

// push appends data unless it would take the unsent bytes past limit; a
// frame always fits an empty queue.
func (q *outQueue) push(data []byte, limit int64) bool {
	q.mu.Lock()
	n := int64(len(data))
	if q.closing || (q.bytes > 0 && q.bytes+n > limit) {
		q.mu.Unlock()
		return false
	}
	if q.bytes == 0 {
		q.last = time.Now() // the stall clock starts when there is work
	}
	q.frames = append(q.frames, data)
	q.bytes += n
	q.mu.Unlock()
	q.signal()
	return true
}

// peek returns the next frame to write (it stays counted until written),
// and whether the queue is drained and a close was requested.
func (q *outQueue) peek() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.frames) > 0 {
		return q.frames[0], false
	}
	return nil, q.closing
}

// written removes the frame peek returned and wakes anyone waiting for room.
func (q *outQueue) written(n int) {
	q.mu.Lock()
	if len(q.frames) > 0 {
		q.frames[0] = nil
		q.frames = q.frames[1:]
		q.bytes -= int64(n)
	}
	q.last = time.Now()
	close(q.progress)
	q.progress = make(chan struct{})
	q.mu.Unlock()
}

// closeAfterQueued asks the writer to close once everything queued so far
// is written; later pushes are refused.
func (q *outQueue) closeAfterQueued() {
	q.mu.Lock()
	q.closing = true
	q.mu.Unlock()
	q.signal()
}

// state is the unsent byte count, a channel closed at the next completed
// write, and when the last write completed.
func (q *outQueue) state() (int64, <-chan struct{}, time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes, q.progress, q.last
}

func (q *outQueue) size() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
}

func (q *outQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}
