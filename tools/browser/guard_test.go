package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestGuardEveryRequest: with the guard on (only the test origin,
// 127.0.0.1, allowed), what a page does by itself is refused as a
// navigation we start would be: a location set 100 ms after load, an
// <iframe> and a fetch() to another loopback host (localhost, the same
// server machine) never reach that server, and the snapshot shows none of
// its text, nor does a redirect from the allowed origin to it. Before, the URL was checked only right after our own load.
func TestGuardEveryRequest(t *testing.T) {
	var hits atomic.Int64
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "<p>TOP SECRET</p>")
	}))
	t.Cleanup(secret.Close)
	target := "http://localhost:" + secret.URL[strings.LastIndexByte(secret.URL, ':')+1:] + "/s"
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/relocate":
			fmt.Fprintf(w, `<p>outer page</p><script>setTimeout(() => { location = %q }, 100)</script>`, target)
		case "/framed":
			fmt.Fprintf(w, `<p>outer page</p><iframe src=%q></iframe><iframe src="/redirect"></iframe>`, target)
		case "/redirect": // an allowed URL that redirects to a blocked one
			http.Redirect(w, r, target, http.StatusFound)
		case "/steal":
			fmt.Fprintf(w, `<p>outer page</p><button onclick='fetch(%q).then(r => r.text()).then(t => { out.textContent = t }, () => { out.textContent = "fetch failed" })'>Steal</button><p id=out></p>`, target)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(pages.Close)
	r := newRig(t, map[string]any{"ssrfPolicy": map[string]any{"allowedHostnames": []string{"127.0.0.1"}}})

	r.ok("browser", "open", pages.URL+"/framed")
	if snap := r.snapshot(); strings.Contains(snap, "TOP SECRET") || !strings.Contains(snap, "outer page") {
		t.Errorf("an iframe to a blocked host was inlined:\n%s", snap)
	}

	r.ok("browser", "open", pages.URL+"/steal")
	res := r.ok("browser", "click", refFor(t, r.snapshot(), `button "Steal"`))
	if b := res.Get("blockedRequests.0"); !strings.HasPrefix(b.Get("url").String(), target) || !strings.Contains(b.Get("reason").String(), "blocked") {
		t.Errorf("a fetch to a blocked host: %s", res.Raw)
	}
	r.ok("browser", "wait", "--text", "fetch failed")

	// The page moves itself 100 ms after load: either while open still
	// checks the loaded page (open is refused: the tab is on a blocked
	// host) or after it answered. Both are the guard at work; what must
	// never happen is the blocked page's content or a request reaching it.
	out, stderr, code := r.run("browser", "open", pages.URL+"/relocate")
	if code != 0 && (code != 3 || !strings.Contains(out+stderr, "navigation blocked: host name localhost is internal")) {
		t.Fatalf("open /relocate: exit %d\n%s%s", code, out, stderr)
	}
	// The tab's URL changes when the location set by the page commits (to
	// the page, or to Chromium's error page for a refused request). A
	// refused open has sent the tab to about:blank already.
	deadline := time.Now().Add(15 * time.Second)
	for code == 0 && !strings.Contains(r.ok("browser", "tabs").Get("tabs.#(current==true).url").String(), "localhost") {
		if time.Now().After(deadline) {
			t.Fatalf("the page's own navigation never committed: %s", r.ok("browser", "tabs").Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if snap := r.snapshot(); strings.Contains(snap, "TOP SECRET") {
		t.Errorf("a location set after load reached a blocked host:\n%s", snap)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the blocked server was reached %d times", n)
	}
}
