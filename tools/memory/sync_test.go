package memory_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// An edit that keeps the size and puts the mtime back (touch -r, cp -p, an
// editor restoring times) is still seen: ctime moved.
func TestSearchSeesSameSizeEditWithRestoredMtime(t *testing.T) {
	env, ws := newEnv(t, map[string]string{"memory/a.md": "# A\nthe code word is walrus\n"})
	p := filepath.Join(ws, "memory", "a.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, env, "walrus")); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	writeNote(t, ws, "memory/a.md", "# A\nthe code word is badger\n") // same size
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, env, "walrus")); len(got) != 0 {
		t.Errorf("old word still found: %v", got)
	}
	if got := paths(search(t, env, "badger")); len(got) != 1 {
		t.Errorf("new word not found: %v", got)
	}
}

// A note replaced by a rename with the same size and mtime (tar x, rsync -t)
// is seen: the inode changed.
func TestSearchSeesReplacementWithSameSizeAndMtime(t *testing.T) {
	env, ws := newEnv(t, map[string]string{"memory/a.md": "# A\nmeet at the harbour\n"})
	p := filepath.Join(ws, "memory", "a.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, env, "harbour")); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	tmp := filepath.Join(ws, "memory", "a.tmp")
	if err := os.WriteFile(tmp, []byte("# A\nmeet at the station\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, env, "station")); len(got) != 1 {
		t.Errorf("replacement not seen: %v", got)
	}
}

// Between two searches: a note added in a new directory, one renamed and
// one removed in a subdirectory are all seen, each in its own round, with
// no pause between the change and the search.
func TestSearchSeesAddRenameRemoveAtOnce(t *testing.T) {
	env, ws := newEnv(t, map[string]string{
		"memory/x/keep.md": "# Keep\nnothing to see\n",
		"memory/x/old.md":  "# Old\nthe marmot sleeps\n",
	})
	if got := paths(search(t, env, "marmot")); !slices.Equal(got, []string{"memory/x/old.md"}) {
		t.Fatalf("before: %v", got)
	}
	writeNote(t, ws, "memory/y/z/new.md", "# New\nan ocelot appears\n")
	if got := paths(search(t, env, "ocelot")); !slices.Equal(got, []string{"memory/y/z/new.md"}) {
		t.Errorf("added: %v", got)
	}
	if err := os.Rename(filepath.Join(ws, "memory/x/old.md"), filepath.Join(ws, "memory/x/renamed.md")); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, env, "marmot")); !slices.Equal(got, []string{"memory/x/renamed.md"}) {
		t.Errorf("renamed: %v", got)
	}
	if err := os.Remove(filepath.Join(ws, "memory/x/renamed.md")); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, env, "marmot")); len(got) != 0 {
		t.Errorf("removed: %v", got)
	}
}

// Same-size edits right after a search, many times over: whether or not
// the kernel's timestamp moved between two writes (a coarse tick is a few
// ms), every edit is found by the next search.
func TestSearchSeesEditsWithinOneTick(t *testing.T) {
	env, ws := newEnv(t, map[string]string{"memory/a.md": "# A\nword w000\n"})
	for i := range 30 {
		w := "w" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "z"
		writeNote(t, ws, "memory/a.md", "# A\nword "+w+"\n")
		if got := paths(search(t, env, w)); len(got) != 1 {
			t.Fatalf("round %d: %s not found: %v", i, w, got)
		}
	}
}

// A hard link in memory/ to a file outside the workspace is neither indexed
// nor returned by memory_get (apply_patch and upload refuse them too).
func TestHardLinkedNotesAreRefused(t *testing.T) {
	env, ws := newEnv(t, map[string]string{"memory/ok.md": "# Ok\nordinary note\n"})
	outside := filepath.Join(filepath.Dir(ws), "outside-secret.md")
	if err := os.WriteFile(outside, []byte("# Secret\nthe vault code is quokka\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"memory/link.md", "MEMORY.md"} {
		if err := os.Link(outside, filepath.Join(ws, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	if got := paths(search(t, env, "quokka vault")); len(got) != 0 {
		t.Errorf("hard-linked note indexed: %v", got)
	}
	for _, rel := range []string{"memory/link.md", "MEMORY.md", filepath.Join(ws, "memory", "link.md")} {
		r, err := invoke(t, env, "memory_get", map[string]any{"path": rel})
		te := tools.AsError(err)
		if te == nil || te.Message != notMemoryFile {
			t.Errorf("memory_get %s: %v %s", rel, err, r.Raw)
		}
	}
	if got := paths(search(t, env, "ordinary")); len(got) != 1 {
		t.Errorf("the ordinary note: %v", got)
	}
	// A note that gains a second link after it was indexed drops out.
	if err := os.Link(filepath.Join(ws, "memory", "ok.md"), filepath.Join(filepath.Dir(ws), "copy.md")); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, env, "ordinary")); len(got) != 0 {
		t.Errorf("note with a second link still indexed: %v", got)
	}
}
