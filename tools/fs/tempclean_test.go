package fs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// leftovers lists the entries of dir that look like our temp files.
func leftovers(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range dirNames(t, dir) {
		if strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".tmp") {
			out = append(out, n)
		}
	}
	return out
}

// killMidWrite runs the write loop in a real process and kills it with
// SIGKILL while a write's temp file exists, until a kill leaves one behind.
func killMidWrite(t *testing.T, ws string) string {
	t.Helper()
	writeFile(t, ws, "big.txt", loopContent(0))
	for round := range 50 {
		cmd := helper(t, "writeloop", ws)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(leftovers(t, ws)) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: no temp file seen", round)
			}
			runtime.Gosched()
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if left := leftovers(t, ws); len(left) == 1 {
			return left[0]
		}
	}
	t.Fatal("50 kills mid-write left no temp file behind")
	return ""
}

// A kill -9 in the middle of a write leaves a hidden .<name>.<hex>.tmp
// beside the (intact) file. The next write in that directory removes it
// once it is older than the safe age, and removes nothing else: not a
// young temp file (a write under way in another process), not a symlink
// or directory of the same pattern, not names that merely look alike.
func TestNextWriteRemovesStaleTempAfterKill9(t *testing.T) {
	ws := t.TempDir()
	left := killMidWrite(t, ws)
	if got := readFile(t, filepath.Join(ws, "big.txt")); got != loopContent(0) && got != loopContent(1) {
		t.Fatalf("kill -9 left a %d-byte file", len(got))
	}

	old := time.Now().Add(-2 * time.Hour)
	target := writeFile(t, t.TempDir(), "elsewhere.txt", "x")
	decoys := []string{
		".young.txt.0123456789ab.tmp", // a write under way elsewhere: too young
		".notes.txt.tmp",              // no random part
		".x.0123456789AB.tmp",         // not our hex
		".x.0123456789ab.tmp.bak",     // not our suffix
		"y.0123456789ab.tmp",          // not hidden
	}
	for _, n := range decoys {
		writeFile(t, ws, n, "keep")
	}
	for _, n := range decoys[1:] {
		if err := os.Chtimes(filepath.Join(ws, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	link := ".link.0123456789ab.tmp"
	if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
		t.Fatal(err)
	}
	tv := []unix.Timeval{unix.NsecToTimeval(old.UnixNano()), unix.NsecToTimeval(old.UnixNano())}
	if err := unix.Lutimes(filepath.Join(ws, link), tv); err != nil {
		t.Fatal(err)
	}
	dir := ".d.0123456789ab.tmp"
	if err := os.Mkdir(filepath.Join(ws, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(ws, dir), old, old); err != nil {
		t.Fatal(err)
	}

	writeIn := func() {
		t.Helper()
		pf := filepath.Join(t.TempDir(), "p.json")
		if err := os.WriteFile(pf, []byte(`{"path":"other.txt","content":"hello\n"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := helper(t, "invoke", ws, "FS_HELPER_TOOL=write", "FS_HELPER_PARAMS="+pf)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("write: %v %s", err, stderr.String())
		}
	}

	// Just killed: too young to be sure nobody is still writing it.
	writeIn()
	if !slices.Contains(dirNames(t, ws), left) {
		t.Fatalf("a fresh temp file %s was removed", left)
	}

	if err := os.Chtimes(filepath.Join(ws, left), old, old); err != nil {
		t.Fatal(err)
	}
	writeIn()
	got := dirNames(t, ws)
	if slices.Contains(got, left) {
		t.Fatalf("the stale temp file %s is still there: %q", left, got)
	}
	for _, n := range append(decoys, link, dir, "big.txt", "other.txt") {
		if !slices.Contains(got, n) {
			t.Errorf("%s was removed", n)
		}
	}
	if fi, err := os.Lstat(filepath.Join(ws, link)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("symlink %s: %v", link, err)
	}
	if readFile(t, target) != "x" {
		t.Error("the symlink's target changed")
	}
}
