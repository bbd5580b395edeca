package exectool

import (
	"testing"
)

// Session names never repeat while the gateway lives, though sessions
// come and go (issue 18 item 19): past every word pair too.
func TestSessionNamesDoNotRepeat(t *testing.T) {
	r := &registry{sessions: map[string]*session{}}
	seen := map[string]bool{}
	for i := 0; i < 3*len(adjectives)*len(nouns)+7; i++ {
		s := &session{}
		if err := r.add(s); err != nil {
			t.Fatal(err)
		}
		if seen[s.id] {
			t.Fatalf("name %q given twice (after %d names)", s.id, i)
		}
		seen[s.id] = true
		r.drop(s.id)
	}
}

// A session recovered from a previous gateway keeps its id, and a new one
// never takes it.
func TestSessionNamesSkipHeldIDs(t *testing.T) {
	r := &registry{sessions: map[string]*session{}}
	probe := names{order: nil}
	first := probe.next()
	r.names.order = probe.order
	r.sessions[first] = &session{id: first}
	s := &session{}
	if err := r.add(s); err != nil {
		t.Fatal(err)
	}
	if s.id == first {
		t.Fatalf("new session took the held id %q", first)
	}
}
