package pdf_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

// recorder keeps the last request body a fake model server received.
type recorder struct {
	mu   sync.Mutex
	body gjson.Result
	path string
}

func (r *recorder) set(path string, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.path, r.body = path, gjson.ParseBytes(b)
}

func (r *recorder) get() (string, gjson.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.path, r.body
}

// openAIChat speaks OpenAI chat completions (streamed, as the provider asks).
func openAIChat(t *testing.T, answer string, rec *recorder) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.set(r.URL.Path, b)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": answer}, "finish_reason": "stop"}}})
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", chunk)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// anthropicMessages speaks the Anthropic Messages API (non-streamed JSON
// answer; the provider accepts either).
func anthropicMessages(t *testing.T, answer string, rec *recorder) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.set(r.URL.Path, b)
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name string, v any) {
			j, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, j)
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "m1", "model": "claude", "usage": map[string]any{"input_tokens": 10}}})
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": answer}})
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 5}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func modelConfig(env *tools.Env, id, url, api string, defaults map[string]any) {
	env.Config.Doc["models"] = map[string]any{"providers": map[string]any{id: map[string]any{
		"baseUrl": url, "apiKey": "k", "api": api, "models": []any{map[string]any{"id": "m1"}}}}}
	env.Config.Doc["agents"] = map[string]any{"defaults": defaults}
}

// With a pdfModel on an OpenAI-compatible provider the extracted text and
// the prompt go to the model, and its answer is the result.
func TestPromptAnsweredByConfiguredModelFromExtractedText(t *testing.T) {
	var rec recorder
	srv := openAIChat(t, "Revenue grew 12 percent.", &rec)
	env, dir := newEnv(t)
	writePDF(t, dir, "report.pdf", []page{{lines: []string{"Quarterly report", "Revenue grew by 12 percent."}}, {lines: []string{"Costs were flat."}}})
	modelConfig(env, "loc", srv.URL, "openai-completions", map[string]any{"pdfModel": "loc/m1"})
	r, err := invoke(t, env, map[string]any{"pdf": "report.pdf", "prompt": "How did revenue change?", "pages": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Get("content.0.text").String() != "Revenue grew 12 percent." || r.Get("details.text").String() != "Revenue grew 12 percent." ||
		r.Get("details.model").String() != "loc/m1" || r.Get("details.native").Bool() {
		t.Fatalf("result %s", r.Raw)
	}
	path, body := rec.get()
	msg := body.Get("messages.#(role==\"user\").content").String()
	if path != "/chat/completions" || body.Get("model").String() != "m1" || !strings.Contains(msg, "How did revenue change?") ||
		!strings.Contains(msg, "Revenue grew by 12 percent.") || strings.Contains(msg, "Costs were flat.") {
		t.Fatalf("request %s %s", path, body.Raw)
	}
	// imageModel is the fallback when pdfModel is unset.
	modelConfig(env, "loc", srv.URL, "openai-completions", map[string]any{"imageModel": "loc/m1"})
	r, err = invoke(t, env, map[string]any{"pdf": "report.pdf"})
	if err != nil || r.Get("details.model").String() != "loc/m1" {
		t.Fatalf("imageModel fallback: %v %s", err, r.Raw)
	}
	if _, body := rec.get(); !strings.Contains(body.Get("messages.#(role==\"user\").content").String(), "Analyze this PDF document.") {
		t.Fatalf("default prompt: %s", body.Raw)
	}
}

// An Anthropic Messages provider gets the PDF itself as a document block.
func TestAnthropicGetsThePDFAsADocument(t *testing.T) {
	var rec recorder
	srv := anthropicMessages(t, "A one-page report.", &rec)
	env, dir := newEnv(t)
	p := writePDF(t, dir, "report.pdf", []page{{lines: []string{"Quarterly report"}}})
	modelConfig(env, "ant", srv.URL, "anthropic-messages", map[string]any{"pdfModel": "ant/m1"})
	r, err := invoke(t, env, map[string]any{"pdf": p, "prompt": "Summarise."})
	if err != nil {
		t.Fatal(err)
	}
	if r.Get("content.0.text").String() != "A one-page report." || !r.Get("details.native").Bool() || r.Get("details.model").String() != "ant/m1" {
		t.Fatalf("result %s", r.Raw)
	}
	path, body := rec.get()
	doc := body.Get("messages.0.content.0")
	raw, _ := base64.StdEncoding.DecodeString(doc.Get("source.data").String())
	if path != "/v1/messages" || doc.Get("type").String() != "document" || doc.Get("source.media_type").String() != "application/pdf" ||
		!strings.HasPrefix(string(raw), "%PDF-1.4") || body.Get("messages.0.content.1.text").String() != "Summarise." {
		t.Fatalf("request %s %s", path, body.Raw)
	}
}

// PDF URLs go through web_fetch's SSRF guard.
func TestPDFURLThroughTheGuard(t *testing.T) {
	var hits atomic.Int32
	doc := buildPDF([]page{{lines: []string{"Fetched over HTTP."}}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(doc)
	}))
	defer srv.Close()
	env, _ := newEnv(t)
	_, err := invoke(t, env, map[string]any{"pdf": srv.URL + "/a.pdf"})
	if fe := tools.AsError(err); fe == nil || fe.Code != tools.CodeDenied || !strings.Contains(err.Error(), "loopback") ||
		!strings.Contains(err.Error(), "tools.web.fetch.ssrfPolicy") || hits.Load() != 0 {
		t.Fatalf("loopback URL: %v (hits %d)", err, hits.Load())
	}
	env.Config.Doc["tools"] = map[string]any{"web": map[string]any{"fetch": map[string]any{
		"ssrfPolicy": map[string]any{"allowedHostnames": []any{"127.0.0.1"}}}}}
	r, err := invoke(t, env, map[string]any{"pdf": srv.URL + "/a.pdf"})
	if err != nil || !strings.Contains(r.Get("details.text").String(), "Fetched over HTTP.") || r.Get("details.pdf").String() != srv.URL+"/a.pdf" {
		t.Fatalf("allowed: %v %s", err, r.Raw)
	}
	_, err = invoke(t, env, map[string]any{"pdf": srv.URL + "/a.pdf", "maxBytesMb": 0.0001})
	if err == nil || !strings.Contains(err.Error(), "PDF too large") {
		t.Fatalf("cap: %v", err)
	}
}
