package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/failure"
)

// Embedding request shapes: one for the OpenAI /v1/embeddings family
// (OpenAI, Voyage, Mistral, Ollama, vLLM, llama.cpp server, LM Studio) and
// Gemini's models/<m>:batchEmbedContents.
const (
	EmbedAPIOpenAI = "openai-embeddings"
	EmbedAPIGemini = "gemini-embeddings"
)

// Embedding limits. A request carries at most embedBatchInputs texts and
// about embedBatchChars characters (memory chunks are ≤1600 characters, so
// a batch stays far below every provider's token cap); responses are read up
// to embedMaxResponse bytes.
const (
	embedBatchInputs = 64
	embedBatchChars  = 120_000
	embedMaxResponse = 64 << 20
	// DefaultEmbedTimeout bounds one embeddings request when the caller
	// sets none.
	DefaultEmbedTimeout = 60 * time.Second
)

// EmbeddingSettings is a resolved embeddings endpoint.
type EmbeddingSettings struct {
	Provider string // openai, gemini, voyage, mistral, ollama (or a models.providers id)
	Model    string
	API      string // EmbedAPIOpenAI or EmbedAPIGemini
	BaseURL  string // without the endpoint: .../v1 or .../v1beta
	APIKey   string
	Headers  map[string]string
	// Timeout bounds each request (0: DefaultEmbedTimeout); the caller's
	// context bounds them all.
	Timeout time.Duration
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
}

// Embedder turns texts into vectors, one per text, in order.
type Embedder struct {
	s EmbeddingSettings
}

// NewEmbedder checks the settings and returns the client.
func NewEmbedder(s EmbeddingSettings) (*Embedder, error) {
	if s.BaseURL == "" {
		return nil, failure.Errorf(failure.CodeInvalidParams, "embeddings %s: no base URL", s.Provider)
	}
	if s.Model == "" {
		return nil, failure.Errorf(failure.CodeInvalidParams, "embeddings %s: no model", s.Provider)
	}
	switch s.API {
	case "":
		s.API = EmbedAPIOpenAI
	case EmbedAPIOpenAI, EmbedAPIGemini:
	default:
		return nil, failure.Errorf(failure.CodeInvalidParams, "embeddings %s: unknown API %q", s.Provider, s.API)
	}
	s.BaseURL = strings.TrimRight(s.BaseURL, "/")
	if s.Timeout <= 0 {
		s.Timeout = DefaultEmbedTimeout
	}
	return &Embedder{s: s}, nil
}

// Provider is the provider id (as results report it).
func (e *Embedder) Provider() string { return e.s.Provider }

// Model is the embedding model.
func (e *Embedder) Model() string { return e.s.Model }

// Key identifies the vector space: vectors of one key are comparable, so
// a cache keyed by it survives a base URL change (a proxy, another port).
func (e *Embedder) Key() string { return e.s.Provider + "/" + e.s.Model }

// EmbedQuery embeds one search query.
func (e *Embedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := e.embed(ctx, []string{text}, "RETRIEVAL_QUERY")
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// EmbedDocuments embeds texts in batches; onBatch (optional) hears each
// batch's vectors as it arrives, so a caller can keep what was done when a
// later batch fails.
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string, onBatch func(start int, vecs [][]float32) error) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); {
		end, chars := start, 0
		for end < len(texts) && end-start < embedBatchInputs && (end == start || chars+len(texts[end]) <= embedBatchChars) {
			chars += len(texts[end])
			end++
		}
		vecs, err := e.embed(ctx, texts[start:end], "RETRIEVAL_DOCUMENT")
		if err != nil {
			return out, err
		}
		if onBatch != nil {
			if err := onBatch(start, vecs); err != nil {
				return out, err
			}
		}
		out = append(out, vecs...)
		start = end
	}
	return out, nil
}

