package patch

import (
	"strings"
	"testing"
)

func TestParseGrammar(t *testing.T) {
	in := strings.Join([]string{
		"*** Begin Patch",
		"*** Add File: a.txt",
		"+one",
		"+",
		"*** Delete File: b.txt",
		"  *** Update File: c.txt  ",
		"*** Move to: d.txt",
		" ctx",
		"-old",
		"+new",
		"",
		"@@ func x",
		"-y",
		"+z",
		"*** End of File",
		"*** End Patch",
	}, "\r\n")
	hunks, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(hunks) != 3 {
		t.Fatalf("got %d hunks: %+v", len(hunks), hunks)
	}
	if h := hunks[0]; h.Kind != KindAdd || h.Path != "a.txt" || h.Contents != "one\n\n" {
		t.Errorf("add = %+v", h)
	}
	if h := hunks[1]; h.Kind != KindDelete || h.Path != "b.txt" {
		t.Errorf("delete = %+v", h)
	}
	h := hunks[2]
	if h.Kind != KindUpdate || h.Path != "c.txt" || h.MovePath != "d.txt" || len(h.Chunks) != 2 {
		t.Fatalf("update = %+v", h)
	}
	// The empty line inside the first chunk is an empty context line.
	if c := h.Chunks[0]; strings.Join(c.OldLines, "|") != "ctx|old|" || strings.Join(c.NewLines, "|") != "ctx|new|" || c.Context != "" {
		t.Errorf("chunk 0 = %+v", c)
	}
	if c := h.Chunks[1]; c.Context != "func x" || !c.IsEndOfFile || c.OldLines[0] != "y" || c.NewLines[0] != "z" {
		t.Errorf("chunk 1 = %+v", c)
	}
}

func TestParseHeredoc(t *testing.T) {
	hunks, err := Parse("<<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n")
	if err != nil || len(hunks) != 1 || hunks[0].Path != "x" {
		t.Fatalf("hunks %+v err %v", hunks, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  \n ", "Invalid patch: input is empty."},
		{"*** Add File: x\n*** End Patch", "The first line of the patch must be '*** Begin Patch'"},
		{"*** Begin Patch\n*** Add File: x", "The last line of the patch must be '*** End Patch'"},
		{"*** Begin Patch\n*** Add File: x\nbogus\n*** End Patch",
			"Invalid patch hunk at line 3: 'bogus' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"},
		{"*** Begin Patch\n*** Update File: x\n*** End Patch", "Invalid patch hunk at line 2: Update file hunk for path 'x' is empty"},
		{"*** Begin Patch\n*** Update File: x\n-a\n+b\nzzz\n*** End Patch",
			"Invalid patch hunk at line 5: Expected update hunk to start with a @@ context marker, got: 'zzz'"},
		{"*** Begin Patch\n*** Delete File: q\n*** Update File: x\n@@\n-a\nzz\n@@\n*** End Patch",
			"Invalid patch hunk at line 6: Expected update hunk to start with a @@ context marker, got: 'zz'"},
		{"*** Begin Patch\n*** Update File: x\n@@\n-a\n@@\nxx\n*** End Patch",
			"Invalid patch hunk at line 6: Unexpected line found in update hunk: 'xx'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"},
		{"*** Begin Patch\n*** Update File: x\n@@\n-a\nxx\n-b\n*** End Patch", "Invalid patch hunk at line 5: Expected update hunk to start with a @@ context marker, got: 'xx'"},
		{"*** Begin Patch\n*** Update File: x\n-a\n*** End of File\nnope\n*** End Patch", "Invalid patch hunk at line 5: Expected update hunk to start with a @@ context marker, got: 'nope'"},
		{"*** Begin Patch\n*** Update File: x\n@@\n*** End of File\n*** End Patch", "Invalid patch hunk at line 4: Update hunk does not contain any lines"},
		{"*** Begin Patch\n*** Update File: x\n-a\nfoo\n*** End Patch", "Invalid patch hunk at line 4: Expected update hunk to start with a @@ context marker, got: 'foo'"},
		{"*** Begin Patch\n*** Update File: x\n-a\n\t@@ bad\n*** End Patch", "Invalid patch hunk at line 4"},
		{"*** Begin Patch\n*** Update File: x\n-a\n  \n@x\n*** End Patch",
			"Invalid patch hunk at line 5: Expected update hunk to start with a @@ context marker, got: '@x'"},
	} {
		_, err := Parse(tc.in)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want prefix %q", tc.in, err, tc.want)
		}
	}
}
