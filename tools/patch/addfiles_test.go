package patch

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// addFilesPatch adds n one-line files under dir.
func addFilesPatch(dir string, n int) string {
	var pb strings.Builder
	pb.WriteString("*** Begin Patch\n")
	for f := range n {
		fmt.Fprintf(&pb, "*** Add File: %s/f%05d.txt\n+file %d\n", dir, f, f)
	}
	pb.WriteString("*** End Patch")
	return pb.String()
}

// A patch's work grows with the files it adds, not with their square:
// four times the files may cost at most five times the allocations. (Each
// staged temp file used to rescan the directory and lstat every temp staged
// before it: 200 → 800 files cost ~13× the allocations.) Allocations, not
// time, so the check does not depend on the machine's load.
func TestApplyAddFilesLinear(t *testing.T) {
	env, _ := testEnv(t, "")
	run := 0
	allocs := func(n int) float64 {
		return testing.AllocsPerRun(1, func() {
			run++
			if _, err := Apply(context.Background(), env, addFilesPatch(fmt.Sprintf("run%d", run), n)); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, big := allocs(200), allocs(800)
	if big > 5*small {
		t.Fatalf("800 files: %.0f allocations, 200 files: %.0f (%.1f×): not linear", big, small, big/small)
	}
}
