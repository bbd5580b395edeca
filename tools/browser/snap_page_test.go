package browser_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestSnapshotEscapes: page text cannot forge a line, a ref or a frame
// placeholder: names are JSON-quoted on their line, text that YAML would
// misread is quoted, control characters are escaped.
func TestSnapshotEscapes(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/escapes.html")
	snap := r.snapshot()
	for _, want := range []string{
		`  - button "a - link \"x\" [ref=e9]" [ref=e2]`,
		`  - paragraph [ref=e3]: "- link \"y\" [ref=e3]"`,
		`  - paragraph [ref=e4]: "\x00e1\x000 and \x00f1e2\x001"`,
	} {
		if !strings.Contains(snap, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, snap)
		}
	}
	if strings.ContainsRune(snap, 0) || strings.Count(snap, "\n") != 3 {
		t.Errorf("page text made lines of its own:\n%q", snap)
	}
	r.ok("browser", "navigate", r.base+"/plain.html")
	if got := r.snapshot("--interactive"); got != "(no interactive elements)" {
		t.Errorf("interactive snapshot of a page without controls: %q", got)
	}
}

// TestSnapshotSameSiteFrame: a frame of another origin on the same site
// (another port of 127.0.0.1) stays in the page's renderer, where the
// page's script cannot read it: it is read through an isolated world of
// its own, and its refs work.
func TestSnapshotSameSiteFrame(t *testing.T) {
	r := newRig(t, nil)
	other := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "pages", "browser"))))
	t.Cleanup(other.Close)
	r.ok("browser", "open", r.base+"/frames.html?other="+other.URL)
	snap := r.snapshot()
	cross := refOf(t, snap, `button "Inside frame"`, 1)
	if !strings.HasPrefix(cross, "f4e") || !strings.Contains(snap, "  - iframe [ref=e4]:\n    - generic [ref=f4e1]:") {
		t.Fatalf("the same-site frame is not inline with its refs:\n%s", snap)
	}
	r.ok("browser", "click", cross)
	r.ok("browser", "type", refOf(t, snap, `textbox "Frame field"`, 1), "there")
	after := r.snapshot("--urls")
	for _, want := range []string{`button "Frame clicked" [ref=` + cross + `]`, "- text: there",
		"Links:\n1. Frame link -> " + r.base + "/x\n2. Frame link -> " + other.URL + "/x"} {
		if !strings.Contains(after, want) {
			t.Errorf("after acting in the same-site frame, the snapshot lacks %q:\n%s", want, after)
		}
	}
}

// cutPage is a long page whose cards mix what can change a line after its
// children are known: links named by a whole card, unnamed wrappers of
// one element, labels, text that repeats a name, nameless images.
func cutPage(n int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Cut</title></head><body><h1>Cut</h1>")
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `<section><h2>Card %d</h2><p>Text %d <a href="/a/%d">more %d</a></p><label>Qty <input type=number value=%d></label><button>Add %d</button></section>`, i, i, i, i, i, i)
		case 1:
			fmt.Fprintf(&b, `<a href="/card/%d"><div><h3>Linked card %d</h3><span>price %d</span></div></a>`, i, i, i)
		case 2:
			fmt.Fprintf(&b, `<div><div><button>Lone %d</button></div></div><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">`, i)
		case 3:
			fmt.Fprintf(&b, `<ul><li><div aria-label="Item %d">Item %d</div></li><li>Second %d</li></ul>`, i, i, i)
		}
	}
	b.WriteString("</body></html>")
	return b.String()
}

// cutText is the line-boundary cut at max bytes (the Go side's truncate).
func cutText(text string, max int) string {
	if max <= 0 || len(text) <= max {
		return text
	}
	marker := "[...TRUNCATED - page too large]"
	if max < 31 {
		marker = "…"
	}
	kept := ""
	if budget := max - 2 - len(marker); budget > 0 {
		if i := strings.LastIndexByte(text[:budget+1], '\n'); i >= 0 {
			kept = text[:i]
		}
	}
	if kept == "" {
		return marker
	}
	return kept + "\n\n" + marker
}

// TestSnapshotCutIsTheFullCut: with --max-chars the page stops walking
// once the cut is filled; what it prints must be the full snapshot cut at
// the same place, with every option set that changes the lines.
func TestSnapshotCutIsTheFullCut(t *testing.T) {
	r := newRig(t, nil)
	page := cutPage(600)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	}))
	t.Cleanup(srv.Close)
	r.ok("browser", "open", srv.URL+"/cut.html")
	for _, opts := range [][]string{nil, {"--compact"}, {"--interactive"}, {"--depth", "2"}} {
		full := r.snapshot(append([]string{"--max-chars", "0"}, opts...)...)
		if len(full) < 20000 {
			t.Fatalf("the page is too short to test the cut: %d bytes", len(full))
		}
		for _, max := range []int{25, 200, 1500, 6000, 12345, 40000} {
			got := r.snapshot(append([]string{"--max-chars", fmt.Sprint(max)}, opts...)...)
			if want := cutText(full, max); got != want {
				t.Errorf("%v --max-chars %d differs from the full snapshot cut there:\n%s", opts, max, lineDiff(want, got))
			}
		}
	}
}
