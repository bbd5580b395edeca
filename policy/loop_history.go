package policy

import "sync"

// maxLoopSessions bounds the sessions a LoopTracker remembers; the least
// recently used is forgotten first.
const maxLoopSessions = 4096

// LoopTracker holds each session's recent tool calls in memory (on the
// gateway) and applies Detect to them. Safe for concurrent use.
type LoopTracker struct {
	mu       sync.Mutex
	sessions map[string]*loopSession
	clock    uint64
}

type loopSession struct {
	calls []loopCall
	seq   uint64
	used  uint64
}

type loopCall struct {
	ToolCall
	seq uint64
}

// NewLoopTracker returns an empty tracker.
func NewLoopTracker() *LoopTracker {
	return &LoopTracker{sessions: map[string]*loopSession{}}
}

// LoopTicket is a call recorded by Before; Done fills in its outcome.
type LoopTicket struct {
	t   *LoopTracker
	key string
	seq uint64
}

// Before decides on a call and records it. A critical call is recorded
// too (as the original's later versions do), with the outcome of the last
// identical call, so a blocked streak keeps growing towards the circuit
// breaker instead of sticking; its ticket needs no Done.
func (t *LoopTracker) Before(key string, s LoopSettings, tool, argsHash string, knownPoll bool) (LoopVerdict, *LoopTicket) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sess := t.session(key)
	h := make([]ToolCall, len(sess.calls))
	for i, c := range sess.calls {
		h[i] = c.ToolCall
	}
	v := Detect(s, h, tool, argsHash, knownPoll)
	rec := ToolCall{Tool: tool, ArgsHash: argsHash}
	if v.Level == LoopCritical {
		for i := len(h) - 1; i >= 0; i-- {
			if h[i].Tool == tool && h[i].ArgsHash == argsHash && h[i].ResultHash != "" {
				rec.ResultHash = h[i].ResultHash
				break
			}
		}
	}
	sess.seq++
	sess.calls = append(sess.calls, loopCall{rec, sess.seq})
	if n := len(sess.calls) - s.HistorySize; n > 0 {
		sess.calls = append(sess.calls[:0], sess.calls[n:]...)
	}
	return v, &LoopTicket{t: t, key: key, seq: sess.seq}
}

// Done records the outcome hash of the call (ignored when the call has
// already slid out of the window).
func (k *LoopTicket) Done(resultHash string) {
	if k == nil {
		return
	}
	k.t.mu.Lock()
	defer k.t.mu.Unlock()
	sess := k.t.sessions[k.key]
	if sess == nil {
		return
	}
	for i := len(sess.calls) - 1; i >= 0; i-- {
		if sess.calls[i].seq == k.seq {
			sess.calls[i].ResultHash = resultHash
			return
		}
	}
}

// session returns key's history, creating it (and forgetting the least
// recently used session past the cap).
func (t *LoopTracker) session(key string) *loopSession {
	t.clock++
	if s := t.sessions[key]; s != nil {
		s.used = t.clock
		return s
	}
	if len(t.sessions) >= maxLoopSessions {
		oldest, at := "", ^uint64(0)
		for k, s := range t.sessions {
			if s.used < at {
				oldest, at = k, s.used
			}
		}
		delete(t.sessions, oldest)
	}
	s := &loopSession{used: t.clock}
	t.sessions[key] = s
	return s
}
