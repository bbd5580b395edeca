package browser_test

import (
	"os"
	"path/filepath"
	"testing"
)

// startTab starts the browser through POST /start and opens page in a tab.
func (s *serveRig) startTab(page string) string {
	s.t.Helper()
	s.ok("POST", "/start", nil, nil)
	tab := s.ok("POST", "/tabs/open", nil, map[string]any{"url": s.base + "/" + page})
	if tab.Get("targetId").String() == "" {
		s.t.Fatalf("POST /tabs/open %s: %s", page, tab.Raw)
	}
	return tab.Get("targetId").String()
}

func (s *serveRig) evalText(fn string) string {
	s.t.Helper()
	return s.ok("POST", "/act", nil, map[string]any{"kind": "evaluate", "fn": fn}).Get("result").String()
}

// TestRequestClickModifiers: the original CLI's `browser click <ref>
// --modifiers Shift,Alt --button right --double` bodies reach the page.
func TestRequestClickModifiers(t *testing.T) {
	s := newServeRig(t)
	s.startTab("clicks.html")
	snap := s.ok("GET", "/snapshot", map[string]any{"format": "ai"}, nil).Get("snapshot").String()
	ref := refFor(t, snap, `button "Record me"`)
	readLog := func() string {
		return s.evalText(`() => { const l = document.getElementById("log"); const s = l.textContent; l.textContent = ""; return s }`)
	}

	// The CLI's body exactly: {kind, ref, doubleClick, modifiers} (targetId
	// and button undefined, so absent).
	s.ok("POST", "/act", nil, map[string]any{"kind": "click", "ref": ref, "doubleClick": false, "modifiers": []string{"Shift", "Alt"}})
	if got := readLog(); got != "click button=0 mods=shift+alt;" {
		t.Errorf("POST /act click modifiers [Shift Alt]: the page saw %q", got)
	}
	s.ok("POST", "/act", nil, map[string]any{"kind": "click", "ref": ref, "doubleClick": true, "button": "left", "modifiers": []string{"ControlOrMeta"}})
	if got := readLog(); got != "click button=0 mods=ctrl;click button=0 mods=ctrl;dblclick button=0 mods=ctrl;" {
		t.Errorf("POST /act double click with ControlOrMeta: the page saw %q", got)
	}
	s.ok("POST", "/act", nil, map[string]any{"kind": "click", "ref": ref, "doubleClick": false, "button": "middle"})
	if got := readLog(); got != "auxclick button=1 mods=none;" {
		t.Errorf("POST /act click button middle: the page saw %q", got)
	}
	s.fails("POST", "/act", nil, map[string]any{"kind": "click", "ref": ref, "modifiers": []string{"Super"}}, "INVALID_REQUEST", 400,
		"modifiers must be Alt|Control|ControlOrMeta|Meta|Shift")
	if got := readLog(); got != "" {
		t.Errorf("a refused click reached the page: %q", got)
	}
}

// TestRequestTabLabels: the original CLI's `browser open <url> --label`
// (POST /tabs/open {url,label}) and `browser tab label <id> <label>` (POST
// /tabs/action {action:label}); GET /tabs shows them and a label works as
// a route's targetId.
func TestRequestTabLabels(t *testing.T) {
	s := newServeRig(t)
	s.ok("POST", "/start", nil, nil)
	form := s.ok("POST", "/tabs/open", nil, map[string]any{"url": s.base + "/form.html", "label": "mail"})
	if form.Get("label").String() != "mail" || form.Get("suggestedTargetId").String() != "mail" || form.Get("tabId").String() == "" {
		t.Fatalf("POST /tabs/open with a label: %s", form.Raw)
	}
	clicks := s.ok("POST", "/tabs/open", nil, map[string]any{"url": s.base + "/clicks.html"})
	tabs := s.ok("GET", "/tabs", nil, nil)
	if got := tabs.Get(`tabs.#(targetId=="` + form.Get("targetId").String() + `").label`).String(); got != "mail" {
		t.Errorf("GET /tabs: %s", tabs.Raw)
	}
	if snap := s.ok("GET", "/snapshot", map[string]any{"targetId": "mail"}, nil); snap.Get("targetId").String() != form.Get("targetId").String() {
		t.Errorf("GET /snapshot?targetId=mail: %s", snap.Raw)
	}
	lab := s.ok("POST", "/tabs/action", nil, map[string]any{"action": "label", "targetId": clicks.Get("tabId").String(), "label": "work"})
	if !lab.Get("ok").Bool() || lab.Get("tab.label").String() != "work" || lab.Get("tab.targetId").String() != clicks.Get("targetId").String() {
		t.Errorf("POST /tabs/action label: %s", lab.Raw)
	}
	if f := s.ok("POST", "/tabs/focus", nil, map[string]any{"targetId": "work"}); f.Get("targetId").String() != clicks.Get("targetId").String() {
		t.Errorf("POST /tabs/focus {targetId: work}: %s", f.Raw)
	}
	nt := s.ok("POST", "/tabs/action", nil, map[string]any{"action": "new", "label": "scratch"})
	if nt.Get("tab.label").String() != "scratch" {
		t.Errorf("POST /tabs/action new with a label: %s", nt.Raw)
	}
	s.fails("POST", "/tabs/action", nil, map[string]any{"action": "label", "targetId": "work"}, "INVALID_REQUEST", 400, "label is required")
	s.fails("POST", "/tabs/action", nil, map[string]any{"action": "label", "targetId": "work", "label": "a b"}, "INVALID_REQUEST", 400, "tab label must be 1-64 chars")
	s.fails("POST", "/tabs/open", nil, map[string]any{"url": s.base + "/form.html", "label": "a/b"}, "INVALID_REQUEST", 400, "tab label must be 1-64 chars")
	s.fails("GET", "/snapshot", map[string]any{"targetId": "nosuch"}, nil, "INVALID_REQUEST", 404, `tab "nosuch" not found`)
}

