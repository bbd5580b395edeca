package memory

import (
	"strings"
	"testing"
)

func TestChunkLinesPacksWithOverlap(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, strings.Repeat(string(rune('a'+i%26)), 9)) // 10 chars with the newline
	}
	chunks := chunkLines(strings.Join(lines, "\n")+"\n", 100, 30)
	if len(chunks) < 3 {
		t.Fatalf("%d chunks", len(chunks))
	}
	if chunks[0].StartLine != 1 || chunks[0].EndLine != 10 {
		t.Errorf("first chunk %d-%d, want 1-10", chunks[0].StartLine, chunks[0].EndLine)
	}
	for i := 1; i < len(chunks); i++ {
		prev, c := chunks[i-1], chunks[i]
		if c.StartLine != prev.EndLine-2 { // three 10-char lines fit the 30-char overlap
			t.Errorf("chunk %d starts at %d, want %d (overlap)", i, c.StartLine, prev.EndLine-2)
		}
	}
	if last := chunks[len(chunks)-1]; last.EndLine != 30 {
		t.Errorf("last chunk ends at %d, want 30", last.EndLine)
	}
	// A line longer than the limit is cut, keeping its line number.
	long := chunkLines(strings.Repeat("x", 250), 100, 30)
	if len(long) != 3 || long[2].StartLine != 1 || long[2].EndLine != 1 {
		t.Errorf("long line: %+v", long)
	}
	if chunkLines("\n \n", 100, 30) != nil {
		t.Errorf("blank text gave chunks")
	}
}

func TestValidAgentID(t *testing.T) {
	for id, want := range map[string]bool{
		"main": true, "work-2": true, "a.b_c": true, "": false, "../x": false, ".hidden": false,
		"a/b": false, strings.Repeat("a", 65): false, "日本": false,
	} {
		if got := validAgentID(id); got != want {
			t.Errorf("%q: %v, want %v", id, got, want)
		}
	}
}
