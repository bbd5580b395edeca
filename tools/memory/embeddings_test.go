package memory_test

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// embedServer speaks the OpenAI /v1/embeddings shape (and Gemini's
// batchEmbedContents) on loopback. Its vectors are bags of hashed words
// where a few topic words share a dimension and weigh more, so
// "automobile" is near "car" though they share no letters: a semantic
// match BM25 cannot make.
type embedServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	inputs   []string // every text embedded, in order
	auth     []string // Authorization (or x-goog-api-key) of each request
	paths    []string
	status   int // answer this status instead when non-zero
}

var synonyms = map[string]string{
	"automobile": "car", "vehicle": "car", "cars": "car", "car": "car",
	"physician": "doctor", "medic": "doctor", "doctor": "doctor",
}

const embedDims = 64

func bagVector(text string) []float32 {
	v := make([]float32, embedDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		weight := float32(1)
		if s, ok := synonyms[w]; ok {
			w, weight = s, 4
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%embedDims] += weight
	}
	return v
}

func newEmbedServer(t testing.TB) *embedServer {
	t.Helper()
	es := &embedServer{}
	es.Server = httptest.NewServer(http.HandlerFunc(es.serve))
	t.Cleanup(es.Close)
	return es
}

func (es *embedServer) serve(w http.ResponseWriter, r *http.Request) {
	es.mu.Lock()
	status := es.status
	es.requests++
	es.paths = append(es.paths, r.URL.Path)
	auth := r.Header.Get("Authorization")
	if k := r.Header.Get("x-goog-api-key"); k != "" {
		auth = "goog " + k
	}
	es.auth = append(es.auth, auth)
	es.mu.Unlock()
	if status != 0 {
		http.Error(w, `{"error":{"message":"model overloaded"}}`, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if strings.HasSuffix(r.URL.Path, ":batchEmbedContents") {
		var req struct {
			Requests []struct {
				Model   string `json:"model"`
				Content struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"requests"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var out []map[string]any
		for _, q := range req.Requests {
			es.record(q.Content.Parts[0].Text)
			out = append(out, map[string]any{"values": bagVector(q.Content.Parts[0].Text)})
		}
		json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/embeddings" {
		http.Error(w, fmt.Sprintf("bad request %s: %v", r.URL.Path, err), 400)
		return
	}
	data := make([]map[string]any, len(req.Input))
	// Answer in reverse order: clients must place vectors by index.
	for i := len(req.Input) - 1; i >= 0; i-- {
		es.record(req.Input[i])
		data[len(req.Input)-1-i] = map[string]any{"object": "embedding", "index": i, "embedding": bagVector(req.Input[i])}
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}

func (es *embedServer) record(s string) {
	es.mu.Lock()
	es.inputs = append(es.inputs, s)
	es.mu.Unlock()
}

// counts returns and resets what the server saw.
func (es *embedServer) take() (requests int, inputs []string) {
	es.mu.Lock()
	defer es.mu.Unlock()
	requests, inputs = es.requests, es.inputs
	es.requests, es.inputs = 0, nil
	return
}

// withMemorySearch configures agents.defaults.memorySearch.
func withMemorySearch(env *tools.Env, ms map[string]any) {
	env.Config = &config.Config{Doc: map[string]any{
		"agents": map[string]any{"defaults": map[string]any{"memorySearch": ms}},
	}}
}

// noEmbeddingKeys clears the environment variables a provider key may
// come from, so "auto" finds none.
func noEmbeddingKeys(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "VOYAGE_API_KEY", "MISTRAL_API_KEY"} {
		t.Setenv(k, "")
	}
}

func garageNotes() map[string]string {
	notes := map[string]string{
		"MEMORY.md":             "# Preferences\nThe user prefers green tea and short answers.\n",
		"memory/garage.md":      "# Garage\nMy car is a red Volvo, serviced every March at the dealer.\n",
		"memory/2026-03-02.md":  "# Budget review\nThe quarterly budget for the kiosk project was approved.\n",
		"memory/people/bob.md":  "# Bob\nBob is the physician who treats the user's back pain.\n",
		"memory/travel/rome.md": "# Rome\nFlights to Rome booked for the conference in May.\n",
	}
	for i := range 12 {
		notes[fmt.Sprintf("memory/filler/%02d.md", i)] = fmt.Sprintf("# Day %d\nRoutine work on documentation and tests.\n", i)
	}
	return notes
}

func TestHybridRanksASemanticMatchBM25Misses(t *testing.T) {
	noEmbeddingKeys(t)
	srv := newEmbedServer(t)
	env, _ := newEnv(t, garageNotes())

	// Keywords alone cannot connect "automobile" with the car note.
	r, err := invoke(t, env, "memory_search", map[string]any{"query": "automobile"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths(r.Get("details.results").Array()) {
		if p == "memory/garage.md" {
			t.Fatalf("BM25 alone found the car note; the test proves nothing")
		}
	}

	withMemorySearch(env, map[string]any{
		"provider": "openai", "model": "text-embedding-3-small",
		"remote": map[string]any{"baseUrl": srv.URL + "/v1", "apiKey": "sk-mem"},
	})
	r, err = invoke(t, env, "memory_search", map[string]any{"query": "automobile"})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Get("details")
	if d.Get("mode").String() != "hybrid" || d.Get("provider").String() != "openai" ||
		d.Get("model").String() != "text-embedding-3-small" {
		t.Fatalf("mode/provider/model: %s", d.Raw)
	}
	hits := d.Get("results").Array()
	if len(hits) == 0 || hits[0].Get("path").String() != "memory/garage.md" {
		t.Fatalf("first hit %v, want memory/garage.md: %s", paths(hits), d.Raw)
	}
	if hits[0].Get("vectorScore").Float() <= 0 || hits[0].Get("score").Float() < 0.35 {
		t.Errorf("scores: %s", hits[0].Raw)
	}
	if d.Get("fallback").Exists() || d.Get("warning").Exists() {
		t.Errorf("unexpected fallback/warning: %s", d.Raw)
	}
	srv.mu.Lock()
	for _, a := range srv.auth {
		if a != "Bearer sk-mem" {
			t.Errorf("Authorization %q, want the remote.apiKey", a)
		}
	}
	srv.mu.Unlock()

	// A keyword match still counts in hybrid mode: both legs agree here.
	hits = search(t, env, "kiosk budget")
	if len(hits) == 0 || hits[0].Get("path").String() != "memory/2026-03-02.md" {
		t.Fatalf("kiosk budget: %v", paths(hits))
	}
	if hits[0].Get("textScore").Float() <= 0 {
		t.Errorf("no text score: %s", hits[0].Raw)
	}
}

func TestEditReembedsOnlyTheChangedChunks(t *testing.T) {
	noEmbeddingKeys(t)
	srv := newEmbedServer(t)
	notes := garageNotes()
	for i := range 150 { // more chunks than one batch holds
		notes[fmt.Sprintf("memory/log/%03d.md", i)] = fmt.Sprintf("# Log %d\nEntry number %d about item%d.\n", i, i, i)
	}
	env, ws := newEnv(t, notes)
	withMemorySearch(env, map[string]any{
		"provider": "openai",
		"remote":   map[string]any{"baseUrl": srv.URL + "/v1", "apiKey": "k"},
	})
	r, err := invoke(t, env, "memory_index", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := int(r.Get("details.chunks").Int())
	reqs, inputs := srv.take()
	if len(inputs) != chunks || chunks != len(notes) {
		t.Fatalf("first index embedded %d texts for %d chunks (%d notes)", len(inputs), chunks, len(notes))
	}
	if want := (chunks + 63) / 64; reqs != want {
		t.Errorf("first index: %d requests, want %d (batches of 64)", reqs, want)
	}
	if r.Get("details.embeddings.embedded").Int() != int64(chunks) {
		t.Errorf("index result: %s", r.Get("details").Raw)
	}

	// Nothing changed: nothing is embedded.
	if _, err := invoke(t, env, "memory_index", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if reqs, _ := srv.take(); reqs != 0 {
		t.Fatalf("unchanged notes: %d requests", reqs)
	}

	// Touched, not edited: no request either.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(ws, "memory", "log", "007.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := invoke(t, env, "memory_index", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if reqs, _ := srv.take(); reqs != 0 {
		t.Fatalf("touched note: %d requests", reqs)
	}

	// One note edited: one request, with that note's new chunk only.
	writeNote(t, ws, "memory/log/042.md", "# Log 42\nThe vehicle got new tyres today.\n")
	if _, err := invoke(t, env, "memory_index", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	reqs, inputs = srv.take()
	if reqs != 1 || len(inputs) != 1 || !strings.Contains(inputs[0], "new tyres") {
		t.Fatalf("after one edit: %d requests, inputs %q", reqs, inputs)
	}

	// A search embeds the query and nothing else; the edit is found.
	hits := search(t, env, "automobile tyres")
	reqs, inputs = srv.take()
	if reqs != 1 || len(inputs) != 1 || inputs[0] != "automobile tyres" {
		t.Fatalf("search: %d requests, inputs %q", reqs, inputs)
	}
	if len(hits) == 0 || hits[0].Get("path").String() != "memory/log/042.md" {
		t.Fatalf("hits %v", paths(hits))
	}
}

func TestNoEmbeddingKeyMeansKeywordOnlySaidSo(t *testing.T) {
	noEmbeddingKeys(t)
	env, _ := newEnv(t, garageNotes())
	for name, ms := range map[string]map[string]any{
		"unset":              nil,
		"auto":               {"provider": "auto"},
		"openai without key": {"provider": "openai"},
		"gemini without key": {"provider": "gemini", "model": "gemini-embedding-001"},
	} {
		t.Run(name, func(t *testing.T) {
			if ms != nil {
				withMemorySearch(env, ms)
			}
			r, err := invoke(t, env, "memory_search", map[string]any{"query": "kiosk budget"})
			if err != nil {
				t.Fatalf("search failed without a key: %v", err)
			}
			d := r.Get("details")
			if d.Get("mode").String() != "keyword-only" || d.Get("provider").String() != "none" {
				t.Errorf("mode/provider: %s", d.Raw)
			}
			boot := d.Get("debug.embeddingBootstrap")
			if boot.Get("ok").Bool() || boot.Get("degradedTo").String() != "keyword-only" || boot.Get("reason").String() == "" {
				t.Errorf("embeddingBootstrap: %s", boot.Raw)
			}
			if hits := d.Get("results").Array(); len(hits) == 0 || hits[0].Get("path").String() != "memory/2026-03-02.md" {
				t.Errorf("BM25 results: %v", paths(hits))
			}
			if d.Get("fallback").Exists() {
				t.Errorf("no provider is not a fallback: %s", d.Raw)
			}
		})
	}
	// memory index says the index is keyword-only and why.
	withMemorySearch(env, map[string]any{"provider": "openai"})
	r, err := invoke(t, env, "memory_index", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if w := r.Get("details.warning").String(); !strings.Contains(w, "keyword search only") || !strings.Contains(w, "apiKey") {
		t.Errorf("index warning %q", w)
	}
}

func TestAutoPicksTheProviderWithAKey(t *testing.T) {
	noEmbeddingKeys(t)
	t.Setenv("OPENAI_API_KEY", "sk-env")
	srv := newEmbedServer(t)
	env, _ := newEnv(t, garageNotes())
	env.Config = &config.Config{Doc: map[string]any{
		"models": map[string]any{"providers": map[string]any{"openai": map[string]any{"baseUrl": srv.URL + "/v1"}}},
	}}
	r, err := invoke(t, env, "memory_search", map[string]any{"query": "automobile"})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Get("details")
	if d.Get("mode").String() != "hybrid" || d.Get("provider").String() != "openai" ||
		d.Get("model").String() != "text-embedding-3-small" {
		t.Fatalf("auto: %s", d.Raw)
	}
	if hits := d.Get("results").Array(); len(hits) == 0 || hits[0].Get("path").String() != "memory/garage.md" {
		t.Fatalf("hits %v", paths(hits))
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.auth[0] != "Bearer sk-env" {
		t.Errorf("auth %q", srv.auth[0])
	}
}

func TestProviderDownFallsBackToKeywordsWithAWarning(t *testing.T) {
	noEmbeddingKeys(t)
	for _, tc := range []struct {
		name string
		down func(*embedServer)
		want string
	}{
		{"refused", func(s *embedServer) { s.Close() }, "embeddings openai"},
		{"http 503", func(s *embedServer) { s.mu.Lock(); s.status = 503; s.mu.Unlock() }, "HTTP 503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newEmbedServer(t)
			env, _ := newEnv(t, garageNotes())
			withMemorySearch(env, map[string]any{
				"provider": "openai",
				"remote":   map[string]any{"baseUrl": srv.URL + "/v1", "apiKey": "k"},
			})
			// Embed once while up, so the vectors exist and only the
			// query's embedding fails.
			if hits := search(t, env, "automobile"); len(hits) == 0 {
				t.Fatal("no hits while the provider is up")
			}
			tc.down(srv)
			r, err := invoke(t, env, "memory_search", map[string]any{"query": "kiosk budget"})
			if err != nil {
				t.Fatalf("search failed with the provider down: %v", err)
			}
			d := r.Get("details")
			if d.Get("mode").String() != "keyword-only" {
				t.Errorf("mode: %s", d.Raw)
			}
			if d.Get("fallback.from").String() != "openai" || d.Get("fallback.to").String() != "keyword-only" ||
				!strings.Contains(d.Get("fallback.reason").String(), tc.want) {
				t.Errorf("fallback: %s", d.Get("fallback").Raw)
			}
			if w := d.Get("warning").String(); !strings.Contains(w, "keyword-only") || !strings.Contains(w, tc.want) {
				t.Errorf("warning %q", w)
			}
			if hits := d.Get("results").Array(); len(hits) == 0 || hits[0].Get("path").String() != "memory/2026-03-02.md" {
				t.Errorf("BM25 results: %v", paths(hits))
			}
		})
	}
}

func TestPerAgentOverrideAndVectorOnly(t *testing.T) {
	noEmbeddingKeys(t)
	srv := newEmbedServer(t)
	env, _ := newEnv(t, garageNotes())
	env.Config = &config.Config{Doc: map[string]any{
		"agents": map[string]any{
			"defaults": map[string]any{"memorySearch": map[string]any{
				"provider": "openai",
				"remote":   map[string]any{"baseUrl": srv.URL + "/v1", "apiKey": "k"},
			}},
			"list": []any{
				map[string]any{"id": "main"},
				map[string]any{"id": "plain", "memorySearch": map[string]any{"provider": "none"}},
				map[string]any{"id": "vec", "memorySearch": map[string]any{"query": map[string]any{"hybrid": map[string]any{"enabled": false}}}},
			},
		},
	}}
	for agent, want := range map[string]string{"main": "hybrid", "plain": "keyword-only", "vec": "vector-only"} {
		e := *env
		e.Subject.AgentID = agent
		r, err := invoke(t, &e, "memory_search", map[string]any{"query": "automobile"})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Get("details.mode").String(); got != want {
			t.Errorf("agent %s: mode %s, want %s (%s)", agent, got, want, r.Get("details").Raw)
		}
		if want == "vector-only" {
			if hits := r.Get("details.results").Array(); len(hits) == 0 || hits[0].Get("path").String() != "memory/garage.md" {
				t.Errorf("vector-only hits %v", paths(hits))
			}
		}
	}
}

func TestGeminiBatchEmbedContents(t *testing.T) {
	noEmbeddingKeys(t)
	srv := newEmbedServer(t)
	env, _ := newEnv(t, garageNotes())
	withMemorySearch(env, map[string]any{
		"provider": "gemini",
		"remote":   map[string]any{"baseUrl": srv.URL + "/v1beta", "apiKey": "g-key"},
	})
	r, err := invoke(t, env, "memory_search", map[string]any{"query": "automobile"})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Get("details")
	if d.Get("mode").String() != "hybrid" || d.Get("provider").String() != "gemini" || d.Get("model").String() != "gemini-embedding-001" {
		t.Fatalf("gemini: %s", d.Raw)
	}
	if hits := d.Get("results").Array(); len(hits) == 0 || hits[0].Get("path").String() != "memory/garage.md" {
		t.Fatalf("hits %v", paths(hits))
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for i, p := range srv.paths {
		if p != "/v1beta/models/gemini-embedding-001:batchEmbedContents" || srv.auth[i] != "goog g-key" {
			t.Errorf("request %d: %s auth %q", i, p, srv.auth[i])
		}
	}
}

func TestVectorsOfDeletedNotesAreKeptUpToMaxEntries(t *testing.T) {
	noEmbeddingKeys(t)
	for _, tc := range []struct {
		name  string
		cache map[string]any
		want  int // requests when the deleted note comes back unchanged
	}{
		{"default keeps them", nil, 0},
		{"maxEntries 0 drops them", map[string]any{"maxEntries": 0}, 1},
		{"cache disabled drops them", map[string]any{"enabled": false}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newEmbedServer(t)
			env, ws := newEnv(t, garageNotes())
			ms := map[string]any{"provider": "openai", "remote": map[string]any{"baseUrl": srv.URL + "/v1", "apiKey": "k"}}
			if tc.cache != nil {
				ms["cache"] = tc.cache
			}
			withMemorySearch(env, ms)
			if _, err := invoke(t, env, "memory_index", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			body, err := os.ReadFile(filepath.Join(ws, "memory", "garage.md"))
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(ws, "memory", "garage.md"))
			if _, err := invoke(t, env, "memory_index", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			srv.take()
			writeNote(t, ws, "memory/garage.md", string(body))
			if _, err := invoke(t, env, "memory_index", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			if reqs, _ := srv.take(); reqs != tc.want {
				t.Fatalf("restored note: %d requests, want %d", reqs, tc.want)
			}
		})
	}
}

func TestFallbackProviderTakesOverWhenThePrimaryFails(t *testing.T) {
	noEmbeddingKeys(t)
	down := newEmbedServer(t)
	down.Close()
	backup := newEmbedServer(t)
	env, _ := newEnv(t, garageNotes())
	env.Config = &config.Config{Doc: map[string]any{
		"models": map[string]any{"providers": map[string]any{"ollama": map[string]any{"baseUrl": backup.URL + "/v1"}}},
		"agents": map[string]any{"defaults": map[string]any{"memorySearch": map[string]any{
			"provider": "openai", "fallback": "ollama",
			"remote": map[string]any{"baseUrl": down.URL + "/v1", "apiKey": "k"},
		}}},
	}}
	r, err := invoke(t, env, "memory_search", map[string]any{"query": "automobile"})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Get("details")
	if d.Get("mode").String() != "hybrid" || d.Get("provider").String() != "ollama" || d.Get("model").String() != "nomic-embed-text" {
		t.Fatalf("fallback provider: %s", d.Raw)
	}
	if d.Get("fallback.from").String() != "openai" || d.Get("fallback.to").String() != "ollama" ||
		!strings.Contains(d.Get("warning").String(), "using ollama") {
		t.Errorf("fallback note: %s", d.Raw)
	}
	if hits := d.Get("results").Array(); len(hits) == 0 || hits[0].Get("path").String() != "memory/garage.md" {
		t.Fatalf("hits %v", paths(hits))
	}
	if reqs, _ := backup.take(); reqs == 0 {
		t.Error("the fallback server saw no request")
	}
}
