package commands

import (
	"bytes"
	"testing"
)

// In-process cost of one CLI call after package init: building the command
// tree from the registry, parsing, running and printing.
func BenchmarkMainToolsListJSON(b *testing.B) {
	b.Setenv("OPENCLAW_STATE_DIR", b.TempDir())
	for i := 0; i < b.N; i++ {
		var out, errb bytes.Buffer
		if code := Main([]string{"openclaw", "tools", "list", "--json"}, nil, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

func BenchmarkMainVersion(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var out, errb bytes.Buffer
		Main([]string{"openclaw", "version"}, nil, &out, &errb)
	}
}
