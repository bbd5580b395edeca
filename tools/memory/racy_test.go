package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func racyFixture(t *testing.T, body string) (*Index, string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(ws, "memory", "a.md")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.sqlite"), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ix, p
}

// forgeSameTick makes the index believe the note's current stat is the one
// it read: what the kernel gives when a second write lands in the same
// timestamp tick as the first (same size, same mtime and ctime).
func forgeSameTick(t *testing.T, ix *Index, racy bool) {
	t.Helper()
	ctx := context.Background()
	notes, err := scanNotes(ix.root)
	if err != nil || len(notes) != 1 {
		t.Fatalf("scan: %v %v", notes, err)
	}
	n := notes[0]
	if _, err := ix.db.ExecContext(ctx, `UPDATE files SET ino=?, size=?, mtime_ns=?, ctime_ns=?, racy=? WHERE path=?`,
		n.st.ino, n.st.size, n.st.mtime, n.st.ctime, racy, n.rel); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.db.ExecContext(ctx, `UPDATE meta SET value=? WHERE key='scan'`, signature(notes)); err != nil {
		t.Fatal(err)
	}
}

func hitCount(t *testing.T, ix *Index, q string) int {
	t.Helper()
	hits, err := ix.Search(context.Background(), q, 6, 0, rerank{})
	if err != nil {
		t.Fatal(err)
	}
	return len(hits)
}

// A note indexed right after it was written is racy: its stat does not
// prove the next same-tick write absent, so the next sync re-hashes it even
// though the stat and the scan signature are unchanged.
func TestRacyNoteIsRecheckedWhenItsStatDidNotMove(t *testing.T) {
	ctx := context.Background()
	ix, p := racyFixture(t, "# A\nalpha walrus\n")
	var racy bool
	if err := ix.db.QueryRowContext(ctx, `SELECT racy FROM files`).Scan(&racy); err != nil || !racy {
		t.Fatalf("a note written just now is not racy: %v %v", racy, err)
	}
	if err := os.WriteFile(p, []byte("# A\nalpha badger\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without the flag the forged state hides the edit: the flag is what
	// finds it.
	forgeSameTick(t, ix, false)
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if hitCount(t, ix, "badger") != 0 {
		t.Fatal("the forged same-tick state does not hide the edit; the test proves nothing")
	}
	forgeSameTick(t, ix, true)
	st, err := ix.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != 1 || hitCount(t, ix, "badger") != 1 || hitCount(t, ix, "walrus") != 0 {
		t.Errorf("same-tick edit of a racy note missed: %+v", st)
	}
}

// Once a racy note is old enough, a warm sync that re-hashed it clears the
// flag, so it is not re-read on every search forever.
func TestRacyFlagClearsOnceTheNoteIsOld(t *testing.T) {
	ctx := context.Background()
	ix, _ := racyFixture(t, "# A\nalpha walrus\n")
	old := racyWindow
	t.Cleanup(func() { racyWindow = old })
	racyWindow = -old // every stat now counts as older than the window
	st, err := ix.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var racy bool
	if err := ix.db.QueryRowContext(ctx, `SELECT racy FROM files`).Scan(&racy); err != nil || racy {
		t.Errorf("racy flag kept: %v %v", racy, err)
	}
	if st.Unchanged != 1 || st.Indexed != 0 {
		t.Errorf("warm sync: %+v", st)
	}
}
