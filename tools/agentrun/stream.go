package agentrun

import (
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/agent/providers"
)

// How a model's streamed text goes out as events. Each model delta used to
// publish an agent event and a chat event that both carried the whole text
// so far: a 60 KB answer in 6,000 deltas sent 362 MB to every operator.
// Now the deltas of one model call are coalesced (one flush per
// streamInterval at most, or at once when streamChunkMax is pending) and
// each flush publishes:
//   - agent {stream:"assistant", data:{delta}}: the new text only;
//   - chat {state:"delta", deltaText, message?}: the new text, plus the
//     cumulative message (the original's v4 snapshot) only when the text
//     has at least doubled since the last snapshot, so the snapshots add up
//     to less than twice the answer.
//
// With the final chat event (the whole answer once) and the job's task
// event (its result) an observer receives less than six times the answer
// plus a constant per event, and the answer itself is capped
// (providers.MaxAnswerBytes, 1 MiB).
const (
	// streamInterval is the original's chat delta throttle (150 ms).
	streamInterval = 150 * time.Millisecond
	// streamChunkMax bounds the text one flush carries.
	streamChunkMax = 64 << 10
)

// textStream coalesces one model call's text deltas into events.
type textStream struct {
	r          *Runner
	runID, key string
	interval   time.Duration // streamInterval (tests shorten or lengthen it)

	mu      sync.Mutex
	pending strings.Builder // text not yet published
	text    strings.Builder // the call's text so far
	snapLen int             // len(text) at the last chat snapshot (0: none yet)
	last    time.Time       // the last flush
	timer   *time.Timer     // a flush armed for later, or nil
	closed  bool
}

func (r *Runner) newTextStream(runID, key string) *textStream {
	return &textStream{r: r, runID: runID, key: key, interval: streamInterval}
}

// onDelta is the model call's providers.Request.OnDelta.
func (s *textStream) onDelta(d providers.Delta) {
	if d.Text == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.pending.WriteString(d.Text)
	s.text.WriteString(d.Text)
	wait := s.interval - time.Since(s.last)
	if wait <= 0 || s.pending.Len() >= streamChunkMax {
		s.flush()
		return
	}
	if s.timer == nil { // the rest goes out when the interval is over
		s.timer = time.AfterFunc(wait, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.timer = nil
			if !s.closed {
				s.flush()
			}
		})
	}
}

// end publishes what is pending; later deltas and timers publish nothing.
// Called when the model call returns, before the run's next events.
func (s *textStream) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.flush()
		s.closed = true
	}
}

// flush publishes the pending text (s.mu held).
func (s *textStream) flush() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.pending.Len() == 0 {
		return
	}
	delta := s.pending.String()
	s.pending.Reset()
	s.last = time.Now()
	s.r.publish(s.runID, "assistant", map[string]any{"delta": delta})
	if s.r.Events == nil {
		return
	}
	ev := map[string]any{"runId": s.runID, "sessionKey": s.key, "seq": s.r.chatSeq(s.runID, "delta"), "state": "delta", "deltaText": delta}
	if s.snapLen == 0 || s.text.Len() >= 2*s.snapLen {
		text := s.text.String()
		s.snapLen = len(text)
		ev["message"] = assistantMessage(text)
	}
	_ = s.r.Events.Publish("chat", ev)
}

// chatSeq numbers a run's chat events; a state other than delta ends the
// run's numbering.
func (r *Runner) chatSeq(runID, state string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq["chat:"+runID]++
	seq := r.seq["chat:"+runID]
	if state != "delta" {
		delete(r.seq, "chat:"+runID)
	}
	return seq
}

// assistantMessage is a chat event's message: the assistant text.
func assistantMessage(text string) map[string]any {
	return map[string]any{"role": "assistant", "content": []map[string]any{{"type": "text", "text": text}},
		"timestamp": time.Now().UnixMilli()}
}
