package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fanOut writes f0..f(n-1) where each file includes the next one `times`
// times (f(n-1) is a leaf), and openclaw.json includes f0 under tools.
func fanOut(t *testing.T, dir string, n, times int) string {
	t.Helper()
	for i := 0; i < n; i++ {
		body := `{ deny: ["x"] }`
		if i < n-1 {
			refs := make([]string, times)
			for j := range refs {
				refs[j] = fmt.Sprintf("%q", fmt.Sprintf("f%d.json5", i+1))
			}
			body = `{ "$include": [` + strings.Join(refs, ",") + `] }`
		}
		writeFile(t, dir, fmt.Sprintf("f%d.json5", i), body)
	}
	return writeFile(t, dir, "openclaw.json", `{ tools: { "$include": "f0.json5" } }`)
}

// An include fan-out (8 files, each including the next 10 times: 10^7
// loads without memoisation) fails at once, naming the cap.
func TestIncludeFanOutFailsFast(t *testing.T) {
	dir := t.TempDir()
	path := fanOut(t, dir, 8, 10)
	done := make(chan error, 1)
	go func() {
		_, err := Load(path, envMap(nil))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "maximum $include count") {
			t.Fatalf("Load = %v, want the include count cap named", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Load of an include fan-out did not return (exponential include expansion)")
	}
}

// The same file included several times is read and parsed once per load,
// and a small fan-out under the caps still loads (arrays concatenate).
func TestIncludeMemoisedUnderCaps(t *testing.T) {
	dir := t.TempDir()
	path := fanOut(t, dir, 3, 3)
	cfg, err := Load(path, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	deny, _ := cfg.Get("tools.deny")
	if l, _ := deny.([]any); len(l) != 9 {
		t.Errorf("tools.deny has %d items, want 9", len(l))
	}
	if got := len(cfg.IncludedPaths); got != 3 {
		t.Errorf("IncludedPaths = %v, want each file once", cfg.IncludedPaths)
	}
}

// The expanded bytes of every include (a file counted each time it is
// used) are capped.
func TestIncludeTotalBytesCap(t *testing.T) {
	dir := t.TempDir()
	big := `{ note: "` + strings.Repeat("a", 1<<20) + `" }`
	writeFile(t, dir, "big.json5", big)
	refs := make([]string, 40)
	for i := range refs {
		refs[i] = `"big.json5"`
	}
	path := writeFile(t, dir, "openclaw.json", `{ tools: { "$include": [`+strings.Join(refs, ",")+`] } }`)
	_, err := Load(path, envMap(nil))
	if err == nil || !strings.Contains(err.Error(), "maximum total $include size") {
		t.Fatalf("Load = %v, want the total size cap named", err)
	}
}

// A cancelled context stops a load between includes.
func TestLoadContextCancelled(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.json5", `{ profile: "coding" }`)
	path := writeFile(t, dir, "openclaw.json", `{ tools: { "$include": "a.json5" } }`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LoadContext(ctx, path, envMap(nil)); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("LoadContext(cancelled) = %v", err)
	}
	_ = os.Remove(filepath.Join(dir, "a.json5"))
}

// A memoised file reused deeper in the include tree still obeys the depth
// limit: reuse is checked against the file's own include height.
func TestIncludeMemoisedDepth(t *testing.T) {
	dir := t.TempDir()
	for i := 1; i <= 10; i++ {
		body := `{ note: "leaf" }`
		if i < 10 {
			body = fmt.Sprintf(`{ "$include": "c%d.json5" }`, i+1)
		}
		writeFile(t, dir, fmt.Sprintf("c%d.json5", i), body)
	}
	writeFile(t, dir, "x.json5", `{ "$include": "c1.json5" }`)
	// c1 at depth 1 reaches c10 at depth 10: allowed.
	ok := writeFile(t, dir, "openclaw.json", `{ a: { "$include": "c1.json5" } }`)
	if _, err := Load(ok, envMap(nil)); err != nil {
		t.Fatalf("depth 10: %v", err)
	}
	// Reused below x, c1's chain would reach depth 11.
	deep := writeFile(t, dir, "openclaw.json", `{ a: { "$include": "c1.json5" }, b: { "$include": "x.json5" } }`)
	if _, err := Load(deep, envMap(nil)); err == nil || !strings.Contains(err.Error(), "maximum include depth") {
		t.Fatalf("reused file past the depth limit: %v", err)
	}
}
