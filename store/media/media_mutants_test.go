package media

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

// These pin store/media lines that a one-line mutation (`make mutate`)
// could change with the other tests still passing (issue 17, item 20).

func TestNewRootIsAbsolute(t *testing.T) {
	if r := New("relative/state").Root(); !filepath.IsAbs(r) {
		t.Errorf("Root() = %q, want an absolute path", r)
	}
}

// Save takes exactly maxBytes; one more is ErrTooLarge.
func TestSaveCapIsInclusive(t *testing.T) {
	d := New(t.TempDir())
	d.maxBytes = 10
	if _, err := d.Save(context.Background(), strings.NewReader(strings.Repeat("x", 10)), "text/plain", ""); err != nil {
		t.Fatalf("exactly the cap: %v", err)
	}
	if _, err := d.Save(context.Background(), strings.NewReader(strings.Repeat("y", 11)), "text/plain", ""); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("one over the cap: %v", err)
	}
}

// Name and extension edges: a 128-byte name is valid and 129 is not; a
// leading separator goes; an extension of up to 8 bytes (dot included) is
// kept from the name hint.
func TestNameAndExtensionEdges(t *testing.T) {
	n128 := strings.Repeat("a", 124) + ".png"
	if !validName(n128) || validName("b"+n128) {
		t.Errorf("validName: 128 bytes %v, 129 bytes %v", validName(n128), validName("b"+n128))
	}
	if got := Name("/a.png"); got != "a.png" {
		t.Errorf(`Name("/a.png") = %q`, got)
	}
	for hint, want := range map[string]string{"x.abcdefg": ".abcdefg", "x.abcdefgh": ".bin", "x.": ".bin", "x.a": ".a"} {
		if got := extension("", hint); got != want {
			t.Errorf("extension(%q) = %q, want %q", hint, got, want)
		}
	}
}

// The config bounds are inclusive: 168 hours and 1 MB are taken.
func TestRetentionFromEdges(t *testing.T) {
	for _, c := range []struct {
		key  string
		v    float64
		want Retention
	}{
		{"ttlHours", maxTTLHours, Retention{MaxAge: maxTTLHours * time.Hour, MaxTotalBytes: DefaultMaxTotalBytes}},
		{"maxTotalMb", 1, Retention{MaxAge: DefaultMaxAge, MaxTotalBytes: 1 << 20}},
		{"maxTotalMb", maxTotalMb, Retention{MaxAge: DefaultMaxAge, MaxTotalBytes: int64(maxTotalMb) << 20}},
	} {
		cfg := &config.Config{Doc: map[string]any{"attachments": map[string]any{c.key: c.v}}}
		if got := RetentionFrom(cfg); got != c.want {
			t.Errorf("%s=%v: %+v, want %+v", c.key, c.v, got, c.want)
		}
	}
}

// A sweep reads the whole dir (more than one 256-name batch) without a
// scan bound, and stops at a bound that ends a batch.
func TestSweepReadsEveryBatch(t *testing.T) {
	d := New(t.TempDir())
	now := time.Now()
	for i := range 300 {
		putAt(t, d, fmt.Sprint(i), now.Add(-100*time.Hour))
	}
	st, err := d.Sweep(context.Background(), Retention{MaxAge: time.Hour}, now, Limits{})
	if err != nil || st.Removed != 300 {
		t.Fatalf("one unbounded sweep of 300 expired files: %+v %v", st, err)
	}
	if left := len(mediaNames(t, d)); left != 0 {
		t.Fatalf("%d of 300 expired files left after an unbounded sweep (%+v)", left, st)
	}
	for i := range 300 {
		putAt(t, d, fmt.Sprint(i), now.Add(-100*time.Hour))
	}
	st, err = d.Sweep(context.Background(), Retention{MaxAge: time.Hour}, now, Limits{Scan: 256})
	if err != nil || st.Scanned != 256 {
		t.Fatalf("scan bound 256: %+v %v", st, err)
	}
}

