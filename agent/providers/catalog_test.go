package providers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

func catalogConfig(t *testing.T) *config.Config {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("CATALOG_TEST_KEY", "from-env")
	return &config.Config{Doc: map[string]any{"models": map[string]any{"providers": map[string]any{
		"local": map[string]any{"baseUrl": "http://127.0.0.1:11434/v1", "models": []any{
			map[string]any{"id": "llama3", "name": "Llama 3", "contextWindow": 8192, "input": []any{"text"}, "reasoning": false},
		}},
		"remote": map[string]any{"baseUrl": "https://llm.example.com/v1", "models": []any{
			map[string]any{"id": "big", "contextWindow": 0, "compat": map[string]any{"supportsTools": true}},
		}},
		"keyed": map[string]any{"baseUrl": "https://api.example.org", "api": "anthropic-messages",
			"apiKey": map[string]any{"source": "env", "id": "CATALOG_TEST_KEY"},
			"models": []any{map[string]any{"id": "claude-x", "input": []any{"text", "image"}, "reasoning": true}}},
	}}, "agents": map[string]any{"defaults": map[string]any{"models": map[string]any{"keyed/claude-x": map[string]any{"alias": "cx"}}}}}}
}

func rows(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The catalog is what models.providers.* configures, in the original's
// public row shape: id, name, provider, alias, contextWindow, reasoning,
// supportsTools, available (auth present, or a local endpoint).
func TestCatalogRows(t *testing.T) {
	cfg := catalogConfig(t)
	got, err := Catalog(cfg, CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"claude-x","name":"claude-x","provider":"keyed","alias":"cx","reasoning":true,"available":true},` +
		`{"id":"llama3","name":"Llama 3","provider":"local","contextWindow":8192,"reasoning":false,"available":true},` +
		`{"id":"big","name":"big","provider":"remote","supportsTools":true,"available":false,"unavailableReason":"missing-auth"}]`
	if s := rows(t, got); s != want {
		t.Fatalf("catalog\n got %s\nwant %s", s, want)
	}
	// includeDetails adds input and whether the endpoint is local.
	got, err = Catalog(cfg, CatalogOptions{Provider: "local", IncludeDetails: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := rows(t, got); s != `[{"id":"llama3","name":"Llama 3","provider":"local","contextWindow":8192,"local":true,"input":["text"],"reasoning":false,"available":true}]` {
		t.Fatalf("details: %s", s)
	}
	if _, err := Catalog(cfg, CatalogOptions{Provider: "nope"}); err == nil || !strings.Contains(err.Error(), "Unknown model catalog provider") {
		t.Fatalf("unknown provider: %v", err)
	}
	empty, err := Catalog(config.Empty(), CatalogOptions{})
	if err != nil || rows(t, empty) != "[]" {
		t.Fatalf("empty: %v %s", err, rows(t, empty))
	}
}
