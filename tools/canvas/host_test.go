package canvas

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// hostServer is a canvas host on its own loopback HTTP server, mounted as
// the gateway mounts it (service.go), without the gateway's auth.
type hostServer struct {
	h    *Host
	srv  *httptest.Server
	root string
	mu   sync.Mutex
	log  []string
}

func newHostServer(t *testing.T, root string, live bool) *hostServer {
	t.Helper()
	hs := &hostServer{root: root}
	h, err := NewHost(HostOptions{Root: root, LiveReload: live, Warn: func(f string, a ...any) {
		hs.mu.Lock()
		hs.log = append(hs.log, f)
		hs.mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs.h = h
	mux := http.NewServeMux()
	mux.HandleFunc(CanvasPath, h.ServeCanvas)
	mux.HandleFunc(A2UIPath, h.ServeA2UI)
	mux.HandleFunc(WSPath, func(w http.ResponseWriter, r *http.Request) {
		if websocket.IsWebSocketUpgrade(r) {
			h.ServeWS(w, r)
			return
		}
		h.ServeWSPlain(w, r)
	})
	hs.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		hs.srv.Close()
		h.Close()
	})
	return hs
}

func (hs *hostServer) do(t *testing.T, method, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, hs.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHostSeedsRootAndServesWithBridge(t *testing.T) {
	root := filepath.Join(t.TempDir(), "canvas")
	hs := newHostServer(t, root, true)
	seeded, err := os.ReadFile(filepath.Join(root, "index.html"))
	if err != nil || string(seeded) != string(starterDoc()) {
		t.Fatalf("starter page not seeded: %v", err)
	}
	for _, p := range []string{"/__openclaw__/canvas/", "/__openclaw__/canvas/index.html"} {
		resp, body := hs.do(t, "GET", p)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, resp.Header)
		}
		i, j := strings.Index(body, "openclawSendUserAction = sendUserAction"), strings.LastIndex(body, "</body>")
		if i < 0 || j < i || !strings.Contains(body, "const LIVE_RELOAD = true;") || !strings.Contains(body, "Hello") {
			t.Fatalf("%s: bridge not before </body>:\n%s", p, body)
		}
	}
	// A seeded root is left alone on the next start.
	write(t, filepath.Join(root, "index.html"), "<p>mine</p>")
	hs.h.Close()
	if _, err := NewHost(HostOptions{Root: root}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "index.html")); string(b) != "<p>mine</p>" {
		t.Fatalf("index.html overwritten: %s", b)
	}
}

func TestHostFiles(t *testing.T) {
	root := t.TempDir()
	hs := newHostServer(t, root, true)
	write(t, filepath.Join(root, "style.css"), "body{}")
	write(t, filepath.Join(root, "blob"), "\x89PNG\r\n\x1a\n0000")
	write(t, filepath.Join(root, "frag.html"), "<p>no body tag</p>")
	write(t, filepath.Join(root, "sub", "UPPER.HTM"), "<BODY>x</BODY>")
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.txt"), "secret")
	write(t, filepath.Join(root, "real", "index.html"), "<p>real</p>")
	for _, l := range [][2]string{
		{filepath.Join(outside, "secret.txt"), "link.txt"},
		{outside, "linkdir"},
		{filepath.Join(root, "style.css"), "inner-link.css"},
		{filepath.Join(root, "real"), "dirlink"},
	} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		method, path string
		status       int
		ctype        string
		body         string // substring
	}{
		{"GET", "/__openclaw__/canvas/style.css", 200, "text/css; charset=utf-8", "body{}"},
		{"GET", "/__openclaw__/canvas/blob", 200, "image/png", "PNG"},
		{"GET", "/__openclaw__/canvas/frag.html", 200, "text/html; charset=utf-8", "<p>no body tag</p>\n<script>"},
		{"GET", "/__openclaw__/canvas/sub/UPPER.HTM", 200, "text/html; charset=utf-8", "x\n<script>"},
		{"GET", "/__openclaw__/canvas/real", 200, "text/html; charset=utf-8", "<p>real</p>"},
		{"HEAD", "/__openclaw__/canvas/style.css", 200, "text/css; charset=utf-8", ""},
		{"POST", "/__openclaw__/canvas/style.css", 405, "text/plain; charset=utf-8", "Method Not Allowed"},
		{"PUT", "/__openclaw__/canvas/", 405, "text/plain; charset=utf-8", "Method Not Allowed"},
		{"GET", "/__openclaw__/canvas/nope.js", 404, "text/plain; charset=utf-8", "not found"},
		{"GET", "/__openclaw__/canvas/empty/", 404, "text/html; charset=utf-8", "Missing file.\nCreate " + filepath.Join(root, "empty", "index.html")},
		{"GET", "/__openclaw__/canvas/link.txt", 404, "", "not found"},
		{"GET", "/__openclaw__/canvas/linkdir/secret.txt", 404, "", "not found"},
		{"GET", "/__openclaw__/canvas/inner-link.css", 404, "", "not found"},
		{"GET", "/__openclaw__/canvas/dirlink/index.html", 404, "", "not found"},
		{"GET", "/__openclaw__/canvas/dirlink/", 404, "text/html; charset=utf-8", "Missing file."},
	}
	for _, c := range cases {
		resp, body := hs.do(t, c.method, c.path)
		if resp.StatusCode != c.status || (c.ctype != "" && resp.Header.Get("Content-Type") != c.ctype) || !strings.Contains(body, c.body) {
			t.Errorf("%s %s: %d %q %q", c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s: Cache-Control %q", c.method, c.path, resp.Header.Get("Cache-Control"))
		}
		if c.method == "HEAD" && (body != "" || resp.ContentLength != 6) {
			t.Errorf("HEAD: body %q, length %d", body, resp.ContentLength)
		}
	}
	// ".." never reaches a file, whatever the router did with it.
	for _, p := range []string{"/__openclaw__/canvas/../" + filepath.Base(outside) + "/secret.txt", "/__openclaw__/canvas/sub/../style.css", "/__openclaw__/canvas/a\x00b"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/x", nil)
		req.URL.Path = p
		hs.h.ServeCanvas(rec, req)
		if rec.Code != 404 {
			t.Errorf("%q: %d %s", p, rec.Code, rec.Body)
		}
	}
	// The root's own index missing: the original's message, with the root.
	if err := os.Remove(filepath.Join(root, "index.html")); err != nil {
		t.Fatal(err)
	}
	resp, body := hs.do(t, "GET", "/__openclaw__/canvas/")
	if resp.StatusCode != 404 || !strings.Contains(body, "<pre>Missing file.\nCreate "+filepath.Join(root, "index.html")+"</pre>") {
		t.Fatalf("missing root index: %d %s", resp.StatusCode, body)
	}
}

