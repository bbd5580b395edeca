package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/porttest"
)

// serveRig is a real `openclaw serve` (this test binary re-executed as the
// CLI) with a browser config and a local page server, and an admin client
// speaking browser.request to it as the original CLI does.
type serveRig struct {
	*rig
	conn *client.Conn
}

func newServeRig(t *testing.T) *serveRig {
	exe := chromium(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "pages", "browser"))))
	t.Cleanup(srv.Close)
	r := &rig{t: t, state: t.TempDir(), base: srv.URL}
	r.writeConfig(map[string]any{
		"executablePath": exe,
		"headless":       true,
		"noSandbox":      os.Geteuid() == 0,
		"ssrfPolicy":     map[string]any{"dangerouslyAllowPrivateNetwork": true},
		"profiles":       map[string]any{"openclaw": map[string]any{"cdpPort": porttest.Free(t)}},
	})
	t.Cleanup(func() { r.run("browser", "stop") })

	port := porttest.Free(t)
	cmd := exec.Command(os.Args[0], "serve", "--port", fmt.Sprint(port), "--auth", "token", "--token", "t0k")
	cmd.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+r.state, "HOME="+r.state)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); <-exited })

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		select {
		case <-exited:
			t.Fatal("openclaw serve exited before it was ready")
		case <-ctx.Done():
			t.Fatal("openclaw serve not ready within 15 s")
		case <-tick.C:
		}
	}
	conn, err := client.Dial(ctx, client.Options{URL: fmt.Sprintf("ws://127.0.0.1:%d", port), Token: "t0k"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &serveRig{rig: r, conn: conn}
}

// request sends one browser.request as the original CLI does.
func (s *serveRig) request(method, path string, query map[string]any, body any) (gjson.Result, error) {
	s.t.Helper()
	params := map[string]any{"method": method, "path": path, "timeoutMs": 45000}
	if query != nil {
		params["query"] = query
	}
	if body != nil {
		params["body"] = body
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := s.conn.Call(ctx, "browser.request", params)
	return gjson.ParseBytes(out), err
}

func (s *serveRig) ok(method, path string, query map[string]any, body any) gjson.Result {
	s.t.Helper()
	res, err := s.request(method, path, query, body)
	if err != nil {
		s.t.Fatalf("browser.request %s %s: %v", method, path, err)
	}
	return res
}

// fails asserts the original's error shape: the wire code, the message as
// details.error, and the route's HTTP status in details.status.
func (s *serveRig) fails(method, path string, query map[string]any, body any, code string, status int, msgPart string) {
	s.t.Helper()
	_, err := s.request(method, path, query, body)
	var ce *client.CallError
	if !errors.As(err, &ce) {
		s.t.Fatalf("browser.request %s %s: want a %s error, got %v", method, path, code, err)
	}
	d, _ := json.Marshal(ce.Details)
	det := gjson.ParseBytes(d)
	if ce.Code != code || det.Get("status").Int() != int64(status) || det.Get("error").String() != ce.Message ||
		!strings.Contains(ce.Message, msgPart) {
		s.t.Errorf("browser.request %s %s: got %s %q details %s; want %s, status %d, message with %q",
			method, path, ce.Code, ce.Message, d, code, status, msgPart)
	}
}

// TestBrowserRequest drives our gateway's browser.request the way the
// original CLI's `openclaw browser status|start|open|snapshot|click` does
// (the frames it sends, read from its wire), against real Chromium.
func TestBrowserRequest(t *testing.T) {
	s := newServeRig(t)

	st := s.ok("GET", "/", nil, nil)
	if st.Get("running").Bool() || st.Get("profile").String() != "openclaw" || st.Get("transport").String() != "cdp" ||
		st.Get("enabled").Type != gjson.True {
		t.Errorf("status before start: %s", st.Raw)
	}

	if tabs := s.ok("GET", "/tabs", nil, nil); tabs.Get("running").Bool() || tabs.Get("tabs.#").Int() != 0 {
		t.Errorf("GET /tabs before start: %s", tabs.Raw)
	}

	if res := s.ok("POST", "/start", nil, nil); !res.Get("ok").Bool() || res.Get("profile").String() != "openclaw" {
		t.Errorf("POST /start: %s", res.Raw)
	}
	if st := s.ok("GET", "/", nil, nil); !st.Get("running").Bool() || !st.Get("cdpReady").Bool() {
		t.Errorf("status after start: %s", st.Raw)
	}

	tab := s.ok("POST", "/tabs/open", nil, map[string]any{"url": s.base + "/form.html"})
	if tab.Get("targetId").String() == "" || tab.Get("url").String() != s.base+"/form.html" {
		t.Fatalf("POST /tabs/open: %s", tab.Raw)
	}

	snap := s.ok("GET", "/snapshot", map[string]any{"format": "ai"}, nil)
	text := snap.Get("snapshot").String()
	i := strings.Index(text, `button "Press me" [ref=`)
	if !snap.Get("ok").Bool() || snap.Get("format").String() != "ai" || snap.Get("targetId").String() != tab.Get("targetId").String() || i < 0 {
		t.Fatalf("GET /snapshot: %s", snap.Raw)
	}
	ref := text[i+len(`button "Press me" [ref=`):]
	ref = ref[:strings.IndexByte(ref, ']')]
	if role := snap.Get("refs." + ref + ".role").String(); role != "button" {
		t.Errorf("snapshot refs[%s].role = %q: %s", ref, role, snap.Get("refs").Raw)
	}

	// The CLI's click body, exactly: {kind, ref, doubleClick:false}.
	click := s.ok("POST", "/act", nil, map[string]any{"kind": "click", "ref": ref, "doubleClick": false})
	if !click.Get("ok").Bool() || click.Get("url").String() != s.base+"/form.html" {
		t.Errorf("POST /act click: %s", click.Raw)
	}
	ev := s.ok("POST", "/act", nil, map[string]any{"kind": "evaluate", "fn": `() => document.getElementById("b").textContent`})
	if got := ev.Get("result").String(); got != "Clicked 1" {
		t.Errorf("after the click the button reads %q: %s", got, ev.Raw)
	}

	// Query values arrive as strings; the aria format answers with nodes.
	aria := s.ok("GET", "/snapshot", map[string]any{"format": "aria", "limit": "5"}, nil)
	if n := aria.Get("nodes.#").Int(); n != 5 || aria.Get("nodes.0.ref").String() != "ax1" || aria.Get("nodes.0.depth").Int() != 0 ||
		aria.Get("nodes.0.role").String() == "" {
		t.Errorf("GET /snapshot?format=aria&limit=5: %s", aria.Raw)
	}

	tabs := s.ok("GET", "/tabs", nil, nil)
	if !strings.Contains(tabs.Get("tabs.#.targetId").Raw, tab.Get("targetId").String()) {
		t.Errorf("GET /tabs: %s", tabs.Raw)
	}

	// `browser tab new|select N|close N` (POST /tabs/action, 0-based index).
	nt := s.ok("POST", "/tabs/action", nil, map[string]any{"action": "new"})
	newID := nt.Get("tab.targetId").String()
	if !nt.Get("ok").Bool() || newID == "" || nt.Get("tab.url").String() != "about:blank" {
		t.Fatalf("tab new: %s", nt.Raw)
	}
	indexOf := func(id string) int {
		for i, x := range s.ok("POST", "/tabs/action", nil, map[string]any{"action": "list"}).Get("tabs.#.targetId").Array() {
			if x.String() == id {
				return i
			}
		}
		return -1
	}
	formID := tab.Get("targetId").String()
	if sel := s.ok("POST", "/tabs/action", nil, map[string]any{"action": "select", "index": indexOf(formID)}); sel.Get("targetId").String() != formID {
		t.Errorf("tab select: %s", sel.Raw)
	}
	if got := s.ok("GET", "/snapshot", nil, nil).Get("targetId").String(); got != formID {
		t.Errorf("after tab select the snapshot is of %s, want %s", got, formID)
	}
	if cl := s.ok("POST", "/tabs/action", nil, map[string]any{"action": "close", "index": indexOf(newID)}); cl.Get("targetId").String() != newID {
		t.Errorf("tab close: %s", cl.Raw)
	}
	if i := indexOf(newID); i >= 0 {
		t.Errorf("closed tab still listed at %d", i)
	}
	s.fails("POST", "/tabs/action", nil, map[string]any{"action": "select", "index": 99}, "INVALID_REQUEST", 404, "tab not found")

	s.fails("GET", "/doctor", nil, nil, "INVALID_REQUEST", 404, "Not Found")
	s.fails("PUT", "/", nil, nil, "INVALID_REQUEST", 400, "method must be GET, POST, or DELETE")
	s.fails("POST", "/act", nil, map[string]any{"kind": "batch", "actions": []any{}}, "INVALID_REQUEST", 400, `act kind "batch" is not supported`)
	s.fails("POST", "/tabs/open", nil, map[string]any{"url": s.base + "/form.html", "frobnicate": "x"}, "INVALID_REQUEST", 400, `"frobnicate" is not supported`)
	s.fails("POST", "/act", nil, map[string]any{"kind": "click", "ref": "e9999"}, "INVALID_REQUEST", 404, "Run a new snapshot")
	s.fails("GET", "/snapshot", map[string]any{"limit": "many"}, nil, "INVALID_REQUEST", 400, `invalid limit: "many"`)

	if res := s.ok("POST", "/stop", nil, nil); !res.Get("ok").Bool() || !res.Get("stopped").Bool() {
		t.Errorf("POST /stop: %s", res.Raw)
	}
	if st := s.ok("GET", "/", nil, nil); st.Get("running").Bool() {
		t.Errorf("status after stop: %s", st.Raw)
	}
	s.fails("GET", "/snapshot", nil, nil, "UNAVAILABLE", 500, "openclaw browser start")
}
