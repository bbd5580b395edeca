package web

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// savedPages are the 50 pages of testdata/pages/web: articles, docs with
// code, tables, news, forums, recipes, CJK, RTL, very long, nav-heavy,
// an SPA shell, hidden-text injection. Each names in a comment a phrase
// the extraction must keep (expect) or drop (reject).
func savedPages(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "pages", "web", "*.html"))
	if err != nil || len(files) != 50 {
		tb.Fatalf("want 50 saved pages, got %d (%v)", len(files), err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

var (
	expectRe = regexp.MustCompile(`<!-- expect: (.*?) -->`)
	rejectRe = regexp.MustCompile(`<!-- reject: (.*?) -->`)
)

func TestSavedPagesExtract(t *testing.T) {
	page, _ := url.Parse("https://pages.example/")
	for name, b := range savedPages(t) {
		ex, err := extract(b, "text/html; charset=utf-8", page, "markdown")
		want := ""
		if m := expectRe.FindSubmatch(b); m != nil {
			want = string(m[1])
		}
		if want == "" { // the SPA shell: nothing readable, the Firecrawl cue
			if err != errNoContent && strings.TrimSpace(ex.Text) != "" && !strings.Contains(ex.Text, "JavaScript") {
				t.Errorf("%s: want no content, got %v %q", name, err, ex.Text)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.Contains(ex.Title+"\n"+ex.Text, want) { // readability lifts the heading into the title
			t.Errorf("%s: extraction lacks %q:\n%.400s", name, want, ex.Text)
		}
		if m := rejectRe.FindSubmatch(b); m != nil && strings.Contains(ex.Text, string(m[1])) {
			t.Errorf("%s: extraction keeps hidden %q", name, m[1])
		}
	}
}

// BenchmarkExtractSavedPages is web_fetch's extraction (readability, then
// Markdown) over the 50 saved pages; it reports pages/s and the median
// milliseconds per page:
//
//	go test ./tools/web -run '^$' -bench ExtractSavedPages -benchtime 5x
func BenchmarkExtractSavedPages(b *testing.B) {
	pages := savedPages(b)
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	sort.Strings(names)
	page, _ := url.Parse("https://pages.example/")
	var per []float64
	b.ResetTimer()
	for b.Loop() {
		for _, n := range names {
			start := time.Now()
			_, _ = extract(pages[n], "text/html; charset=utf-8", page, "markdown")
			per = append(per, float64(time.Since(start).Microseconds())/1000)
		}
	}
	b.StopTimer()
	sort.Float64s(per)
	total := 0.0
	for _, ms := range per {
		total += ms
	}
	b.ReportMetric(float64(len(per))/(total/1000), "pages/s")
	b.ReportMetric(per[len(per)/2], "median-ms/page")
}
