package cron

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Queued system events reach the model as the original shows them: at
// the start of the session's next turn (whoever starts it: a person, a
// heartbeat, a channel message), one "System: [time] text" line each,
// before the turn's own message. The agent runtime asks for them through
// the prelude this service sets (agentrun.Service.SetPrelude); they are
// marked consumed once that message is in the transcript, so a turn that
// never started leaves them queued.

// Waker asks for an immediate heartbeat of agentID in sessionKey (the
// heartbeat family sets it); reason is "wake" or "cron:<jobId>".
type Waker func(agentID, sessionKey, reason string)

// preludeMaxEvents and preludeMaxChars bound what one turn is shown: the
// newest events, each compacted to one line and capped.
const (
	preludeMaxEvents = 20
	preludeMaxChars  = 2000
)

// waker holds the service's Waker (set once by the heartbeat family).
type waker struct{ fn atomic.Pointer[Waker] }

// SetWaker makes wake --mode now and main jobs with wakeMode "now" ask w
// for an immediate heartbeat. Without one the events wait for the
// session's next turn.
func (s *Service) SetWaker(w Waker) { s.waker.fn.Store(&w) }

// requestHeartbeat asks the waker, if any, for a heartbeat now.
func (s *Service) requestHeartbeat(agentID, sessionKey, reason string) {
	if w := s.waker.fn.Load(); w != nil {
		(*w)(agentID, sessionKey, reason)
	}
}

// prelude is the agent runtime's Prelude: sessionKey's queued events as
// system lines, and the function marking them seen.
func (s *Service) prelude(ctx context.Context, sessionKey string) (string, func()) {
	evs, err := s.repo.pendingEvents(ctx, sessionKey)
	if err != nil || len(evs) == 0 {
		return "", nil
	}
	upTo := evs[len(evs)-1].Seq
	var b strings.Builder
	if n := len(evs) - preludeMaxEvents; n > 0 {
		b.WriteString("System: (" + strconv.Itoa(n) + " earlier events dropped)\n")
		evs = evs[n:]
	}
	for i, e := range evs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("System: [" + time.UnixMilli(e.CreatedAtMs).UTC().Format("2006-01-02 15:04:05 UTC") + "] " + compactEvent(e.Text))
	}
	return b.String(), func() {
		_, _ = s.repo.consumeEvents(context.WithoutCancel(ctx), sessionKey, upTo, s.now())
	}
}

// compactEvent is an event's text on one line, capped.
func compactEvent(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > preludeMaxChars {
		t = string(r[:preludeMaxChars]) + "…"
	}
	return t
}
