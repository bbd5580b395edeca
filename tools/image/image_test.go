package image_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/image"
)

var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

func newEnv(t *testing.T, doc map[string]any) *tools.Env {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	if err := os.WriteFile(filepath.Join(dir, "cat.png"), png, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("just text\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &tools.Env{Config: &config.Config{Doc: doc}, StateDir: t.TempDir(), Workspace: dir}
}

func invoke(env *tools.Env, params map[string]any) (gjson.Result, error) {
	b, _ := json.Marshal(params)
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: "image", Args: b})
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.ParseBytes(out), nil
}

// provider configures id at url with one model "vis" (image input unless
// textOnly).
func provider(url, api string, textOnly bool) map[string]any {
	input := []any{"text", "image"}
	if textOnly {
		input = []any{"text"}
	}
	return map[string]any{"baseUrl": url, "apiKey": "k-" + api, "api": api,
		"models": []any{map[string]any{"id": "vis", "input": input}}}
}

// openAIServer answers chat completions with answer, recording the request.
func openAIServer(t *testing.T, answer string, got *gjson.Result) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		*got = gjson.ParseBytes(b)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": answer}, "finish_reason": "stop"}}})
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", chunk)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestImageSentToConfiguredModel(t *testing.T) {
	var got gjson.Result
	srv := openAIServer(t, "A tiny cat.", &got)
	env := newEnv(t, map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": provider(srv.URL, "openai-completions", false)}},
		"agents": map[string]any{"defaults": map[string]any{"imageModel": "loc/vis"}},
	})
	r, err := invoke(env, map[string]any{"image": "cat.png"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Get("content.0.text").String() != "A tiny cat." || r.Get("details.model").String() != "loc/vis" ||
		r.Get("details.mimeType").String() != "image/png" {
		t.Fatalf("result %s", r.Raw)
	}
	var human strings.Builder
	if err := tools.Lookup("image").Render(&human, r); err != nil || human.String() != "A tiny cat.\n(loc/vis)\n" {
		t.Fatalf("render %q %v", human.String(), err)
	}
	content := got.Get("messages.0.content")
	if content.Get("0.text").String() != "Describe the image." ||
		!strings.HasPrefix(content.Get("1.image_url.url").String(), "data:image/png;base64,iVBORw0KGgo") ||
		got.Get("model").String() != "vis" || got.Get("max_tokens").Int() != 512 {
		t.Fatalf("request %s", got.Raw)
	}
}

// Without any image model the tool says what to configure.
func TestNoImageModel(t *testing.T) {
	env := newEnv(t, map[string]any{})
	_, err := invoke(env, map[string]any{"image": "cat.png"})
	if fe := tools.AsError(err); fe == nil || !strings.Contains(err.Error(), "set agents.defaults.imageModel") {
		t.Fatalf("%v", err)
	}
}

// The primary fails (401); the fallback answers; the attempt is recorded.
// A text-only model is refused before any request.
func TestFallbacksAndModelChecks(t *testing.T) {
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, 401)
	}))
	defer bad.Close()
	var got gjson.Result
	good := openAIServer(t, "ok", &got)
	env := newEnv(t, map[string]any{
		"models": map[string]any{"providers": map[string]any{
			"ant":  provider(bad.URL, "anthropic-messages", false),
			"loc":  provider(good.URL, "openai-completions", false),
			"text": provider(good.URL, "openai-completions", true),
		}},
		"agents": map[string]any{"defaults": map[string]any{"imageModel": map[string]any{"primary": "ant/vis", "fallbacks": []any{"loc/vis"}}}},
	})
	r, err := invoke(env, map[string]any{"image": "cat.png", "prompt": "Count the cats."})
	if err != nil {
		t.Fatal(err)
	}
	if r.Get("details.model").String() != "loc/vis" || !strings.Contains(r.Get("details.attempts.0.error").String(), "check models.providers.ant.apiKey") {
		t.Fatalf("%s", r.Raw)
	}
	if got.Get("messages.0.content.0.text").String() != "Count the cats." {
		t.Fatalf("%s", got.Raw)
	}
	// A single model that fails keeps its own code (auth → exit 4).
	_, err = invoke(env, map[string]any{"image": "cat.png", "model": "ant/vis"})
	if fe := tools.AsError(err); fe == nil || fe.Code != tools.CodeAuth {
		t.Fatalf("%v", err)
	}
	_, err = invoke(env, map[string]any{"image": "cat.png", "model": "text/vis"})
	if err == nil || !strings.Contains(err.Error(), "Model does not support images: text/vis") {
		t.Fatalf("%v", err)
	}
	_, err = invoke(env, map[string]any{"image": "cat.png", "model": "loc/nope"})
	if err == nil || !strings.Contains(err.Error(), "Unknown model: loc/nope") {
		t.Fatalf("%v", err)
	}
}

