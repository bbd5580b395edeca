package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// A directory big enough to be stat'ed in parallel gives the same notes as
// a small one: every *.md, no symlink, no hard link, no directory named
// *.md, and the notes of its subdirectories.
func TestScanOfALargeDirectory(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, "memory")
	var want []string
	for i := range 3 * parallelStats {
		name := fmt.Sprintf("n%05d.md", i)
		if i%500 == 7 {
			name = fmt.Sprintf("n%05d.txt", i)
		} else {
			want = append(want, "memory/"+name)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "o.md")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		os.Link(outside, filepath.Join(dir, "hard.md")),
		os.Symlink(outside, filepath.Join(dir, "sym.md")),
		os.Mkdir(filepath.Join(dir, "dir.md"), 0o755),
		os.WriteFile(filepath.Join(dir, "dir.md", "inner.md"), []byte("y\n"), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	want = append(want, "memory/dir.md/inner.md")
	notes, err := scanNotes(ws)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range notes {
		got = append(got, n.rel)
		if n.st.ino == 0 || n.st.size == 0 || n.st.mtime == 0 || n.st.ctime == 0 {
			t.Errorf("%s: empty stat %+v", n.rel, n.st)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("scan found %d notes, want %d", len(got), len(want))
	}
}
