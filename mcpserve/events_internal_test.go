package mcpserve

import (
	"encoding/json"
	"fmt"
	"testing"
)

// The buffer keeps the last limit chat/agent events; a cursor older than
// the oldest kept gets a gap, and next_cursor skips to just before it.
func TestEventsRingGap(t *testing.T) {
	e := NewEvents(3)
	e.Add("presence", json.RawMessage(`{}`)) // not a conversation event
	for i := 1; i <= 5; i++ {
		e.Add("chat", json.RawMessage(fmt.Sprintf(`{"sessionKey":"s%d"}`, i%2)))
	}
	evs, next, g, _ := e.poll(0, "", 20)
	if g == nil || g.OldestAvailable != 3 || len(evs) != 3 || evs[0].Cursor != 3 || next != 5 {
		t.Fatalf("poll(0) = %v next %d gap %v", evs, next, g)
	}
	if _, _, g, _ := e.poll(2, "", 20); g != nil {
		t.Errorf("poll(2): gap %v, want none (cursor 3 is kept)", g)
	}
	evs, next, _, _ = e.poll(2, "s1", 20)
	if len(evs) != 2 || evs[0].Cursor != 3 || evs[1].Cursor != 5 || next != 5 {
		t.Errorf("poll(2, s1) = %v next %d", evs, next)
	}
	evs, next, g, _ = e.poll(5, "", 20)
	if len(evs) != 0 || next != 5 || g != nil {
		t.Errorf("poll(5) = %v next %d gap %v", evs, next, g)
	}
	evs, _, _, _ = e.poll(0, "", 2)
	if len(evs) != 2 {
		t.Errorf("limit 2: %v", evs)
	}
}
