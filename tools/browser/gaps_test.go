package browser_test

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestTabLabels: open --label and tab label name tabs; the label, the
// handle (t1) and a raw id prefix all work as --target-id; tabs lists
// them; a label given to another tab moves; bad labels exit 2.
func TestTabLabels(t *testing.T) {
	r := newRig(t, nil)
	form := r.ok("browser", "open", r.base+"/form.html", "--label", "mail")
	if form.Get("label").String() != "mail" || form.Get("suggestedTargetId").String() != "mail" || !strings.HasPrefix(form.Get("tabId").String(), "t") {
		t.Fatalf("open --label mail: %s", form.Raw)
	}
	formID := form.Get("targetId").String()
	clicks := r.ok("browser", "open", r.base+"/clicks.html")
	clicksID, clicksHandle := clicks.Get("targetId").String(), clicks.Get("tabId").String()
	if clicksHandle == "" || clicksHandle == form.Get("tabId").String() || clicks.Get("label").Exists() {
		t.Fatalf("second open: %s", clicks.Raw)
	}

	// The current tab is clicks.html; --target-id mail reaches form.html.
	if snap := r.snapshot("--target-id", "mail"); !strings.Contains(snap, "Press me") {
		t.Errorf("snapshot --target-id mail:\n%s", snap)
	}
	if got := r.ok("browser", "evaluate", "--fn", "() => document.title", "--target-id", clicksHandle).Get("result").String(); got != "Clicks" {
		t.Errorf("evaluate --target-id %s: %q", clicksHandle, got)
	}
	if got := r.ok("browser", "evaluate", "--fn", "() => document.title", "--target-id", strings.ToLower(formID[:10])).Get("result").String(); got != "Form demo" {
		t.Errorf("evaluate --target-id <lower-case raw prefix>: %q", got)
	}

	tabs := r.ok("browser", "tabs").Get("tabs")
	if got := tabs.Get(`#(targetId=="` + formID + `").label`).String(); got != "mail" {
		t.Errorf("tabs: form tab label %q: %s", got, tabs.Raw)
	}

	// tab label <handle> <label>, then the label moves to the other tab.
	lab := r.ok("browser", "tab", "label", clicksHandle, "work")
	if lab.Get("tab.targetId").String() != clicksID || lab.Get("tab.label").String() != "work" || lab.Get("tab.suggestedTargetId").String() != "work" {
		t.Errorf("tab label %s work: %s", clicksHandle, lab.Raw)
	}
	r.ok("browser", "focus", "mail")
	if got := r.snapshot(); !strings.Contains(got, "Press me") {
		t.Errorf("after focus mail the current tab is not the form:\n%s", got)
	}
	r.ok("browser", "tab", "label", "work", "mail")
	tabs = r.ok("browser", "tabs").Get("tabs")
	if tabs.Get(`#(targetId=="`+clicksID+`").label`).String() != "mail" || tabs.Get(`#(targetId=="`+formID+`").label`).Exists() {
		t.Errorf("after moving the label mail: %s", tabs.Raw)
	}
	if got := r.ok("browser", "evaluate", "--fn", "() => document.title", "--target-id", "mail").Get("result").String(); got != "Clicks" {
		t.Errorf("mail after the move names %q", got)
	}

	for _, bad := range [][]string{{"open", r.base + "/form.html", "--label", "two words"}, {"tab", "label", "mail", "x/y"}} {
		if out, errs, code := r.run(append([]string{"browser"}, bad...)...); code != 2 || !strings.Contains(out, "tab label must be 1-64 chars") {
			t.Errorf("browser %v: exit %d %s%s", bad, code, out, errs)
		}
	}
	if out, errs, code := r.run("browser", "tab", "label", "nosuchtab", "z"); code != 1 || !strings.Contains(out, `tab \"nosuchtab\" not found`) {
		t.Errorf("tab label nosuchtab z: exit %d %s%s", code, out, errs)
	}

	// tab select N counts from 1 in tabs order; tab close N closes that tab.
	order := r.ok("browser", "tabs").Get("tabs.#.targetId").Array()
	pos := 0
	for i, id := range order {
		if id.String() == formID {
			pos = i + 1
		}
	}
	if sel := r.ok("browser", "tab", "select", fmt.Sprint(pos)).Get("targetId").String(); sel != formID {
		t.Errorf("tab select %d: %s, want %s", pos, sel, formID)
	}
	r.ok("browser", "tab", "close", fmt.Sprint(pos))
	if strings.Contains(r.ok("browser", "tabs").Get("tabs.#.targetId").Raw, formID) {
		t.Errorf("tab close %d left the form tab open", pos)
	}
}

