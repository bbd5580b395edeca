package exectool

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"
)

// Output caps (spec §1.5). The original counts UTF-16 chars; we count bytes,
// which bounds memory whatever a command prints.
const (
	aggregateCap = 200000 // retained output per session, tail kept
	pendingCap   = 30000  // unread output per stream between polls
	tailChars    = 2000   // details.tail
	chunkSize    = 8 << 10
)

// tailBuf keeps the last max bytes written to it. It trims only when it
// holds twice max, so each byte is copied at most once more: appending a
// 2 GB stream costs O(2 GB) and never holds more than 2*max.
type tailBuf struct {
	b       []byte
	max     int
	dropped bool // bytes were lost from the front
}

func (t *tailBuf) write(p []byte) {
	if len(p) >= t.max {
		// Only what was held, or p's own head, is lost: a chunk of exactly
		// max bytes into an empty buffer drops nothing.
		t.dropped = t.dropped || len(t.b) > 0 || len(p) > t.max
		t.b = append(t.b[:0], p[len(p)-t.max:]...)
		return
	}
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		n := copy(t.b, t.b[len(t.b)-t.max:])
		t.b = t.b[:n]
		t.dropped = true
	}
}

// bytes returns the retained tail (at most max bytes).
func (t *tailBuf) bytes() []byte {
	if len(t.b) > t.max {
		t.dropped = true
		return t.b[len(t.b)-t.max:]
	}
	return t.b
}

// output is a session's output: one aggregated buffer in arrival order
// (stdout and stderr interleaved) plus the unread part of each stream.
type output struct {
	mu        sync.Mutex
	agg       tailBuf
	pending   [2]tailBuf // stdout, stderr: drained by poll
	total     int64      // bytes seen
	lastWrite int64      // unix ms of the last output
	changed   chan struct{}
}

func newOutput(aggCap, pendCap int) *output {
	o := &output{changed: make(chan struct{})}
	o.agg.max = aggCap
	o.pending[0].max, o.pending[1].max = pendCap, pendCap
	return o
}

// write appends a chunk of stream (0 stdout, 1 stderr) and wakes waiters.
func (o *output) write(stream int, p []byte, nowMs int64) {
	o.mu.Lock()
	o.agg.write(p)
	o.pending[stream].write(p)
	o.total += int64(len(p))
	o.lastWrite = nowMs
	close(o.changed)
	o.changed = make(chan struct{})
	o.mu.Unlock()
}

// wait returns a channel closed on the next write.
func (o *output) wait() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.changed
}

// aggregated is the retained output as text, and whether some was dropped.
func (o *output) aggregated() (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.agg.bytes()
	return sanitize(b), o.agg.dropped
}

// drain returns and clears the unread output of both streams, and whether
// some unread output was dropped since the last drain.
func (o *output) drain() (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var sb bytes.Buffer
	dropped := false
	for i := range o.pending {
		p := &o.pending[i]
		sb.Write(p.bytes())
		dropped = dropped || p.dropped
		p.b, p.dropped = p.b[:0], false
	}
	return sanitize(sb.Bytes()), dropped
}

// sanitize makes output safe to store and show: invalid UTF-8 becomes
// U+FFFD, control bytes other than tab, newline, CR and ESC are dropped.
func sanitize(b []byte) string {
	clean := true
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' && c != 0x1b || c == 0x7f {
			clean = false
			break
		}
	}
	if clean && utf8.Valid(b) {
		return string(b)
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' && r != 0x1b || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// lastChars returns the last n bytes of s on a rune boundary.
func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// sinceCapped returns the output written after the first sent bytes (as
// much of it as is still retained, at most max bytes, the newest), the new
// total, and in skipped the new bytes left out, so a live view can say so.
func (o *output) sinceCapped(sent int64, max int) (chunk string, skipped, total int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.total <= sent {
		return "", 0, o.total
	}
	b := o.agg.b
	n := int(min(o.total-sent, int64(len(b)), int64(max)))
	return sanitize(b[len(b)-n:]), o.total - sent - int64(n), o.total
}

func (o *output) totalBytes() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total
}
