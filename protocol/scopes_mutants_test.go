package protocol

import "testing"

// Every granted scope against every required one, as the original's
// implication rules say: admin satisfies everything; write satisfies read,
// talk and the session scopes; read or sessions.write satisfies
// sessions.read; nothing else implies anything. In particular write never
// implies pairing, approvals, questions or talk.secrets (a mutation making
// write imply pairing survived every other test: issue 17, item 20).
func TestScopeImplicationTable(t *testing.T) {
	all := []string{ScopeRead, ScopeWrite, ScopeAdmin, ScopeApprovals, ScopeQuestions, ScopePairing,
		ScopeTalk, ScopeTalkSecr, ScopeSessRead, ScopeSessWrite}
	implies := map[string][]string{
		ScopeAdmin:     all,
		ScopeWrite:     {ScopeWrite, ScopeRead, ScopeTalk, ScopeSessRead, ScopeSessWrite},
		ScopeRead:      {ScopeRead, ScopeSessRead},
		ScopeSessWrite: {ScopeSessWrite, ScopeSessRead},
	}
	for _, g := range all {
		want := map[string]bool{g: true}
		for _, r := range implies[g] {
			want[r] = true
		}
		for _, r := range all {
			if got := ScopeSatisfied([]string{g}, r); got != want[r] {
				t.Errorf("granted %s, required %s: satisfied=%v, want %v", g, r, got, want[r])
			}
		}
	}
	if ScopeSatisfied(nil, ScopePairing) || ScopeSatisfied([]string{"operator.writ", "operator"}, ScopeWrite) {
		t.Error("no scope, or a near miss, satisfies a requirement")
	}
	if !ScopeSatisfied(nil, "") {
		t.Error("no requirement is always satisfied")
	}
	if !ScopeSatisfied([]string{ScopeRead, ScopeWrite}, ScopeTalk) {
		t.Error("any granted scope that implies the requirement satisfies it, not only the first")
	}
}
