package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

func benchSmallFile(b *testing.B) string {
	file := filepath.Join(b.TempDir(), "small.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat("0123456789abcde\n", 64)), 0o600); err != nil {
		b.Fatal(err)
	}
	return file
}

// BenchmarkMainReadJSON is one whole in-process `openclaw read <1 KiB> --json`.
func BenchmarkMainReadJSON(b *testing.B) {
	b.Setenv("OPENCLAW_STATE_DIR", b.TempDir())
	file := benchSmallFile(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var out, errb bytes.Buffer
		if code := Main([]string{"openclaw", "read", file, "--json"}, nil, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

// BenchmarkInvokeLocalRead is the door of a local `read` as the CLI calls
// it: params from flags, then tools.Invoke.
func BenchmarkInvokeLocalRead(b *testing.B) {
	file := benchSmallFile(b)
	env := &tools.Env{StateDir: b.TempDir()}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		params := map[string]any{"path": file}
		out, err := tools.Invoke(ctx, env, tools.Call{ID: "read", Value: params})
		if err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}