func (e *Embedder) embed(ctx context.Context, texts []string, task string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, e.s.Timeout)
	defer cancel()
	var url string
	var body any
	headers := map[string]string{}
	switch e.s.API {
	case EmbedAPIGemini:
		model := e.s.Model
		if !strings.HasPrefix(model, "models/") {
			model = "models/" + model
		}
		url = e.s.BaseURL + "/" + model + ":batchEmbedContents"
		reqs := make([]geminiEmbedRequest, len(texts))
		for i, t := range texts {
			reqs[i].Model = model
			reqs[i].Content.Parts = []geminiPart{{Text: t}}
			reqs[i].TaskType = task
		}
		body = map[string]any{"requests": reqs}
		if e.s.APIKey != "" {
			headers["x-goog-api-key"] = e.s.APIKey
		}
	default:
		url = e.s.BaseURL + "/embeddings"
		body = map[string]any{"model": e.s.Model, "input": texts}
		if e.s.APIKey != "" {
			headers["Authorization"] = "Bearer " + e.s.APIKey
		}
	}
	raw, err := e.post(ctx, url, body, headers)
	if err != nil {
		return nil, err
	}
	var vecs [][]float32
	if e.s.API == EmbedAPIGemini {
		vecs, err = parseGemini(raw, len(texts))
	} else {
		vecs, err = parseOpenAI(raw, len(texts))
	}
	if err != nil {
		return nil, fmt.Errorf("embeddings %s: %w", e.s.Provider, err)
	}
	return vecs, nil
}

type geminiPart struct {
	Text string `json:"text"`
}

type geminiEmbedRequest struct {
	Model   string `json:"model"`
	Content struct {
		Parts []geminiPart `json:"parts"`
	} `json:"content"`
	TaskType string `json:"taskType,omitempty"`
}

// post sends the JSON body and returns the 2xx response body (capped).
func (e *Embedder) post(ctx context.Context, url string, body any, headers map[string]string) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("embeddings %s: encode request: %w", e.s.Provider, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("embeddings %s: %w", e.s.Provider, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	for k, v := range e.s.Headers {
		req.Header.Set(k, v)
	}
	client := e.s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, e.transportErr(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		code := failure.CodeFailed
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			code = failure.CodeAuth
		}
		return nil, failure.Errorf(code, "embeddings %s: HTTP %d from %s: %s",
			e.s.Provider, resp.StatusCode, url, strings.TrimSpace(string(msg)))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, embedMaxResponse+1))
	if err != nil {
		return nil, e.transportErr(ctx, err)
	}
	if len(data) > embedMaxResponse {
		return nil, failure.Errorf(failure.CodeFailed, "embeddings %s: response larger than %d bytes", e.s.Provider, embedMaxResponse)
	}
	return data, nil
}

func (e *Embedder) transportErr(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return failure.Wrap(failure.CodeTimeout, "embeddings "+e.s.Provider+": timed out", err)
	case ctx.Err() != nil:
		return failure.Wrap(failure.CodeInterrupted, "embeddings "+e.s.Provider+": cancelled", err)
	}
	return failure.Wrap(failure.CodeUnreachable, fmt.Sprintf("embeddings %s: %v", e.s.Provider, err), err)
}

// parseOpenAI reads {data:[{index, embedding}]}, ordered by index.
func parseOpenAI(raw []byte, n int) ([][]float32, error) {
	var r struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("malformed response: %w", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("malformed response: %d embeddings for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	for i, d := range r.Data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= n || out[at] != nil || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("malformed response: bad or repeated embedding index %d", at)
		}
		out[at] = d.Embedding
	}
	return out, nil
}

// parseGemini reads {embeddings:[{values}]} in request order.
func parseGemini(raw []byte, n int) ([][]float32, error) {
	var r struct {
		Embeddings []struct {
			Values []float32 `json:"values"`
		} `json:"embeddings"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("malformed response: %w", err)
	}
	if len(r.Embeddings) != n {
		return nil, fmt.Errorf("malformed response: %d embeddings for %d inputs", len(r.Embeddings), n)
	}
	out := make([][]float32, n)
	for i, e := range r.Embeddings {
		if len(e.Values) == 0 {
			return nil, fmt.Errorf("malformed response: empty embedding %d", i)
		}
		out[i] = e.Values
	}
	return out, nil
}
