package media

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

// putAt stores content and sets the file's time to at.
func putAt(t *testing.T, d *Dir, content string, at time.Time) string {
	t.Helper()
	ref, err := d.Save(context.Background(), strings.NewReader(content), "text/plain", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(ref.Path, at, at); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(ref.Path)
}

// saveAged stores content and sets the file's time to now-age.
func saveAged(t *testing.T, d *Dir, content string, age time.Duration) string {
	t.Helper()
	return putAt(t, d, content, time.Now().Add(-age))
}

// mediaNames lists the media dir without its lock and marker files.
func mediaNames(t *testing.T, d *Dir) []string {
	t.Helper()
	ents, err := os.ReadDir(d.Root())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); n != lockName && n != markerName {
			out = append(out, n)
		}
	}
	return out
}

func wantNames(t *testing.T, d *Dir, want ...string) {
	t.Helper()
	got := mediaNames(t, d)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("media dir holds %q, want %q", got, want)
	}
}

// Files older than the age limit go; younger ones, symlinks, directories
// and names Save never makes stay; temp files of killed saves go once
// they are past the grace period.
func TestSweepRemovesExpired(t *testing.T) {
	d := New(t.TempDir())
	now := time.Now()
	saveAged(t, d, "old", 25*time.Hour)
	mid := saveAged(t, d, "mid", 23*time.Hour)
	fresh := saveAged(t, d, "fresh", 0)
	aged := now.Add(-48 * time.Hour)
	for _, n := range []string{".tmp-123", ".tmp-456", ".save.tmp-789", ".save.tmp-012", "Not Ours.png"} {
		if err := os.WriteFile(filepath.Join(d.Root(), n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{".tmp-123", ".save.tmp-789", "Not Ours.png"} {
		if err := os.Chtimes(filepath.Join(d.Root(), n), aged, aged); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "keep.txt")
	if err := os.WriteFile(outside, []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(d.Root(), "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(d.Root(), "sub.dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(d.Root(), "sub.dir"), aged, aged); err != nil {
		t.Fatal(err)
	}

	st, err := d.Sweep(context.Background(), Retention{MaxAge: 24 * time.Hour, MaxTotalBytes: 1 << 30}, now, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	wantNames(t, d, mid, fresh, ".save.tmp-012", ".tmp-456", "Not Ours.png", "link.txt", "sub.dir")
	if st.Removed != 3 || st.RemovedBytes != int64(len("old")+2) || st.KeptBytes != int64(len("mid")+len("fresh")) {
		t.Fatalf("stats %+v", st)
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside" {
		t.Fatal("the symlink's target was touched")
	}
}

// Over the size cap the oldest go first, but never a file inside the
// grace period: a response may just have returned it.
func TestSweepSizeCapKeepsGrace(t *testing.T) {
	d := New(t.TempDir())
	saveAged(t, d, strings.Repeat("a", 100), 3*time.Hour)
	saveAged(t, d, strings.Repeat("b", 100), 2*time.Hour)
	c := saveAged(t, d, strings.Repeat("c", 100), time.Hour)
	young := saveAged(t, d, strings.Repeat("y", 300), Grace/2)
	r := Retention{MaxAge: 24 * time.Hour, MaxTotalBytes: 450}
	if _, err := d.Sweep(context.Background(), r, time.Now(), Limits{}); err != nil {
		t.Fatal(err)
	}
	// 600 bytes: a and b go (oldest first), 400 fits.
	wantNames(t, d, c, young)
	r.MaxTotalBytes = 100
	if _, err := d.Sweep(context.Background(), r, time.Now(), Limits{}); err != nil {
		t.Fatal(err)
	}
	// c goes; young stays over the cap.
	wantNames(t, d, young)
}

// Saving the same bytes again renews the file, so a sweep keeps it.
func TestSaveRenewsSameBytes(t *testing.T) {
	d := New(t.TempDir())
	name := saveAged(t, d, "again", 48*time.Hour)
	if _, err := d.Save(context.Background(), strings.NewReader("again"), "text/plain", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Sweep(context.Background(), RetentionFrom(nil), time.Now(), Limits{}); err != nil {
		t.Fatal(err)
	}
	wantNames(t, d, name)
}

// With SweepOnSave (the CLI), a save sweeps at most once per interval.
func TestSaveSweepsAtMostOncePerInterval(t *testing.T) {
	state := t.TempDir()
	plain := New(state)
	saveAged(t, plain, "old one", 48*time.Hour)

	d := New(state).SweepOnSave(config.Empty())
	kept := saveAged(t, d, "new one", 0)
	wantNames(t, d, kept) // the old one swept

	old2 := saveAged(t, plain, "old two", 48*time.Hour)
	kept2 := saveAged(t, d, "new two", 0)
	wantNames(t, d, kept, kept2, old2) // the last sweep was just now

	back := time.Now().Add(-SweepInterval - time.Minute)
	if err := os.Chtimes(filepath.Join(d.Root(), markerName), back, back); err != nil {
		t.Fatal(err)
	}
	kept3 := saveAged(t, d, "new three", 0)
	wantNames(t, d, kept, kept2, kept3)

	// Without SweepOnSave (the gateway's dir) a save never sweeps.
	old3 := saveAged(t, plain, "old three", 48*time.Hour)
	if err := os.Chtimes(filepath.Join(d.Root(), markerName), back, back); err != nil {
		t.Fatal(err)
	}
	kept4 := saveAged(t, plain, "new four", 0)
	wantNames(t, d, kept, kept2, kept3, old3, kept4)
}

func TestRetentionFromConfig(t *testing.T) {
	if r := RetentionFrom(config.Empty()); r.MaxAge != DefaultMaxAge || r.MaxTotalBytes != DefaultMaxTotalBytes {
		t.Fatalf("defaults %+v", r)
	}
	cfg := config.Empty()
	cfg.Doc["attachments"] = map[string]any{"ttlHours": float64(2), "maxTotalMb": float64(5)}
	if r := RetentionFrom(cfg); r.MaxAge != 2*time.Hour || r.MaxTotalBytes != 5<<20 {
		t.Fatalf("configured %+v", r)
	}
	if iss, warn := config.Validate(cfg.Doc); len(iss)+len(warn) != 0 {
		t.Fatalf("schema: issues %v, warnings %v", iss, warn)
	}
	for _, bad := range []map[string]any{{"ttlHours": float64(0)}, {"ttlHours": float64(169)}, {"maxTotalMb": float64(0)}, {"ttlHours": "1"}} {
		if iss, _ := config.Validate(map[string]any{"attachments": bad}); len(iss) == 0 {
			t.Errorf("attachments %v accepted", bad)
		}
	}
}

// The sweeper sweeps once at start, again when kicked, and with the
// config its function returns at that moment (a reload applies at the
// next sweep); Stop waits for it.
func TestSweeperLifecycle(t *testing.T) {
	d := New(t.TempDir())
	old := saveAged(t, d, "old", 48*time.Hour)
	var current atomic.Pointer[config.Config]
	current.Store(config.Empty())
	s := NewSweeper(d, current.Load, t.Logf)
	swept := make(chan SweepStats, 4)
	s.afterSweep = func(st SweepStats) { swept <- st }
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	next := func() SweepStats {
		t.Helper()
		select {
		case st := <-swept:
			return st
		case <-time.After(20 * time.Second):
			t.Fatal("no sweep within 20s")
		}
		return SweepStats{}
	}
	if st := next(); st.Removed != 1 {
		t.Fatalf("first sweep %+v", st)
	}
	if slices.Contains(mediaNames(t, d), old) {
		t.Fatal("old file kept")
	}

	two := saveAged(t, d, "two hours", 2*time.Hour)
	s.Kick()
	next()
	wantNames(t, d, two)

	reloaded := config.Empty()
	reloaded.Doc["attachments"] = map[string]any{"ttlHours": float64(1)}
	current.Store(reloaded)
	s.Kick()
	next()
	wantNames(t, d)
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Limits bound a sweep: removals stop at Remove (oldest first), the scan
// at Scan entries (rounded up to a directory read).
func TestSweepLimits(t *testing.T) {
	d := New(t.TempDir())
	var names []string
	for i := range 5 {
		names = append(names, saveAged(t, d, strings.Repeat("x", i+1), time.Duration(50-i)*time.Hour))
	}
	st, err := d.Sweep(context.Background(), RetentionFrom(nil), time.Now(), Limits{Remove: 2})
	if err != nil || st.Removed != 2 || st.KeptBytes != 3+4+5 {
		t.Fatalf("%+v %v", st, err)
	}
	wantNames(t, d, names[2:]...)
	st, err = d.Sweep(context.Background(), RetentionFrom(nil), time.Now(), Limits{Scan: 1})
	if err != nil || st.Scanned < 1 {
		t.Fatalf("%+v %v", st, err)
	}
}

// A backlog larger than one locked batch is removed whole (the lock is
// taken per batch), and a removal bound that is not a multiple of the
// batch stops exactly there.
func TestSweepBacklogInBatches(t *testing.T) {
	d := New(t.TempDir())
	if err := os.MkdirAll(d.Root(), 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	for i := range 3*removeBatch + 5 {
		p := filepath.Join(d.Root(), fmt.Sprintf("%032x.png", i))
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	st, err := d.Sweep(context.Background(), RetentionFrom(nil), time.Now(), Limits{Remove: removeBatch + 3})
	if err != nil || st.Removed != removeBatch+3 || st.KeptBytes != int64(2*removeBatch+2) {
		t.Fatalf("bounded: %+v %v", st, err)
	}
	st, err = d.Sweep(context.Background(), RetentionFrom(nil), time.Now(), Limits{})
	if err != nil || st.Removed != 2*removeBatch+2 || st.KeptBytes != 0 {
		t.Fatalf("whole: %+v %v", st, err)
	}
	wantNames(t, d)
}

// stallReader hands out one chunk, then waits for release before failing.
type stallReader struct {
	sent    bool
	reading chan struct{}
	release chan struct{}
}

func (r *stallReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		return copy(p, "partial"), nil
	}
	close(r.reading)
	<-r.release
	return 0, errors.New("source gone")
}

// The temp file a Save writes through is one the sweeper knows as a temp
// (so a killed save's leftover is swept after the grace period), and a
// failed save leaves nothing.
func TestSaveTempIsSweepable(t *testing.T) {
	d := New(t.TempDir())
	r := &stallReader{reading: make(chan struct{}), release: make(chan struct{})}
	errc := make(chan error, 1)
	go func() { _, err := d.Save(context.Background(), r, "image/png", ""); errc <- err }()
	<-r.reading
	names := mediaNames(t, d)
	if len(names) != 1 || !isTempName(names[0]) {
		t.Errorf("during a save the dir holds %q", names)
	}
	close(r.release)
	if err := <-errc; err == nil {
		t.Fatal("save of a failing reader succeeded")
	}
	if names := mediaNames(t, d); len(names) != 0 {
		t.Fatalf("a failed save left %q", names)
	}
}
