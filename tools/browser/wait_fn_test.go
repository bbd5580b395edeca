package browser_test

import (
	"strings"
	"testing"
)

// TestWaitFnForms: wait --fn takes what evaluate --fn takes: a plain
// expression (which once never resolved: it was called as a function), a
// statement body with return, and a function; an unmet one times out
// with exit 124.
func TestWaitFnForms(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/form.html")
	for _, fn := range []string{`document.readyState === "complete"`, `return document.title.length > 0;`, `() => document.readyState === "complete"`} {
		if out, errs, code := r.run("browser", "wait", "--fn", fn, "--timeout-ms", "3000"); code != 0 {
			t.Errorf("wait --fn %q: exit %d %s%s", fn, code, out, errs)
		}
	}
	out, _, code := r.run("browser", "wait", "--fn", `window.__ready === 1`, "--timeout-ms", "600")
	if code != 124 || !strings.Contains(out, "not met") {
		t.Errorf("an unmet expression: exit %d %s", code, out)
	}
	r.eval(`() => { window.__ready = 1; return 1 }`)
	if out, errs, code := r.run("browser", "wait", "--fn", `window.__ready === 1`, "--timeout-ms", "3000"); code != 0 {
		t.Errorf("a met expression: exit %d %s%s", code, out, errs)
	}
}
