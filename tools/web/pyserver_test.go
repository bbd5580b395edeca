package web

import (
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pythonServer serves dir on 127.0.0.1 with the headers of `python3 -m
// http.server`: Content-type from the extension and no charset (Go's
// FileServer adds "; charset=utf-8", which hides every decoding bug).
func pythonServer(t testing.TB, dir string) *httptest.Server {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/")))
		b, err := os.ReadFile(p)
		if err != nil {
			http.Error(w, "File not found", http.StatusNotFound)
			return
		}
		ct, _, _ := strings.Cut(mime.TypeByExtension(filepath.Ext(p)), ";")
		if ct == "" {
			ct = "application/octet-stream"
		}
		w.Header().Set("Server", "SimpleHTTP/0.6 Python/3.11.2")
		w.Header().Set("Content-type", ct)
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
		w.Write(b)
	})
	srv := httptest.NewUnstartedServer(h)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}