func TestA2UIRoute(t *testing.T) {
	hs := newHostServer(t, t.TempDir(), true)
	resp, body := hs.do(t, "GET", "/__openclaw__/a2ui/")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("index: %d %v", resp.StatusCode, resp.Header)
	}
	// The bridge, never the live-reload socket (a reload wipes the surfaces).
	if !strings.Contains(body, `<script src="a2ui.bundle.js"></script>`) || !strings.Contains(body, "openclawSendUserAction") ||
		!strings.Contains(body, "const LIVE_RELOAD = false;") {
		t.Fatalf("index body:\n%s", body)
	}
	resp, body = hs.do(t, "GET", "/__openclaw__/a2ui/a2ui.bundle.js")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/javascript; charset=utf-8" || !strings.Contains(body, "globalThis.openclawA2UI = {") {
		t.Fatalf("bundle: %d %v", resp.StatusCode, resp.Header)
	}
	for p, want := range map[string]int{"/__openclaw__/a2ui/nope.js": 404, "/__openclaw__/a2ui/../bridge.js": 404, "/__openclaw__/a2ui/index.html": 200} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/x", nil)
		req.URL.Path = p
		hs.h.ServeA2UI(rec, req)
		if rec.Code != want {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
	if resp, _ := hs.do(t, "POST", "/__openclaw__/a2ui/"); resp.StatusCode != 405 {
		t.Fatalf("POST: %d", resp.StatusCode)
	}
}

func dialReload(t *testing.T, hs *hostServer) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.srv.URL, "http")+WSPath, nil)
	if err != nil {
		t.Fatalf("dial: %v %v", err, resp)
	}
	t.Cleanup(func() { c.Close() })
	for deadline := time.Now().Add(10 * time.Second); hs.h.Sockets() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("socket not registered")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return c
}

func expectReload(t *testing.T, c *websocket.Conn, why string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	typ, msg, err := c.ReadMessage()
	if err != nil || typ != websocket.TextMessage || string(msg) != "reload" {
		t.Fatalf("%s: %d %q %v", why, typ, msg, err)
	}
}

