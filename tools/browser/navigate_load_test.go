package browser_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// navigate answers once the new document has loaded, also when its body
// comes well after its headers (CDP's Page.navigate answers on the
// headers) and when the new document is another site, committed in a new
// renderer process; a fragment of the same document loads nothing and
// still answers.
func TestNavigateWaitsForTheNewDocument(t *testing.T) {
	r := newRig(t, nil)
	late := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select { // headers out, body late
		case <-time.After(500 * time.Millisecond):
		case <-req.Context().Done():
			return
		}
		io.WriteString(w, "<!doctype html><title>Late</title><p>late body</p>")
	}))
	t.Cleanup(late.Close)
	// Another site (localhost, not 127.0.0.1) than the first page's.
	lateURL := strings.Replace(late.URL, "127.0.0.1", "localhost", 1) + "/late"
	r.ok("browser", "open", r.base+"/form.html")
	for i := range 3 {
		r.ok("browser", "navigate", r.base+"/form.html")
		if got := r.ok("browser", "navigate", lateURL).Get("url").String(); got != lateURL {
			t.Errorf("round %d: navigate answered url %q", i, got)
		}
		if got := r.eval(`() => document.title`); got != "Late" {
			t.Fatalf("round %d: title %q right after navigate, want the new document's", i, got)
		}
	}
	// A fragment on the same document loads nothing; navigate still answers.
	r.ok("browser", "navigate", lateURL+"#part")
	if got := r.eval(`() => location.hash + " " + document.title`); got != "#part Late" {
		t.Errorf("after a same-document navigate: %q", got)
	}
}
