package fs_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools/fs"
)

// staleTemp makes a leftover temp file (createTemp's naming) two hours old.
func staleTemp(t *testing.T, dir, name string) string {
	t.Helper()
	p := writeFile(t, dir, name, "left by a killed write")
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	return p
}

// A Stager sweeps a directory's stale temps on the first file it stages
// there, and only then (a sweep per file made apply_patch quadratic); every
// staged file still commits, and SyncDirs is what is left to do.
func TestStagerSweepsEachDirectoryOnce(t *testing.T) {
	env, ws := newEnv(t)
	first := staleTemp(t, ws, ".a.txt.0123456789ab.tmp")
	var st fs.Stager
	stage := func(name string) *fs.Staged {
		tg, err := fs.Resolve(env, name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := st.Stage(tg, []byte(name), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := stage("a.txt")
	if _, err := os.Lstat(first); !os.IsNotExist(err) {
		t.Fatalf("the first stage in a directory left its stale temp: %v", err)
	}
	second := staleTemp(t, ws, ".b.txt.0123456789ab.tmp")
	b := stage("b.txt")
	if _, err := os.Lstat(second); err != nil {
		t.Fatalf("the second stage in the same directory swept it again: %v", err)
	}
	other := staleTemp(t, filepath.Join(ws, "sub"), ".c.txt.0123456789ab.tmp")
	c := stage("sub/c.txt")
	if _, err := os.Lstat(other); !os.IsNotExist(err) {
		t.Fatalf("the first stage in another directory left its stale temp: %v", err)
	}
	for _, s := range []*fs.Staged{a, b, c} {
		if err := s.Commit(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	st.SyncDirs()
	for _, n := range []string{"a.txt", "b.txt", "sub/c.txt"} {
		if got := readFile(t, filepath.Join(ws, n)); got != n {
			t.Fatalf("%s: %q", n, got)
		}
	}
	if left := leftovers(t, ws); !slices.Equal(left, []string{".b.txt.0123456789ab.tmp"}) {
		t.Fatalf("temp files left: %q", left)
	}
}
