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

func TestCompactAndDepth(t *testing.T) {
	tree := []*node{{Role: "generic", Ref: "e1", Children: []*node{
		{Role: "list", Ref: "e2", Children: []*node{{Role: "listitem", Ref: "e3", Children: []*node{{Role: "link", Name: "A", Ref: "e4"}}}}},
		{Role: "paragraph", Ref: "e5", Children: []*node{{Role: "text", Name: "hi"}}},
	}}}
	got := render(compactNodes(tree), false)
	want := "- listitem [ref=e3]:\n  - link \"A\" [ref=e4]\n- paragraph [ref=e5]: hi"
	if got != want {
		t.Errorf("compact:\n%s\nwant\n%s", got, want)
	}
	cut, deep := cutDepth(tree, 1)
	if got := render(cut, false); !deep || got != "- generic [ref=e1]:\n  - list [ref=e2]\n  - paragraph [ref=e5]: hi" {
		t.Errorf("depth 1 (%v):\n%s", deep, got)
	}
	if render(tree, false) != "- generic [ref=e1]:\n  - list [ref=e2]:\n    - listitem [ref=e3]:\n      - link \"A\" [ref=e4]\n  - paragraph [ref=e5]: hi" {
		t.Error("compact or cutDepth changed their input")
	}
}

// BenchmarkSnapshotFormat5000 is the formatting half of a snapshot on a
// 5,000-node tree: compact, depth cut, render, line-boundary truncation,
// refs and stats, and a diff against the previous text.
func BenchmarkSnapshotFormat5000(b *testing.B) {
	nodes := synthetic(5000)
	prev := render(nodes, false)
	nodes[len(nodes)/2].Name = "Changed section"
	b.ReportAllocs()
	for b.Loop() {
		ns, _ := cutDepth(compactNodes(nodes), maxTreeDepth)
		text := render(ns, false)
		d, _ := diffText(prev, true, text)
		text, _ = truncate(text, 40000)
		summarize(text)
		summarize(diffLines(d))
	}
}
