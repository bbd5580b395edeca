package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
)

func TestEmbedDocumentsBatchesAndOrdersByIndex(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		sizes = append(sizes, len(req.Input))
		mu.Unlock()
		var data []map[string]any
		for i := len(req.Input) - 1; i >= 0; i-- { // out of order on purpose
			var n float32
			for _, c := range req.Input[i] {
				n = n*10 + float32(c-'0')
			}
			data = append(data, map[string]any{"index": i, "embedding": []float32{n, 1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	e, err := NewEmbedder(EmbeddingSettings{Provider: "openai", Model: "m", BaseURL: srv.URL + "/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i := range 130 {
		texts = append(texts, strconv.Itoa(i))
	}
	batches := 0
	vecs, err := e.EmbedDocuments(context.Background(), texts, func(start int, v [][]float32) error {
		batches++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 3 || sizes[0] != 64 || sizes[1] != 64 || sizes[2] != 2 || batches != 3 {
		t.Fatalf("batch sizes %v (callbacks %d)", sizes, batches)
	}
	for i, v := range vecs {
		if int(v[0]) != i {
			t.Fatalf("vector %d is for input %v", i, v[0])
		}
	}
}

func TestEmbedHonoursTimeoutAndCancel(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // hang until the client gives up (or the test ends)
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	e, err := NewEmbedder(EmbeddingSettings{Provider: "ollama", Model: "m", BaseURL: srv.URL, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.EmbedQuery(context.Background(), "q")
	if f := failure.AsError(err); f == nil || f.Code != failure.CodeTimeout {
		t.Fatalf("timeout: %v", err)
	}
	e2, _ := NewEmbedder(EmbeddingSettings{Provider: "ollama", Model: "m", BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e2.EmbedQuery(ctx, "q")
	if f := failure.AsError(err); f == nil || f.Code != failure.CodeInterrupted {
		t.Fatalf("cancel: %v", err)
	}
}

func TestEmbedMalformedAndHTTPErrors(t *testing.T) {
	status, body := 200, `{"data":[]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	defer srv.Close()
	e, _ := NewEmbedder(EmbeddingSettings{Provider: "openai", Model: "m", BaseURL: srv.URL})
	if _, err := e.EmbedQuery(context.Background(), "q"); err == nil || !strings.Contains(err.Error(), "0 embeddings for 1 inputs") {
		t.Fatalf("malformed: %v", err)
	}
	status, body = 401, `{"error":"bad key"}`
	_, err := e.EmbedQuery(context.Background(), "q")
	if f := failure.AsError(err); f == nil || f.Code != failure.CodeAuth || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("401: %v", err)
	}
}

func TestResolveEmbeddingsKeysStayWithTheirDestination(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "VOYAGE_API_KEY", "MISTRAL_API_KEY"} {
		t.Setenv(k, "")
	}
	t.Setenv("OPENAI_API_KEY", "sk-openai")
	cfg := config.Empty()

	// auto: the first provider with a key.
	s, _, err := ResolveEmbeddings(cfg, EmbeddingConfig{})
	if err != nil || s == nil || s.Provider != "openai" || s.APIKey != "sk-openai" || s.BaseURL != "https://api.openai.com/v1" || s.Model != "text-embedding-3-small" {
		t.Fatalf("auto: %+v %v", s, err)
	}
	// remote.baseUrl elsewhere: the OpenAI key is not sent there.
	s, _, err = ResolveEmbeddings(cfg, EmbeddingConfig{Provider: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "openai/nomic"})
	if err != nil || s == nil || s.APIKey != "" || s.Model != "nomic" {
		t.Fatalf("elsewhere: %+v %v", s, err)
	}
	// No key for an explicit provider: nil and the reason, not an error.
	s, reason, err := ResolveEmbeddings(cfg, EmbeddingConfig{Provider: "voyage"})
	if err != nil || s != nil || !strings.Contains(reason, "VOYAGE_API_KEY") {
		t.Fatalf("voyage: %+v %q %v", s, reason, err)
	}
	// A SecretRef key and the gemini shape.
	t.Setenv("MY_GEMINI", "g-1")
	s, _, err = ResolveEmbeddings(cfg, EmbeddingConfig{Provider: "gemini", APIKey: map[string]any{"source": "env", "id": "MY_GEMINI"}})
	if err != nil || s == nil || s.API != EmbedAPIGemini || s.APIKey != "g-1" {
		t.Fatalf("gemini: %+v %v", s, err)
	}
	// local is not supported: said, not an error.
	if s, reason, err := ResolveEmbeddings(cfg, EmbeddingConfig{Provider: "local"}); s != nil || err != nil || !strings.Contains(reason, "not supported") {
		t.Fatalf("local: %+v %q %v", s, reason, err)
	}
	// An unknown id is a configuration error.
	if _, _, err := ResolveEmbeddings(cfg, EmbeddingConfig{Provider: "nope"}); err == nil {
		t.Fatal("unknown provider accepted")
	}
	// A models.providers entry (a local vLLM) needs no key, only a model.
	cfg2 := &config.Config{Doc: map[string]any{"models": map[string]any{"providers": map[string]any{
		"vllm": map[string]any{"baseUrl": "http://127.0.0.1:8000/v1"}}}}}
	s, _, err = ResolveEmbeddings(cfg2, EmbeddingConfig{Provider: "vllm", Model: "bge-m3"})
	if err != nil || s == nil || s.BaseURL != "http://127.0.0.1:8000/v1" || s.API != EmbedAPIOpenAI {
		t.Fatalf("vllm: %+v %v", s, err)
	}
}
