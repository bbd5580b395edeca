package patch

import (
	"strings"
	"testing"
)

// FuzzParse: the parser never panics, and what it accepts applies to an
// in-memory file without panicking either.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ ctx\n a\n-b\n+c\n\n*** End of File\n*** End Patch",
		"<<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF",
		"*** Begin Patch\n*** Update File: a\n-x\nzz\n*** End Patch",
		"*** Begin Patch\r\n*** Update File: a\r\n@@\r\n*** End of File\r\n*** End Patch",
	} {
		f.Add(s, "a\nb\nctx\n")
	}
	f.Fuzz(func(t *testing.T, input, file string) {
		hunks, err := Parse(input)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "Invalid patch") && !strings.HasPrefix(err.Error(), "The ") {
				t.Fatalf("unexpected error text %q", err)
			}
			return
		}
		for _, h := range hunks {
			if h.Kind == KindUpdate {
				if len(h.Chunks) == 0 {
					t.Fatal("update without chunks accepted")
				}
				if out, err := applyChunks(file, h.Chunks, h.Path); err == nil && out != "" && !strings.HasSuffix(out, "\n") {
					t.Fatalf("result %q does not end in a newline", out)
				}
			}
		}
	})
}
