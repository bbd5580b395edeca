package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// firecrawlServer speaks Firecrawl's documented scrape API: POST
// /v2/scrape with a bearer key and a JSON body, answering
// {success, data:{markdown, metadata:{title, sourceURL, statusCode}}}.
type firecrawlServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
	status int // answer status (0: 200)
}

func newFirecrawl(t *testing.T) *firecrawlServer {
	f := &firecrawlServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v2/scrape" {
			http.Error(w, `{"success":false,"error":"not found"}`, 404)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, `{"success":false,"error":"bad json"}`, 400)
			return
		}
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		status := f.status
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if status != 0 && status != 200 {
			w.WriteHeader(status)
			fmt.Fprint(w, `{"success":false,"error":"Payment required: insufficient credits"}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"success": true, "data": map[string]any{
			"markdown": "# Rendered\n\nThe page as **Firecrawl** rendered it, with [a link](https://example.com/x).",
			"metadata": map[string]any{"title": "Rendered title", "sourceURL": body["url"], "statusCode": 200},
		}, "warning": "served from cache"})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *firecrawlServer) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

// withFirecrawl is tools.web.fetch with loopback allowed and Firecrawl at f.
func withFirecrawl(f *firecrawlServer, extra map[string]any) map[string]any {
	fc := map[string]any{"apiKey": "fc-test-key", "baseUrl": f.URL}
	for k, v := range extra {
		fc[k] = v
	}
	m := allowLoopback()
	m["firecrawl"] = fc
	return m
}

func TestFirecrawlFallbackWhenReadabilityFindsNothing(t *testing.T) {
	fc := newFirecrawl(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script>render()</script></body></html>`)
	}))
	defer page.Close()
	d, err := fetch(context.Background(), t, envWith(t, withFirecrawl(fc, map[string]any{"maxAgeMs": 1000, "timeoutSeconds": 7})),
		map[string]any{"url": page.URL + "/spa"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Get("extractor").String() != "firecrawl" || d.Get("contentType").String() != "text/markdown" ||
		!strings.Contains(d.Get("text").String(), "The page as **Firecrawl** rendered it") ||
		!strings.Contains(d.Get("title").String(), "Rendered title") || d.Get("finalUrl").String() != page.URL+"/spa" ||
		d.Get("status").Int() != 200 || !strings.Contains(d.Get("warning").String(), "served from cache") {
		t.Fatalf("payload %s", d.Raw)
	}
	if fc.calls() != 1 {
		t.Fatalf("firecrawl calls %d", fc.calls())
	}
	b := fc.bodies[0]
	if b["url"] != page.URL+"/spa" || fmt.Sprint(b["formats"]) != "[markdown]" || b["onlyMainContent"] != true ||
		b["timeout"] != float64(7000) || b["maxAge"] != float64(1000) || b["proxy"] != "auto" || b["storeInCache"] != true {
		t.Errorf("request body %v", b)
	}
	if fc.auth[0] != "Bearer fc-test-key" {
		t.Errorf("auth %q", fc.auth[0])
	}
	// Text mode strips the Markdown of Firecrawl's answer too.
	d, err = fetch(context.Background(), t, envWith(t, withFirecrawl(fc, nil)),
		map[string]any{"url": page.URL + "/spa", "extractMode": "text"})
	if err != nil {
		t.Fatal(err)
	}
	if txt := d.Get("text").String(); strings.Contains(txt, "**Firecrawl**") || !strings.Contains(txt, "Firecrawl rendered") {
		t.Errorf("text mode: %s", txt)
	}
	if fc.bodies[1]["maxAge"] != float64(172800000) || fc.bodies[1]["timeout"] != float64(60000) {
		t.Errorf("defaults: %v", fc.bodies[1])
	}
}

func TestFirecrawlFallbackOnHTTPErrorAndReadabilityOff(t *testing.T) {
	fc := newFirecrawl(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/denied" {
			http.Error(w, "bot check", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, articleHTML)
	}))
	defer page.Close()
	d, err := fetch(context.Background(), t, envWith(t, withFirecrawl(fc, nil)), map[string]any{"url": page.URL + "/denied"})
	if err != nil || d.Get("extractor").String() != "firecrawl" {
		t.Fatalf("403 → firecrawl: %v %s", err, d.Raw)
	}
	cfg := withFirecrawl(fc, nil)
	cfg["readability"] = false
	d, err = fetch(context.Background(), t, envWith(t, cfg), map[string]any{"url": page.URL + "/a"})
	if err != nil || d.Get("extractor").String() != "firecrawl" {
		t.Fatalf("readability off → firecrawl: %v %s", err, d.Raw)
	}
	// Without Firecrawl the same cases fail as before.
	cfg = allowLoopback()
	cfg["readability"] = false
	_, err = fetch(context.Background(), t, envWith(t, cfg), map[string]any{"url": page.URL + "/a"})
	wantCode(t, err, tools.CodeFailed, "Readability disabled and Firecrawl unavailable")
	_, err = fetch(context.Background(), t, envWith(t, allowLoopback()), map[string]any{"url": page.URL + "/denied"})
	wantCode(t, err, tools.CodeFailed, "Web fetch failed (403)")
}

func TestFirecrawlNeverRetriesAnSSRFRefusal(t *testing.T) {
	fc := newFirecrawl(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer page.Close()
	cfg := map[string]any{"firecrawl": map[string]any{"apiKey": "k", "baseUrl": fc.URL}}
	_, err := fetch(context.Background(), t, envWith(t, cfg), map[string]any{"url": page.URL})
	wantCode(t, err, tools.CodeDenied, "Blocked", "loopback")
	if fc.calls() != 0 {
		t.Fatal("an SSRF refusal went to Firecrawl")
	}
}

func TestFirecrawlFailureAndEnablement(t *testing.T) {
	fc := newFirecrawl(t)
	fc.status = http.StatusPaymentRequired
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	}))
	defer page.Close()
	_, err := fetch(context.Background(), t, envWith(t, withFirecrawl(fc, nil)), map[string]any{"url": page.URL})
	wantCode(t, err, tools.CodeFailed, "Firecrawl fetch failed (402)", "insufficient credits")
	if strings.Contains(err.Error(), "fc-test-key") {
		t.Fatal("the key leaked into the error")
	}
	// enabled:false wins over a key.
	calls := fc.calls()
	_, err = fetch(context.Background(), t, envWith(t, withFirecrawl(fc, map[string]any{"enabled": false})), map[string]any{"url": page.URL})
	wantCode(t, err, tools.CodeFailed, "Web fetch failed (410)")
	if fc.calls() != calls {
		t.Fatal("disabled Firecrawl was called")
	}
	// A key in the environment enables it; FIRECRAWL_BASE_URL points it.
	fc.status = 0
	t.Setenv("FIRECRAWL_API_KEY", "fc-env-key")
	t.Setenv("FIRECRAWL_BASE_URL", fc.URL)
	d, err := fetch(context.Background(), t, envWith(t, allowLoopback()), map[string]any{"url": page.URL})
	if err != nil || d.Get("extractor").String() != "firecrawl" {
		t.Fatalf("env key: %v %s", err, d.Raw)
	}
	if fc.auth[len(fc.auth)-1] != "Bearer fc-env-key" {
		t.Errorf("auth %q", fc.auth[len(fc.auth)-1])
	}
}
