package browser_test

import (
	"os"
	"strings"
	"testing"
)

// TestSnapshotOptions: compact, depth, selector, frame, efficient, urls and
// limit, each a new CLI process against the form page (and the frames page
// for --frame).
func TestSnapshotOptions(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/form.html")
	full := r.snapshot()

	t.Run("compact", func(t *testing.T) {
		golden(t, "form.compact.golden", r.snapshot("--compact"))
	})
	t.Run("depth", func(t *testing.T) {
		d0 := r.snapshot("--depth", "0")
		for _, l := range strings.Split(d0, "\n") {
			if strings.HasPrefix(l, " ") {
				t.Errorf("--depth 0 printed a nested line %q:\n%s", l, d0)
			}
		}
		if d0 != `- generic [active] [ref=e1]` {
			t.Errorf("--depth 0 is not the body's line alone:\n%s", d0)
		}
		d1 := r.snapshot("--depth", "1")
		if !strings.Contains(d1, `  - paragraph [ref=e11]: Nothing yet`) || !strings.Contains(d1, `  - navigation [ref=e3]`) || strings.Contains(d1, "    - ") {
			t.Errorf("--depth 1 lost the body's children or their inline text, or went deeper:\n%s", d1)
		}
		d2 := r.snapshot("--depth", "2")
		if !strings.Contains(d2, `    - link "Next page" [ref=e4]`) || strings.Contains(d2, `option "red"`) {
			t.Errorf("--depth 2:\n%s", d2)
		}
	})
	t.Run("selector", func(t *testing.T) {
		got := r.snapshot("--selector", "form")
		if strings.Contains(got, "Press me") || !strings.Contains(got, `textbox "User" [ref=e6]`) || !strings.Contains(got, `button "Sign in" [ref=e9]`) {
			t.Errorf("--selector form:\n%s", got)
		}
		if got := r.snapshot("--selector", "#b"); got != `- button "Press me" [ref=e10]` {
			t.Errorf("--selector #b: %q", got)
		}
		out, _, code := r.run("browser", "snapshot", "--selector", "#nothing-here")
		if code != 1 || !strings.Contains(out, "matches no element") {
			t.Errorf("unmatched selector: exit %d %s", code, out)
		}
		out, _, code = r.run("browser", "snapshot", "--selector", "[[")
		if code != 2 || !strings.Contains(out, "not a valid CSS selector") {
			t.Errorf("invalid selector: exit %d %s", code, out)
		}
	})
	t.Run("efficient", func(t *testing.T) {
		want := r.snapshot("--interactive", "--compact", "--depth", "6")
		if got := r.snapshot("--efficient"); got != want {
			t.Errorf("--efficient is not interactive+compact+depth 6:\n%s\n---\n%s", got, want)
		}
		res := r.ok("browser", "snapshot", "--mode", "efficient")
		if res.Get("content.0.text").String() != want {
			t.Errorf("--mode efficient differs from --efficient")
		}
	})
	t.Run("urls", func(t *testing.T) {
		got := r.snapshot("--urls")
		want := "\n\nLinks:\n1. Next page -> " + r.base + "/next.html"
		if !strings.HasSuffix(got, want) || !strings.HasPrefix(got, full) {
			t.Errorf("--urls: want the snapshot then %q, got\n%s", want, got)
		}
	})
	t.Run("limit", func(t *testing.T) {
		got := r.snapshot("--format", "aria", "--limit", "3")
		if n := len(strings.Split(got, "\n")); n != 3 {
			t.Errorf("--format aria --limit 3 gave %d lines:\n%s", n, got)
		}
		out, _, code := r.run("browser", "snapshot", "--format", "aria", "--compact")
		if code != 2 {
			t.Errorf("aria with a role option: exit %d %s", code, out)
		}
	})
	t.Run("frame", func(t *testing.T) {
		r.ok("browser", "navigate", r.base+"/frames.html")
		got := r.snapshot("--frame", "#same")
		if !strings.HasPrefix(got, "- generic [ref=f3e1]:") || strings.Contains(got, "Frames") {
			t.Errorf("--frame #same:\n%s", got)
		}
		out, _, code := r.run("browser", "snapshot", "--frame", "h1")
		if code != 2 || !strings.Contains(out, "not an iframe") {
			t.Errorf("--frame on a heading: exit %d %s", code, out)
		}
	})
	t.Run("config-default", func(t *testing.T) {
		want := r.snapshot("--efficient")
		port := r.ok("browser", "status").Get("cdpPort").Int()
		r.writeConfig(map[string]any{"headless": true, "noSandbox": os.Geteuid() == 0,
			"ssrfPolicy": map[string]any{"dangerouslyAllowPrivateNetwork": true}, "snapshotDefaults": map[string]any{"mode": "efficient"},
			"profiles": map[string]any{"openclaw": map[string]any{"cdpPort": port}}})
		if got := r.snapshot(); got != want {
			t.Errorf("browser.snapshotDefaults.mode=efficient: a plain snapshot gave\n%s\nwant\n%s", got, want)
		}
		if got := r.snapshot("--format", "ai"); got == want || !strings.Contains(got, "- heading \"Frames\"") {
			t.Errorf("an explicit format should bypass the configured mode:\n%s", got)
		}
	})
}

// TestSnapshotDiff: --diff against the tab's last snapshot, taken by an
// earlier process: "unchanged" when nothing changed, only the changed lines
// (with refs as before) when something did, the whole snapshot after a
// navigation.
func TestSnapshotDiff(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/form.html")
	first := r.ok("browser", "snapshot", "--diff")
	full := first.Get("content.0.text").String()
	if first.Get("details.diff").String() != "full" || !strings.Contains(first.Get("content.0.text").String(), `button "Press me" [ref=e10]`) {
		t.Errorf("first --diff (no baseline) should be the full snapshot: %s", first.Raw)
	}
	if res := r.ok("browser", "snapshot", "--diff"); res.Get("content.0.text").String() != "unchanged" || res.Get("details.diff").String() != "unchanged" {
		t.Errorf("nothing changed: %s", res.Raw)
	}
	r.ok("browser", "click", "e10")
	// The click moves the focus ([active]) from the body to the button, as
	// in the original; the lines between them stay out of the diff.
	res := r.ok("browser", "snapshot", "--diff")
	d := res.Get("content.0.text").String()
	if res.Get("details.diff").String() != "changed" || !strings.Contains(d, `-  - button "Press me" [ref=e10]`) ||
		!strings.Contains(d, `+  - button "Clicked 1" [active] [ref=e10]`) || strings.Contains(d, `textbox "User"`) || len(d) > len(full)/2 {
		t.Errorf("diff after a click:\n%s", d)
	}
	if res.Get("details.refs.e10.name").String() != "Clicked 1" || res.Get("details.refs.e10").Raw == "" {
		t.Errorf("diff refs: %s", res.Get("details.refs").Raw)
	}
	// Snapshots without --diff move the baseline too; other option sets
	// keep their own.
	r.ok("browser", "click", "e10")
	r.snapshot()
	if got := r.snapshot("--diff"); got != "unchanged" {
		t.Errorf("after a plain snapshot, --diff: %q", got)
	}
	r.ok("browser", "navigate", r.base+"/next.html")
	if res := r.ok("browser", "snapshot", "--diff"); res.Get("details.diff").String() != "full" {
		t.Errorf("after navigating: %s", res.Raw)
	}
}
