package agentrun

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agent/providers"
)

type recordedEvents struct {
	mu  sync.Mutex
	evs []string // event name + " " + payload JSON
}

func (r *recordedEvents) Publish(event string, payload any) error {
	b, _ := json.Marshal(payload)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, event+" "+string(b))
	return nil
}

func (r *recordedEvents) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.evs...)
}

// The coalescer: the first delta goes out at once; deltas inside the
// interval wait and go out together (end publishes what is pending, and
// nothing is published after it); a pending delta also goes out when the
// interval is over, with no further delta or end. The chat snapshot comes
// with the first flush and then only once the text has doubled.
func TestTextStreamCoalesces(t *testing.T) {
	ev := &recordedEvents{}
	r := &Runner{Events: ev, seq: map[string]int{}, lanes: map[string]*lane{}}
	s := r.newTextStream("run1", "agent:main:main")
	s.interval = time.Hour // every later delta falls inside the interval
	s.onDelta(providers.Delta{Text: "ab"})
	if got := ev.list(); len(got) != 2 || !strings.Contains(got[0], `"delta":"ab"`) || !strings.Contains(got[1], `"deltaText":"ab"`) ||
		!strings.Contains(got[1], `"text":"ab"`) {
		t.Fatalf("first delta: %q", got)
	}
	s.onDelta(providers.Delta{Text: "c"})
	s.onDelta(providers.Delta{Text: "d"})
	if got := ev.list(); len(got) != 2 {
		t.Fatalf("deltas inside the interval went out: %q", got)
	}
	s.end()
	got := ev.list()
	if len(got) != 4 || !strings.Contains(got[2], `"delta":"cd"`) || !strings.Contains(got[3], `"deltaText":"cd"`) ||
		!strings.Contains(got[3], `"text":"abcd"`) || !strings.Contains(got[3], `"seq":2`) {
		t.Fatalf("coalesced: %q", got)
	}
	s.onDelta(providers.Delta{Text: "late"})
	if n := len(ev.list()); n != 4 {
		t.Fatalf("%d events after end", n)
	}

	// The timer: a delta pending at the end of a short interval goes out
	// by itself. The text has not doubled since the last snapshot: no
	// message.
	ev2 := &recordedEvents{}
	r.Events = ev2
	s = r.newTextStream("run2", "agent:main:main")
	s.onDelta(providers.Delta{Text: "abc"})
	s.interval = 20 * time.Millisecond
	s.onDelta(providers.Delta{Text: "x"})
	deadline := time.Now().Add(30 * time.Second)
	for len(ev2.list()) < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got = ev2.list()
	if len(got) != 4 || !strings.Contains(got[2], `"delta":"x"`) || !strings.Contains(got[3], `"deltaText":"x"`) || strings.Contains(got[3], `"message"`) {
		t.Fatalf("timer flush: %q", got)
	}
	s.end()
}