// TestCookiesStorage: cookies get|set|clear and storage local|session
// get|set|clear act on the browser, read back through the page itself; a
// refused cookie never echoes its value.
func TestCookiesStorage(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/form.html")
	if got := r.ok("browser", "cookies").Get("cookies"); !got.IsArray() || len(got.Array()) != 0 {
		t.Errorf("cookies of a fresh profile: %s", got.Raw)
	}
	r.ok("browser", "cookies", "set", "sid", "s3cret-v4lue", r.base+"/")
	if got := r.eval(`() => document.cookie`); got != "sid=s3cret-v4lue" {
		t.Errorf("document.cookie after cookies set: %q", got)
	}
	r.eval(`() => { document.cookie = "fromPage=yes; path=/"; return 1 }`)
	cookies := r.ok("browser", "cookies").Get("cookies")
	sid := cookies.Get(`#(name=="sid")`)
	if sid.Get("value").String() != "s3cret-v4lue" || sid.Get("domain").String() != "127.0.0.1" || sid.Get("path").String() != "/" ||
		sid.Get("sameSite").String() == "" || !sid.Get("expires").Exists() || cookies.Get(`#(name=="fromPage").value`).String() != "yes" {
		t.Errorf("cookies: %s", cookies.Raw)
	}
	r.ok("browser", "cookies", "set", "theme", "dark", "--domain", "127.0.0.1", "--path", "/", "--same-site", "Strict")
	if got := r.ok("browser", "cookies").Get(`cookies.#(name=="theme").sameSite`).String(); got != "Strict" {
		t.Errorf("cookie set with --domain --path --same-site Strict: sameSite %q", got)
	}
	out, errs, code := r.run("browser", "cookies", "set", "sid", "0ther-s3cret")
	if code != 2 || !strings.Contains(out, "cookie requires url, or domain+path") || strings.Contains(out+errs, "0ther-s3cret") {
		t.Errorf("cookies set without a url: exit %d %s%s", code, out, errs)
	}
	r.ok("browser", "cookies", "clear")
	if got := r.eval(`() => document.cookie`); got != "" {
		t.Errorf("document.cookie after cookies clear: %q", got)
	}

	r.ok("browser", "storage", "local", "set", "k1", "v1")
	r.ok("browser", "storage", "local", "set", "k2", "v 2")
	r.ok("browser", "storage", "session", "set", "s1", "only-session")
	if got := r.eval(`() => localStorage.getItem("k2") + "|" + sessionStorage.getItem("s1") + "|" + sessionStorage.length`); got != "v 2|only-session|1" {
		t.Errorf("page storage after storage set: %q", got)
	}
	if got := r.ok("browser", "storage", "local").Get("values").Raw; got != `{"k1":"v1","k2":"v 2"}` {
		t.Errorf("storage local: %s", got)
	}
	if got := r.ok("browser", "storage", "local", "get", "k2").Get("values").Raw; got != `{"k2":"v 2"}` {
		t.Errorf("storage local get k2: %s", got)
	}
	if got := r.ok("browser", "storage", "session", "get").Get("values").Raw; got != `{"s1":"only-session"}` {
		t.Errorf("storage session get: %s", got)
	}
	r.ok("browser", "storage", "local", "clear")
	if got := r.eval(`() => localStorage.length + "|" + sessionStorage.length`); got != "0|1" {
		t.Errorf("after storage local clear: %q", got)
	}
	if out, errs, code := r.run("browser", "storage", "cloud", "get"); code != 2 {
		t.Errorf("storage cloud get: exit %d %s%s", code, out, errs)
	}
}

// TestUploadArmed: upload with no ref arms the tab's next file chooser;
// the click that opens it gets the files (and says so), and a later
// --ref upload replaces an armed one.
func TestUploadArmed(t *testing.T) {
	r := newRig(t, nil)
	dir := uploadDir(t)
	cv, other := filepath.Join(dir, "cv.txt"), filepath.Join(dir, "other.txt")
	for f, body := range map[string]string{cv: "my cv\n", other: "other\n"} {
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r.ok("browser", "open", r.base+"/upload.html")
	button := refFor(t, r.snapshot(), `button "Choose file"`)

	arm := r.ok("browser", "upload", cv)
	if !arm.Get("ok").Bool() || !arm.Get("armed").Bool() || arm.Get("files").Raw != `["cv.txt"]` {
		t.Fatalf("upload without a ref: %s", arm.Raw)
	}
	if got := r.eval(`() => document.getElementById("out").textContent`); got != "none" {
		t.Errorf("arming changed the page: %q", got)
	}
	click := r.ok("browser", "click", button)
	if click.Get("uploads.0.files").Raw != `["cv.txt"]` {
		t.Errorf("the click that opened the chooser: %s", click.Raw)
	}
	r.ok("browser", "wait", "--text", "hidden: cv.txt")
	if got := r.eval(`() => document.getElementById("out").textContent`); got != "hidden: cv.txt = my cv" {
		t.Errorf("after the armed chooser: %q", got)
	}

	// Armed, then an atomic --ref upload: the atomic one's files win.
	r.ok("browser", "upload", cv)
	r.ok("browser", "upload", other, "--ref", button)
	r.ok("browser", "wait", "--text", "hidden: other.txt")
	if got := r.eval(`() => document.getElementById("out").textContent`); got != "hidden: other.txt = other" {
		t.Errorf("after upload --ref over an armed upload: %q", got)
	}
	if out, _, code := r.run("browser", "upload", filepath.Join(t.TempDir(), "x")); code != 3 {
		t.Errorf("arming a file outside the uploads root: exit %d %s", code, out)
	}
}

// uploadDir is a fresh directory under the uploads root.
func uploadDir(t *testing.T) string {
	t.Helper()
	root := filepath.Join(os.TempDir(), "openclaw", "uploads")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(root, "test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
