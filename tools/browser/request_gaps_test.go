package browser_test

import (
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
