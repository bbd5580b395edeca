package browser_test

import (
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
