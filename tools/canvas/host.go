package canvas

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/tools"
)

// The canvas host: agent-editable files from the canvas root under
// /__openclaw__/canvas/, the bundled A2UI renderer under /__openclaw__/a2ui/
// and the live-reload socket at /__openclaw__/ws, all on the gateway's port
// (service.go mounts them behind the gateway's auth).
const (
	CanvasPath = "/__openclaw__/canvas/"
	A2UIPath   = "/__openclaw__/a2ui/"
	WSPath     = "/__openclaw__/ws"
)

// maxInjectHTML caps the HTML read into memory to insert the bridge; a
// larger page is served as it is, streamed.
const maxInjectHTML = 16 << 20

// maxReloadSockets bounds the live-reload sockets held open.
const maxReloadSockets = 256

//go:embed assets/bridge.js assets/starter.html assets/a2ui
var assets embed.FS

// The assets are read on first use (package init runs in every process).
var (
	bridgeJS   = sync.OnceValue(func() []byte { return mustAsset("assets/bridge.js") })
	starterDoc = sync.OnceValue(func() []byte { return mustAsset("assets/starter.html") })
)

func mustAsset(name string) []byte {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// bridgeSnippet is the <script> inserted before </body>: the action bridge
// globals and, when asked, the live-reload socket.
func bridgeSnippet(liveReload bool) []byte {
	js := bytes.Replace(bridgeJS(), []byte("/*LIVE_RELOAD*/false"), []byte(fmt.Sprint(liveReload)), 1)
	return append(append([]byte("<script>\n"), js...), "</script>"...)
}

// injectBridge inserts snippet before the last </body> (any case), or
// appends it when the page has none.
func injectBridge(doc, snippet []byte) []byte {
	i := bytes.LastIndex(bytes.ToLower(doc), []byte("</body>"))
	out := make([]byte, 0, len(doc)+len(snippet)+2)
	if i < 0 {
		out = append(out, doc...)
		out = append(out, '\n')
		out = append(out, snippet...)
		return append(out, '\n')
	}
	out = append(out, doc[:i]...)
	out = append(out, '\n')
	out = append(out, snippet...)
	out = append(out, '\n')
	return append(out, doc[i:]...)
}

// Host serves one canvas root.
type Host struct {
	root       string // as configured (for messages)
	real       string // its real path
	fsRoot     *os.Root
	liveReload bool
	page       []byte // the snippet for canvas pages
	a2uiPage   []byte // the snippet for the A2UI page: the bridge, never live reload
	warn       func(format string, args ...any)

	mu      sync.Mutex
	bmu     sync.Mutex // one broadcast at a time (one writer per socket)
	sockets map[*websocket.Conn]struct{}
	watcher *watcher
	closed  bool
}

// HostOptions configure a Host.
type HostOptions struct {
	Root       string
	LiveReload bool
	Warn       func(format string, args ...any)
}

// NewHost prepares the canvas root (created, and seeded with a starter
// index.html when it has none) and starts the file watcher when live
// reload is on.
func NewHost(o HostOptions) (*Host, error) {
	if o.Warn == nil {
		o.Warn = func(string, ...any) {}
	}
	if err := os.MkdirAll(o.Root, 0o755); err != nil {
		return nil, fmt.Errorf("canvas root %s: %w", o.Root, err)
	}
	real, err := filepath.EvalSymlinks(o.Root)
	if err != nil {
		return nil, fmt.Errorf("canvas root %s: %w", o.Root, err)
	}
	index := filepath.Join(real, "index.html")
	if _, err := os.Lstat(index); errors.Is(err, fs.ErrNotExist) {
		if err := atomicfile.WriteFile(index, starterDoc(), 0o644); err != nil {
			o.Warn("canvas host: could not write the starter page %s: %v", index, err)
		}
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("canvas root %s: %w", o.Root, err)
	}
	h := &Host{root: o.Root, real: real, fsRoot: r, liveReload: o.LiveReload, warn: o.Warn,
		page: bridgeSnippet(o.LiveReload), a2uiPage: bridgeSnippet(false), sockets: map[*websocket.Conn]struct{}{}}
	if o.LiveReload {
		w, err := newWatcher(real, 75*time.Millisecond, h.broadcastReload, func(err error) {
			h.warn("canvas host: watcher error: %v (live reload disabled; set canvasHost.liveReload=false, or a smaller canvasHost.root)", err)
		})
		if err != nil {
			h.warn("canvas host: live reload disabled: %v (set canvasHost.liveReload=false, or a smaller canvasHost.root)", err)
		} else {
			h.watcher = w
		}
	}
	return h, nil
}

// Root is the canvas root as configured.
func (h *Host) Root() string { return h.root }

// Close stops the watcher and closes the live-reload sockets.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	w := h.watcher
	socks := h.sockets
	h.sockets = map[*websocket.Conn]struct{}{}
	h.mu.Unlock()
	if w != nil {
		w.Close()
	}
	for c := range socks {
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "canvas host stopping"), time.Now().Add(time.Second))
		_ = c.Close()
	}
	return h.fsRoot.Close()
}