// Age and size edges: a file exactly Grace old is never removed, one
// exactly MaxAge old is kept, a total exactly at the size cap is kept, a
// zero size cap means none, and files of the same time go in name order.
func TestSweepEdges(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	t.Run("grace", func(t *testing.T) {
		d := New(t.TempDir())
		young := putAt(t, d, "young", now.Add(-Grace))
		if _, err := d.Sweep(context.Background(), Retention{MaxAge: time.Hour, MaxTotalBytes: 1}, now, Limits{}); err != nil {
			t.Fatal(err)
		}
		wantNames(t, d, young)
	})
	t.Run("max age", func(t *testing.T) {
		d := New(t.TempDir())
		edge := putAt(t, d, "edge", now.Add(-time.Hour))
		putAt(t, d, "old", now.Add(-time.Hour-time.Second))
		if _, err := d.Sweep(context.Background(), Retention{MaxAge: time.Hour}, now, Limits{}); err != nil {
			t.Fatal(err)
		}
		wantNames(t, d, edge)
	})
	t.Run("size cap", func(t *testing.T) {
		d := New(t.TempDir())
		a := putAt(t, d, "aaaaa", now.Add(-2*Grace))
		b := putAt(t, d, "bbbbb", now.Add(-3*Grace))
		st, err := d.Sweep(context.Background(), Retention{MaxAge: 24 * time.Hour, MaxTotalBytes: 10}, now, Limits{})
		if err != nil || st.Removed != 0 || st.KeptBytes != 10 {
			t.Fatalf("total exactly at the cap: %+v %v", st, err)
		}
		wantNames(t, d, a, b)
		if _, err := d.Sweep(context.Background(), Retention{MaxAge: 24 * time.Hour}, now, Limits{}); err != nil {
			t.Fatal(err)
		}
		wantNames(t, d, a, b) // no size cap at all
	})
	t.Run("same time by name", func(t *testing.T) {
		d := New(t.TempDir())
		at := now.Add(-2 * Grace)
		names := []string{putAt(t, d, "one", at), putAt(t, d, "two", at), putAt(t, d, "six", at)}
		slices.Sort(names)
		if _, err := d.Sweep(context.Background(), Retention{MaxAge: 24 * time.Hour, MaxTotalBytes: 3}, now, Limits{}); err != nil {
			t.Fatal(err)
		}
		wantNames(t, d, names[2])
	})
}

// The after-Save sweep runs again once the marker is exactly
// SweepInterval old.
func TestMaybeSweepAtInterval(t *testing.T) {
	d := New(t.TempDir())
	now := time.Now().Truncate(time.Second)
	putAt(t, d, "old", now.Add(-1000*time.Hour))
	marker := filepath.Join(d.Root(), markerName)
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	at := now.Add(-SweepInterval)
	if err := os.Chtimes(marker, at, at); err != nil {
		t.Fatal(err)
	}
	d.maybeSweep(context.Background(), now)
	wantNames(t, d)
}

// Stop ends a started sweeper's loop; a sweep that fails is reported to
// warn (and with no warn set, nothing breaks); one that works is not.
func TestSweeperStopAndWarn(t *testing.T) {
	for _, broken := range []bool{false, true} {
		dir := t.TempDir()
		d := New(dir)
		if broken { // the media dir is a file: reading it fails
			if err := os.WriteFile(d.Root(), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		} else if _, err := d.Save(context.Background(), strings.NewReader("x"), "text/plain", ""); err != nil {
			t.Fatal(err)
		}
		for _, withWarn := range []bool{true, false} {
			var mu sync.Mutex
			var warned []string
			var warn func(string, ...any)
			if withWarn {
				warn = func(f string, a ...any) { mu.Lock(); warned = append(warned, fmt.Sprintf(f, a...)); mu.Unlock() }
			}
			s := NewSweeper(d, nil, warn)
			swept := make(chan struct{}, 8)
			s.afterSweep = func(SweepStats) { swept <- struct{}{} }
			if err := s.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			<-swept
			if err := s.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.done:
			default:
				t.Fatal("Stop returned with the loop still running")
			}
			mu.Lock()
			if withWarn && (len(warned) == 1) != broken {
				t.Errorf("broken=%v: warned %q", broken, warned)
			}
			mu.Unlock()
		}
	}
	if err := NewSweeper(New(t.TempDir()), nil, nil).Stop(context.Background()); err != nil {
		t.Errorf("Stop of a sweeper never started: %v", err)
	}
}