// TestRequestCookiesStorage: the original CLI's `browser cookies [set|
// clear]` and `browser storage local|session get|set|clear` routes, with
// its bodies and answer shapes ({ok, targetId, cookies|values}).
func TestRequestCookiesStorage(t *testing.T) {
	s := newServeRig(t)
	id := s.startTab("form.html")

	// `cookies set sid s3cret --url <base>`: {targetId (undefined), cookie:{name, value, url}}.
	set := s.ok("POST", "/cookies/set", nil, map[string]any{"cookie": map[string]any{"name": "sid", "value": "s3cret", "url": s.base + "/"}})
	if !set.Get("ok").Bool() || set.Get("targetId").String() != id {
		t.Errorf("POST /cookies/set: %s", set.Raw)
	}
	if got := s.evalText(`() => document.cookie`); got != "sid=s3cret" {
		t.Errorf("document.cookie after POST /cookies/set: %q", got)
	}
	got := s.ok("GET", "/cookies", map[string]any{}, nil)
	if !got.Get("ok").Bool() || got.Get("targetId").String() != id || got.Get(`cookies.#(name=="sid").value`).String() != "s3cret" {
		t.Errorf("GET /cookies: %s", got.Raw)
	}
	if clr := s.ok("POST", "/cookies/clear", nil, map[string]any{}); !clr.Get("ok").Bool() || clr.Get("targetId").String() != id {
		t.Errorf("POST /cookies/clear: %s", clr.Raw)
	}
	if got := s.ok("GET", "/cookies", nil, nil).Get("cookies.#").Int(); got != 0 {
		t.Errorf("cookies after clear: %d", got)
	}
	s.fails("POST", "/cookies/set", nil, map[string]any{"targetId": id}, "INVALID_REQUEST", 400, "cookie is required")
	s.fails("POST", "/cookies/set", nil, map[string]any{"cookie": map[string]any{"name": "x", "value": "y"}}, "INVALID_REQUEST", 400, "cookie requires url, or domain+path")

	// `storage local set k v`, `storage local get [key]`, `storage local clear`.
	if res := s.ok("POST", "/storage/local/set", nil, map[string]any{"key": "k", "value": "v"}); !res.Get("ok").Bool() || res.Get("targetId").String() != id {
		t.Errorf("POST /storage/local/set: %s", res.Raw)
	}
	s.ok("POST", "/storage/session/set", nil, map[string]any{"key": "s", "value": "w", "targetId": id})
	if got := s.evalText(`() => localStorage.getItem("k") + sessionStorage.getItem("s")`); got != "vw" {
		t.Errorf("page storage after set: %q", got)
	}
	if res := s.ok("GET", "/storage/local", map[string]any{"targetId": id}, nil); res.Get("values").Raw != `{"k":"v"}` || res.Get("targetId").String() != id {
		t.Errorf("GET /storage/local: %s", res.Raw)
	}
	if res := s.ok("GET", "/storage/session", map[string]any{"key": "s"}, nil); res.Get("values").Raw != `{"s":"w"}` {
		t.Errorf("GET /storage/session?key=s: %s", res.Raw)
	}
	s.ok("POST", "/storage/local/clear", nil, map[string]any{})
	if got := s.evalText(`() => localStorage.length + "|" + sessionStorage.length`); got != "0|1" {
		t.Errorf("after POST /storage/local/clear: %q", got)
	}
	s.fails("GET", "/storage/cloud", nil, nil, "INVALID_REQUEST", 400, "kind must be local|session")
	s.fails("POST", "/storage/local/set", nil, map[string]any{"value": "v"}, "INVALID_REQUEST", 400, "key is required")
}

// TestRequestUploadArmed: the original CLI's `browser upload <path>` with
// no ref (POST /hooks/file-chooser {paths}) arms the next chooser, which
// the following POST /act click opens.
func TestRequestUploadArmed(t *testing.T) {
	s := newServeRig(t)
	dir := uploadDir(t)
	cv := filepath.Join(dir, "cv.txt")
	if err := os.WriteFile(cv, []byte("my cv\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.startTab("upload.html")
	ref := refFor(t, s.ok("GET", "/snapshot", nil, nil).Get("snapshot").String(), `button "Choose file"`)
	if res := s.ok("POST", "/hooks/file-chooser", nil, map[string]any{"paths": []string{cv}}); !res.Get("ok").Bool() || !res.Get("armed").Bool() {
		t.Fatalf("POST /hooks/file-chooser without a ref: %s", res.Raw)
	}
	if click := s.ok("POST", "/act", nil, map[string]any{"kind": "click", "ref": ref, "doubleClick": false}); click.Get("uploads.0.files").Raw != `["cv.txt"]` {
		t.Errorf("POST /act click on the chooser button: %s", click.Raw)
	}
	s.ok("POST", "/act", nil, map[string]any{"kind": "wait", "text": "hidden: cv.txt"})
	if got := s.evalText(`() => document.getElementById("out").textContent`); got != "hidden: cv.txt = my cv" {
		t.Errorf("after the armed chooser: %q", got)
	}
}
