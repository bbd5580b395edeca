package commands

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// `openclaw web fetch` as a user runs it: refused on loopback by default
// (exit 3, saying how to allow it), fetched once the config allows it.
func TestWebFetchWholeProcess(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Local page</title></head><body><article><p>Hello from a local page,
with enough words in this paragraph for readability to keep it as the content of the page.</p></article></body></html>`)
	}))
	defer srv.Close()
	home := t.TempDir()
	r := runOC(t, home, "web", "fetch", srv.URL)
	if r.code != 3 || !strings.Contains(r.stderr, "loopback") || !strings.Contains(r.stderr, "tools.web.fetch.ssrfPolicy") {
		t.Fatalf("default: %+v", r)
	}
	writeCfg(t, home, map[string]any{"tools": map[string]any{"web": map[string]any{"fetch": map[string]any{
		"ssrfPolicy": map[string]any{"allowedHostnames": []string{"127.0.0.1"}}}}}})
	r = runOC(t, home, "web", "fetch", srv.URL, "--extract-mode", "text", "--json")
	if r.code != 0 || !strings.Contains(gjson.Get(r.stdout, "text").String(), "Hello from a local page") ||
		!strings.Contains(gjson.Get(r.stdout, "title").String(), "Local page") {
		t.Fatalf("allowed: %+v", r)
	}
}
