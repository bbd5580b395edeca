package browser_test

import (
	"strings"
	"testing"
)

// clickLog empties the clicks page's event log and returns what it held.
func (r *rig) clickLog() string {
	r.t.Helper()
	return r.eval(`() => { const l = document.getElementById("log"); const s = l.textContent; l.textContent = ""; return s }`)
}

// TestClickModifiers: click --modifiers, --button and --double reach the
// page as the event's modifier keys, button and a dblclick (read back from
// what the page recorded); a bad modifier is a usage error naming the
// allowed ones.
func TestClickModifiers(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/clicks.html")
	ref := refFor(t, r.snapshot(), `button "Record me"`)

	r.ok("browser", "click", ref, "--modifiers", "Shift,Alt")
	if got := r.clickLog(); got != "click button=0 mods=shift+alt;" {
		t.Errorf("click --modifiers Shift,Alt: the page saw %q", got)
	}
	// Repeated flags, ControlOrMeta (Control on Linux) and Meta.
	r.ok("browser", "click", ref, "--modifiers", "ControlOrMeta", "--modifiers", "Meta")
	if got := r.clickLog(); got != "click button=0 mods=ctrl+meta;" {
		t.Errorf("click --modifiers ControlOrMeta --modifiers Meta: the page saw %q", got)
	}
	// The modifiers are released after the click.
	r.ok("browser", "click", ref)
	if got := r.clickLog(); got != "click button=0 mods=none;" {
		t.Errorf("plain click after a modified one: the page saw %q", got)
	}
	r.ok("browser", "click", ref, "--button", "right", "--modifiers", "Control")
	if got := r.clickLog(); !strings.Contains(got, "contextmenu button=2 mods=ctrl;") || strings.Contains(got, "click button=0") {
		t.Errorf("click --button right --modifiers Control: the page saw %q", got)
	}
	r.ok("browser", "click", ref, "--button", "middle")
	if got := r.clickLog(); got != "auxclick button=1 mods=none;" {
		t.Errorf("click --button middle: the page saw %q", got)
	}
	r.ok("browser", "click", ref, "--double")
	if got := r.clickLog(); got != "click button=0 mods=none;click button=0 mods=none;dblclick button=0 mods=none;" {
		t.Errorf("click --double: the page saw %q", got)
	}
	if out, errs, code := r.run("browser", "click", ref, "--modifiers", "Hyper"); code != 2 || !strings.Contains(out+errs, "Alt|Control|ControlOrMeta|Meta|Shift") {
		t.Errorf("click --modifiers Hyper: exit %d %s%s", code, out, errs)
	}
	if got := r.clickLog(); got != "" {
		t.Errorf("a refused click reached the page: %q", got)
	}
}
