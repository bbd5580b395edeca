package patch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkApply10kLines50Hunks: one Update File with 50 hunks spread over
// a 10,000-line file, applied through the whole tool (read, match, stage,
// fsync, rename) each iteration.
func BenchmarkApply10kLines50Hunks(b *testing.B) {
	env, ws := testEnv(b, "")
	var orig strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&orig, "line %d: some ordinary source text here\n", i)
	}
	p := filepath.Join(ws, "big.txt")
	var pb strings.Builder
	pb.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
	for h := range 50 {
		n := h*200 + 100
		fmt.Fprintf(&pb, "@@\n line %d: some ordinary source text here\n-line %d: some ordinary source text here\n+line %d: CHANGED\n line %d: some ordinary source text here\n",
			n-1, n, n, n+1)
	}
	pb.WriteString("*** End Patch")
	patch := pb.String()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if err := os.WriteFile(p, []byte(orig.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Apply(context.Background(), env, patch); err != nil {
			b.Fatal(err)
		}
	}
}
