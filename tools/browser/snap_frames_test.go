package browser_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// refOf returns the ref on the first line of snap containing line, the
// n-th such line (0-based) when several do.
func refOf(t *testing.T, snap, line string, n int) string {
	t.Helper()
	for _, l := range strings.Split(snap, "\n") {
		if !strings.Contains(l, line) {
			continue
		}
		if n > 0 {
			n--
			continue
		}
		i := strings.Index(l, "[ref=")
		if i < 0 {
			t.Fatalf("line %q has no ref", l)
		}
		return l[i+5 : i+5+strings.IndexByte(l[i+5:], ']')]
	}
	t.Fatalf("no line %q in\n%s", line, snap)
	return ""
}

// otherOrigin serves the test pages from a second, cross-site origin
// (localhost rather than 127.0.0.1): Chromium's site isolation puts its
// frames in another renderer, reached through their own target.
func otherOrigin(t *testing.T) string {
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "pages", "browser"))))
	t.Cleanup(srv.Close)
	return strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
}

// TestSnapshotFrames: a same-origin iframe, a cross-origin one (its own
// renderer) and a frame nested in each appear inside one snapshot with
// frame-qualified refs, and acting on those refs reaches the right frame.
func TestSnapshotFrames(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/frames.html?other="+otherOrigin(t))
	snap := r.snapshot()
	golden(t, "frames.ai.golden", snap)

	// The second frame is the cross-origin one: click its button, then the
	// button of the frame nested in it, and type into the same-origin one.
	cross := refOf(t, snap, `button "Inside frame"`, 1)
	nested := refOf(t, snap, `button "Nested button"`, 1)
	field := refOf(t, snap, `textbox "Frame field"`, 0)
	if !strings.HasPrefix(cross, "f") || strings.Count(nested, "f") != 2 {
		t.Fatalf("frame refs not qualified: %s %s", cross, nested)
	}
	r.ok("browser", "click", cross)
	r.ok("browser", "click", nested)
	r.ok("browser", "type", field, "hello")
	after := r.snapshot()
	for _, want := range []string{`button "Frame clicked" [ref=` + cross + `]`, `button "Nested clicked" [ref=` + nested + `]`,
		`[ref=` + field + "]:\n        - /placeholder: type here\n        - text: hello", `button "Inside frame" [ref=` + refOf(t, snap, `button "Inside frame"`, 0) + `]`} {
		if !strings.Contains(after, want) {
			t.Errorf("after acting in frames, the snapshot lacks %q:\n%s", want, after)
		}
	}
	// A frame ref whose frame is gone fails cleanly.
	r.eval(`() => { document.getElementById("cross").remove(); return 1 }`)
	out, _, code := r.run("browser", "click", cross)
	if code != 1 || !strings.Contains(out, "Run a new snapshot") {
		t.Errorf("ref into a removed frame: exit %d %s", code, out)
	}
}

// TestSnapshotShadowDOM: elements inside open and closed shadow roots get
// refs and can be acted on.
func TestSnapshotShadowDOM(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/shadow.html")
	snap := r.snapshot()
	golden(t, "shadow.ai.golden", snap)
	r.ok("browser", "type", refOf(t, snap, `textbox "Name"`, 0), "bob")
	r.ok("browser", "click", refOf(t, snap, `button "Greet"`, 0))
	closed := refOf(t, snap, `button "Closed button"`, 0)
	r.ok("browser", "click", closed)
	after := r.snapshot()
	if !strings.Contains(after, "Hello bob") || !strings.Contains(after, `button "Closed clicked" [active] [ref=`+closed+`]`) {
		t.Errorf("acts inside the shadow roots did not reach them:\n%s", after)
	}
}