func TestRefusedInputs(t *testing.T) {
	var got gjson.Result
	srv := openAIServer(t, "x", &got)
	env := newEnv(t, map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": provider(srv.URL, "openai-completions", false)}},
	})
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"image": "notes.txt"}, "Unsupported media type: text/plain"},
		{map[string]any{"image": "missing.png"}, "image not found"},
		{map[string]any{"image": "cat.png", "maxBytesMb": 0.00001}, "image too large"},
		{map[string]any{"image": "image:0"}, "Unsupported image reference"},
	} {
		_, err := invoke(env, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.params, err, tc.want)
		}
	}
	if got.Exists() {
		t.Fatalf("a refused input reached the model: %s", got.Raw)
	}
	// A data: URL is accepted (inferred model: loc/vis declares image input).
	r, err := invoke(env, map[string]any{"image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAA="})
	if err != nil || r.Get("details.model").String() != "loc/vis" {
		t.Fatalf("%v %s", err, r.Raw)
	}
}

// Image URLs go through the SSRF guard of web_fetch: a loopback server is
// refused with the rule named, and served once tools.web.fetch.ssrfPolicy
// allows the host; a public-looking name resolving to it works the same.
func TestImageURLThroughTheGuard(t *testing.T) {
	var got gjson.Result
	model := openAIServer(t, "A cat from the web.", &got)
	var hits atomic.Int32
	imgSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/big.png" {
			w.Write(append(png, make([]byte, 4096)...))
			return
		}
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		w.Write(png)
	}))
	defer imgSrv.Close()
	providers := map[string]any{"providers": map[string]any{"loc": provider(model.URL, "openai-completions", false)}}
	env := newEnv(t, map[string]any{"models": providers})
	_, err := invoke(env, map[string]any{"image": imgSrv.URL + "/cat.png"})
	if fe := tools.AsError(err); fe == nil || fe.Code != tools.CodeDenied || !strings.Contains(err.Error(), "loopback") ||
		!strings.Contains(err.Error(), "tools.web.fetch.ssrfPolicy") {
		t.Fatalf("loopback URL: %v", err)
	}
	if hits.Load() != 0 || got.Exists() {
		t.Fatal("a refused URL was fetched")
	}
	env = newEnv(t, map[string]any{"models": providers, "tools": map[string]any{"web": map[string]any{"fetch": map[string]any{
		"ssrfPolicy": map[string]any{"allowedHostnames": []any{"127.0.0.1", "cdn.example"}}}}}})
	r, err := invoke(env, map[string]any{"image": imgSrv.URL + "/cat.png"})
	if err != nil || r.Get("content.0.text").String() != "A cat from the web." ||
		!strings.HasPrefix(got.Get("messages.0.content.1.image_url.url").String(), "data:image/png;base64,iVBORw0KGgo") {
		t.Fatalf("allowed URL: %v %s", err, r.Raw)
	}
	// A redirect to a metadata address is refused on the hop.
	_, err = invoke(env, map[string]any{"image": imgSrv.URL + "/moved"})
	if fe := tools.AsError(err); fe == nil || fe.Code != tools.CodeDenied || !strings.Contains(err.Error(), "link-local") {
		t.Fatalf("redirect: %v", err)
	}
	// The byte cap holds for URLs.
	_, err = invoke(env, map[string]any{"image": imgSrv.URL + "/big.png", "maxBytesMb": 0.001})
	if err == nil || !strings.Contains(err.Error(), "image too large") {
		t.Fatalf("cap: %v", err)
	}
	// A public-style name, pinned to the test server's address.
	port := imgSrv.Listener.Addr().(*net.TCPAddr).Port
	ctx := netguard.WithResolver(context.Background(), func(_ context.Context, h string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	})
	b, _ := json.Marshal(map[string]any{"image": fmt.Sprintf("http://cdn.example:%d/cat.png", port)})
	if _, err := tools.Invoke(ctx, env, tools.Call{ID: "image", Args: b}); err != nil {
		t.Fatalf("public-style name: %v", err)
	}
}
