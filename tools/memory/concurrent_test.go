package memory

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

// Two processes (here: two handles on the same file) searching a fresh
// index at once both succeed and the index holds each note once.
func TestConcurrentSyncsShareOneIndex(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		body := fmt.Sprintf("# Note %d\nshared word and unique%d\n", i, i)
		if err := os.WriteFile(filepath.Join(ws, "memory", fmt.Sprintf("n%02d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "memory", "main.sqlite")
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix, err := Open(ctx, db, ws)
			if err != nil {
				errs[g] = err
				return
			}
			defer ix.Close()
			if _, err := ix.Sync(ctx); err != nil {
				errs[g] = err
				return
			}
			_, errs[g] = ix.Search(ctx, "shared", 6, 0, rerank{})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ix, err := Open(ctx, db, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM chunks`).Scan(&n); err != nil || n != 50 {
		t.Fatalf("chunks %d (%v), want 50", n, err)
	}
	hits, err := ix.Search(ctx, "unique7", 6, 0, rerank{})
	if err != nil || len(hits) != 1 || hits[0].Path != "memory/n07.md" {
		t.Fatalf("unique7: %+v %v", hits, err)
	}
}

func TestRenderSearch(t *testing.T) {
	var b bytes.Buffer
	res := gjson.Parse(`{"details":{"results":[{"path":"memory/a.md","startLine":3,"endLine":9,"score":0.71234,"snippet":"one\ntwo\nthree\nfour\nfive"}]}}`)
	if err := renderSearch(&b, res); err != nil {
		t.Fatal(err)
	}
	want := "memory/a.md:3-9  (score 0.712)\n  one\n  two\n  three\n  four\n  …\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	renderSearch(&b, gjson.Parse(`{"details":{"results":[]}}`))
	if !strings.Contains(b.String(), "No matches.") {
		t.Errorf("empty: %q", b.String())
	}
}

// Scores under a thousandth keep two significant digits.
func TestScoreText(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{0.71234, "0.712"}, {0.000002, "2e-06"}, {0.0000123, "1.2e-05"}, {0, "0.000"}, {1, "1.000"}} {
		if got := scoreText(c.f); got != c.want {
			t.Errorf("scoreText(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}