func TestLiveReload(t *testing.T) {
	root := t.TempDir()
	hs := newHostServer(t, root, true)
	resp, body := hs.do(t, "GET", WSPath)
	if resp.StatusCode != http.StatusUpgradeRequired || body != "upgrade required" {
		t.Fatalf("plain GET: %d %q", resp.StatusCode, body)
	}
	c := dialReload(t, hs)
	write(t, filepath.Join(root, "index.html"), "<p>changed</p>")
	expectReload(t, c, "edit")
	// A directory made after the start is watched too.
	write(t, filepath.Join(root, "new", "deeper", "page.html"), "<p>new</p>")
	expectReload(t, c, "new directory")
	write(t, filepath.Join(root, "new", "deeper", "page.html"), "<p>newer</p>")
	expectReload(t, c, "file in the new directory")
	// A socket from another web site is refused.
	h := http.Header{"Origin": {"https://evil.example"}}
	if _, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.srv.URL, "http")+WSPath, h); err == nil || resp.StatusCode != 403 {
		t.Fatalf("foreign origin: %v %v", err, resp)
	}
	// Stopping the host closes the sockets.
	hs.h.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Fatalf("after close: %v", err)
	}
}

func TestIgnoredPaths(t *testing.T) {
	w := &watcher{root: "/r"}
	for p, want := range map[string]bool{
		"/r/index.html": false, "/r/a/b.css": false, "/r/.git/HEAD": true, "/r/.swp": true,
		"/r/node_modules/x/y.js": true, "/r/a/node_modules": true, "/r/a/.cache/z": true, "/elsewhere/x": true,
	} {
		if got := w.skip(p); got != want {
			t.Errorf("skip(%s) = %v", p, got)
		}
	}
}

func TestLiveReloadOff(t *testing.T) {
	root := t.TempDir()
	hs := newHostServer(t, root, false)
	_, body := hs.do(t, "GET", "/__openclaw__/canvas/")
	if !strings.Contains(body, "const LIVE_RELOAD = false;") || !strings.Contains(body, "openclawSendUserAction") {
		t.Fatalf("page without live reload:\n%s", body)
	}
	if resp, body := hs.do(t, "GET", WSPath); resp.StatusCode != 404 || body != "not found" {
		t.Fatalf("ws path with live reload off: %d %q", resp.StatusCode, body)
	}
	if _, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.srv.URL, "http")+WSPath, nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("upgrade with live reload off: %v", err)
	}
}

func TestInjectBridge(t *testing.T) {
	s := []byte("<S>")
	for in, want := range map[string]string{
		"<body>a</body></html>":                "<body>a\n<S>\n</body></html>",
		"<body>a</BODY>b</Body>":               "<body>a</BODY>b\n<S>\n</Body>",
		"plain":                                "plain\n<S>\n",
		"":                                     "\n<S>\n",
		"<p></body><script>'</body>'</script>": "<p></body><script>'\n<S>\n</body>'</script>",
	} {
		if got := string(injectBridge([]byte(in), s)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// BenchmarkServeCanvasPage: the starter index.html with the bridge
// inserted, over loopback HTTP.
func BenchmarkServeCanvasPage(b *testing.B) {
	h, err := NewHost(HostOptions{Root: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(http.HandlerFunc(h.ServeCanvas))
	defer srv.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := http.Get(srv.URL + CanvasPath)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatal(resp.Status)
		}
	}
}

// BenchmarkLiveReload: from a file written under the root to the
// "reload" frame on a connected socket (the 75 ms debounce included).
func BenchmarkLiveReload(b *testing.B) {
	root := b.TempDir()
	h, err := NewHost(HostOptions{Root: root, LiveReload: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(http.HandlerFunc(h.ServeWS))
	defer srv.Close()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for h.Sockets() == 0 {
		time.Sleep(time.Millisecond)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := os.WriteFile(filepath.Join(root, "index.html"), []byte(strings.Repeat("x", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, msg, err := c.ReadMessage(); err != nil || string(msg) != "reload" {
			b.Fatal(msg, err)
		}
	}
}

// A hard link made in the canvas root to a file elsewhere is not served:
// these routes answer loopback without auth, so it would hand the linked
// file to any local user. A file with one name next to it still is.
func TestHostRefusesHardLinks(t *testing.T) {
	root := t.TempDir()
	hs := newHostServer(t, root, false)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	write(t, outside, "secret-by-hard-link")
	if err := os.Link(outside, filepath.Join(root, "linked.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "hl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(root, "hl", "index.html")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "plain.txt"), "plain")
	for _, p := range []string{"/__openclaw__/canvas/linked.txt", "/__openclaw__/canvas/hl/", "/__openclaw__/canvas/hl"} {
		resp, body := hs.do(t, "GET", p)
		if resp.StatusCode != 404 || strings.Contains(body, "secret-by-hard-link") {
			t.Errorf("GET %s: %d (%d bytes), want 404 without the linked file", p, resp.StatusCode, len(body))
		}
	}
	if resp, body := hs.do(t, "GET", "/__openclaw__/canvas/plain.txt"); resp.StatusCode != 200 || body != "plain" {
		t.Errorf("plain file: %d %q", resp.StatusCode, body)
	}
}