func textReply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func getOrHead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	textReply(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	return false
}

// ServeCanvas serves GET|HEAD /__openclaw__/canvas/<path> from the root.
func (h *Host) ServeCanvas(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !getOrHead(w, r) {
		return
	}
	rel := strings.TrimPrefix(r.URL.Path, strings.TrimSuffix(CanvasPath, "/"))
	f, name, err := h.open(rel)
	if err != nil {
		if rel == "" || strings.HasSuffix(rel, "/") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, "<!doctype html><meta charset=\"utf-8\"><title>OpenClaw Canvas</title><pre>Missing file.\nCreate %s</pre>\n",
				html.EscapeString(filepath.Join(h.root, filepath.FromSlash(strings.TrimPrefix(rel, "/")), "index.html")))
			return
		}
		textReply(w, http.StatusNotFound, "not found")
		return
	}
	defer f.Close()
	serveFile(w, r, f, name, h.page)
}

// open resolves a URL path inside the root: no ".." segment, no symlink
// anywhere on the way (the root itself may be one), a directory serves its
// index.html, and only a regular file is served. os.Root keeps every open
// inside the root even if the tree changes between the checks and the open.
func (h *Host) open(urlPath string) (*os.File, string, error) {
	var segs []string
	for _, s := range strings.Split(urlPath, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return nil, "", fs.ErrNotExist
		}
		if strings.ContainsRune(s, 0) || strings.ContainsRune(s, '\\') {
			return nil, "", fs.ErrNotExist
		}
		segs = append(segs, s)
	}
	check := func(segs []string) (fs.FileInfo, error) {
		var fi fs.FileInfo
		for i := range segs {
			var err error
			if fi, err = h.fsRoot.Lstat(path.Join(segs[:i+1]...)); err != nil {
				return nil, err
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				return nil, fs.ErrPermission
			}
		}
		return fi, nil
	}
	fi, err := check(segs)
	if err != nil {
		return nil, "", err
	}
	if len(segs) == 0 || fi.IsDir() {
		segs = append(segs, "index.html")
		if fi, err = check(segs); err != nil {
			return nil, "", err
		}
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fs.ErrNotExist
	}
	name := path.Join(segs...)
	f, err := h.fsRoot.Open(name)
	if err != nil {
		return nil, "", err
	}
	// A file with other hard links may be one made in the root to a file
	// elsewhere: these routes answer loopback without auth, so it is refused
	// as a symlink is, checked on the opened file.
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || tools.HardLinked(st) {
		f.Close()
		return nil, "", fs.ErrNotExist
	}
	return f, name, nil
}

func isHTML(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".html" || ext == ".htm"
}

// serveFile writes one file: HTML with snippet inserted (text/html;
// charset=utf-8), anything else with its type from the extension or
// sniffed from its first bytes (http.ServeContent, which also answers HEAD
// and ranges).
func serveFile(w http.ResponseWriter, r *http.Request, f io.ReadSeeker, name string, snippet []byte) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if isHTML(name) && snippet != nil {
		doc, err := io.ReadAll(io.LimitReader(f, maxInjectHTML+1))
		if err != nil {
			textReply(w, http.StatusInternalServerError, "error")
			return
		}
		if len(doc) <= maxInjectHTML {
			doc = injectBridge(doc, snippet)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Length", fmt.Sprint(len(doc)))
			w.WriteHeader(http.StatusOK)
			if r.Method != http.MethodHead {
				_, _ = w.Write(doc)
			}
			return
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			textReply(w, http.StatusInternalServerError, "error")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", t)
	}
	http.ServeContent(w, r, path.Base(name), time.Time{}, f)
}

