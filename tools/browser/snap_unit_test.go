package browser

import (
	"strings"
	"testing"
)

func TestDiffText(t *testing.T) {
	prev := "- a [ref=e1]\n- b [ref=e2]\n- c [ref=e3]\n- d [ref=e4]\n- e [ref=e5]\n- f [ref=e6]\n- g [ref=e7]\n- h [ref=e8]\n- i [ref=e9]"
	if got, st := diffText("", false, prev); got != prev || st != "full" {
		t.Errorf("no baseline: %q %s", got, st)
	}
	if got, st := diffText(prev, true, prev); got != "unchanged" || st != "unchanged" {
		t.Errorf("same: %q %s", got, st)
	}
	cur := strings.Replace(prev, "- d [ref=e4]", "- D [ref=e4]", 1)
	got, st := diffText(prev, true, cur)
	want := " - c [ref=e3]\n-- d [ref=e4]\n+- D [ref=e4]\n - e [ref=e5]"
	if got != want || st != "changed" {
		t.Errorf("one line changed: %s\n%q\nwant %q", st, got, want)
	}
	if refs, _ := summarize(diffLines(got)); len(refs) != 3 || refs["e4"].Role != "D" {
		t.Errorf("refs of a diff: %v", refs)
	}
	if _, st := diffText(prev, true, "- z [ref=e9]"); st != "full" {
		t.Errorf("a diff bigger than the snapshot should give the snapshot: %s", st)
	}
}

// BenchmarkSnapshotDiff5000 is what --diff adds on a 5,000-line
// snapshot: the diff against the previous text, the cut, refs and stats.
func BenchmarkSnapshotDiff5000(b *testing.B) {
	prev := syntheticText(5000)
	cur := strings.Replace(prev, "Section 250", "Changed section", 1)
	b.ReportAllocs()
	for b.Loop() {
		d, _ := diffText(prev, true, cur)
		text, _ := truncate(cur, 40000)
		summarize(text)
		summarize(diffLines(d))
	}
}

// TestOwnRefMatchesRefPath: the hand check for a ref of the tab's own
// document agrees with refPath on refs with and without frame prefixes.
func TestOwnRefMatchesRefPath(t *testing.T) {
	for _, ref := range []string{"e1", "e12", "e999999999", "e1000000000", "e0", "e01", "f1e2", "f13f4e1", "e", "", "x1", "e1x", "E1", "e12 "} {
		m := refPath().FindStringSubmatch(ref)
		want := m != nil && m[1] == ""
		if got := ownRef(ref); got != want {
			t.Errorf("ownRef(%q) = %v, refPath says %v", ref, got, want)
		}
	}
}

// TestSafeTargetID: the file-name check of a tab id.
func TestSafeTargetID(t *testing.T) {
	for id, want := range map[string]bool{"0869B6D81DA875F4AE179879BF957133": true, "a_b-C9": true, "": false,
		strings.Repeat("a", 128): true, strings.Repeat("a", 129): false, "../x": false, "a b": false, "a.b": false, "é": false} {
		if got := safeTargetID(id); got != want {
			t.Errorf("safeTargetID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestRawTargetID: only a full target id is attached to early.
func TestRawTargetID(t *testing.T) {
	for id, want := range map[string]bool{"0869B6D81DA875F4AE179879BF957133": true, "0869b6d81da875f4ae179879bf957133": true,
		"0869B6D81DA875F4AE179879BF95713": false, "0869B6D81DA875F4AE179879BF95713G": false, "t1": false, "mail": false, "": false} {
		if got := rawTargetID(id); got != want {
			t.Errorf("rawTargetID(%q) = %v, want %v", id, got, want)
		}
	}
}