// ServeA2UI serves the bundled renderer (GET|HEAD /__openclaw__/a2ui/...).
// Its page gets the action bridge but never the live-reload socket: a
// reload would wipe the surfaces pushed into it.
func (h *Host) ServeA2UI(w http.ResponseWriter, r *http.Request) {
	serveA2UI(w, r, h.a2uiPage)
}

func serveA2UI(w http.ResponseWriter, r *http.Request, snippet []byte) {
	w.Header().Set("Cache-Control", "no-store")
	if !getOrHead(w, r) {
		return
	}
	rel := strings.TrimPrefix(r.URL.Path, A2UIPath)
	if rel == "" {
		rel = "index.html"
	}
	for _, s := range strings.Split(rel, "/") {
		if s == ".." || s == "" {
			textReply(w, http.StatusNotFound, "not found")
			return
		}
	}
	b, err := assets.ReadFile("assets/a2ui/" + rel)
	if err != nil {
		textReply(w, http.StatusNotFound, "not found")
		return
	}
	serveFile(w, r, bytes.NewReader(b), rel, snippet)
}

// ServeWSPlain answers a plain request at the live-reload path: 426 when
// live reload is on (it is a WebSocket), 404 when it is off.
func (h *Host) ServeWSPlain(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !h.liveReload {
		textReply(w, http.StatusNotFound, "not found")
		return
	}
	w.Header().Set("Upgrade", "websocket")
	w.Header().Set("Connection", "Upgrade")
	textReply(w, http.StatusUpgradeRequired, "upgrade required")
}

var upgrader = websocket.Upgrader{
	HandshakeTimeout: 10 * time.Second,
	CheckOrigin:      sameOrigin,
}

// sameOrigin admits clients without an Origin, and pages of the gateway's
// own origin or a loopback one: another web site must not hold sockets here.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	host := strings.TrimPrefix(strings.TrimPrefix(o, "http://"), "https://")
	if strings.EqualFold(host, r.Host) {
		return true
	}
	name := host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		name = host[:i]
	}
	name = strings.Trim(name, "[]")
	return name == "localhost" || name == "::1" || strings.HasPrefix(name, "127.")
}

// ServeWS upgrades a live-reload socket; it then only ever receives
// "reload" text frames.
func (h *Host) ServeWS(w http.ResponseWriter, r *http.Request) {
	if !h.liveReload {
		textReply(w, http.StatusNotFound, "not found")
		return
	}
	h.mu.Lock()
	full := len(h.sockets) >= maxReloadSockets || h.closed
	h.mu.Unlock()
	if full {
		textReply(w, http.StatusServiceUnavailable, "too many live-reload sockets")
		return
	}
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade answered
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = c.Close()
		return
	}
	h.sockets[c] = struct{}{}
	h.mu.Unlock()
	c.SetReadLimit(512)
	go func() {
		defer func() {
			h.mu.Lock()
			delete(h.sockets, c)
			h.mu.Unlock()
			_ = c.Close()
		}()
		for {
			if _, _, err := c.NextReader(); err != nil {
				return
			}
		}
	}()
}

// broadcastReload sends "reload" to every live-reload socket.
func (h *Host) broadcastReload() {
	h.bmu.Lock()
	defer h.bmu.Unlock()
	h.mu.Lock()
	socks := make([]*websocket.Conn, 0, len(h.sockets))
	for c := range h.sockets {
		socks = append(socks, c)
	}
	h.mu.Unlock()
	for _, c := range socks {
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if err := c.WriteMessage(websocket.TextMessage, []byte("reload")); err != nil {
			_ = c.Close()
		}
	}
}

// Sockets is the number of live-reload sockets open.
func (h *Host) Sockets() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sockets)
}
