package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// clearSearchEnv unsets every provider key so the host's environment
// cannot pick the provider.
func clearSearchEnv(t *testing.T) {
	for _, p := range providers {
		for _, e := range p.EnvKeys {
			t.Setenv(e, "")
		}
	}
}

func searchEnv(t *testing.T, search map[string]any) *tools.Env {
	cfg := config.Empty()
	cfg.Doc["tools"] = map[string]any{"web": map[string]any{"search": search}}
	return &tools.Env{Config: cfg, StateDir: t.TempDir()}
}

func search(t *testing.T, env *tools.Env, params map[string]any) (gjson.Result, error) {
	t.Helper()
	b, _ := json.Marshal(params)
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: "web_search", Args: b})
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.ParseBytes(out).Get("details"), nil
}

func TestSearchBraveMapsParamsAndResults(t *testing.T) {
	clearSearchEnv(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		q := r.URL.Query()
		if r.URL.Path != "/res/v1/web/search" || r.Header.Get("X-Subscription-Token") != "BSA-test" ||
			q.Get("q") != "go release" || q.Get("count") != "3" || q.Get("country") != "DE" ||
			q.Get("search_lang") != "de" || q.Get("ui_lang") != "de-DE" || q.Get("freshness") != "pw" {
			http.Error(w, "bad request "+r.URL.String(), 422)
			return
		}
		fmt.Fprint(w, `{"type":"search","web":{"results":[{"title":"Go 1.26","url":"https://go.dev/doc/go1.26","description":"Release notes","age":"2 days ago"},{"title":"Blog","url":"https://go.dev/blog/"}]}}`)
	}))
	defer srv.Close()
	env := searchEnv(t, map[string]any{"apiKey": "BSA-test", "brave": map[string]any{"baseUrl": srv.URL}})
	env.Services = map[string]tools.Service{cacheService: newCache(10)}
	params := map[string]any{"query": "go release", "count": 3, "country": "DE", "search_lang": "de", "ui_lang": "de-DE", "freshness": "pw"}
	d, err := search(t, env, params)
	if err != nil {
		t.Fatal(err)
	}
	if d.Get("provider").String() != "brave" || d.Get("count").Int() != 2 || d.Get("results.0.url").String() != "https://go.dev/doc/go1.26" ||
		d.Get("results.0.siteName").String() != "go.dev" || d.Get("results.0.published").String() != "2 days ago" ||
		!strings.Contains(d.Get("results.0.title").String(), "Go 1.26") || !strings.Contains(d.Get("results.0.title").String(), "EXTERNAL_UNTRUSTED") ||
		!d.Get("externalContent.untrusted").Bool() {
		t.Errorf("payload %s", d.Raw)
	}
	d, err = search(t, env, params)
	if err != nil || !d.Get("cached").Bool() || hits.Load() != 1 {
		t.Errorf("second call: cached=%v hits=%d err=%v", d.Get("cached").Bool(), hits.Load(), err)
	}
	_, err = search(t, env, map[string]any{"query": "x", "freshness": "yesterday"})
	wantCode(t, err, tools.CodeInvalidParams, "freshness")
}

func TestSearchErrorsNameProviderAndFix(t *testing.T) {
	clearSearchEnv(t)
	_, err := search(t, searchEnv(t, map[string]any{}), map[string]any{"query": "x"})
	wantCode(t, err, tools.CodeFailed, "Brave Search", "openclaw configure --section web", "BRAVE_API_KEY")
	var te *tools.Error
	if errorsAs(err, &te); gjson.Get(mustJSON(te.Details), "error").String() != "missing_brave_api_key" {
		t.Errorf("details %v", te.Details)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"invalid token sk-secret-123"}`, 401)
	}))
	defer srv.Close()
	_, err = search(t, searchEnv(t, map[string]any{"provider": "grok", "grok": map[string]any{"apiKey": "sk-secret-123", "baseUrl": srv.URL}}),
		map[string]any{"query": "x"})
	wantCode(t, err, tools.CodeAuth, "Grok (xAI) API error (401)", "tools.web.search.grok.apiKey")
	if strings.Contains(err.Error(), "sk-secret-123") {
		t.Errorf("key leaked: %v", err)
	}
	_, err = search(t, searchEnv(t, map[string]any{"provider": "bing"}), map[string]any{"query": "x"})
	wantCode(t, err, tools.CodeInvalidParams, "unknown web search provider")
}

func TestSearchAutoDetectOrderFromEnv(t *testing.T) {
	clearSearchEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-goog-api-key") != "g-key" {
			http.Error(w, "wrong provider", 400)
			return
		}
		fmt.Fprint(w, `{"candidates":[{"content":{"parts":[{"text":"ok"}]}}]}`)
	}))
	defer srv.Close()
	t.Setenv("XAI_API_KEY", "x-key")
	t.Setenv("GEMINI_API_KEY", "g-key") // Gemini comes before Grok
	d, err := search(t, searchEnv(t, map[string]any{"gemini": map[string]any{"baseUrl": srv.URL}}), map[string]any{"query": "q"})
	if err != nil || d.Get("provider").String() != "gemini" {
		t.Fatalf("provider %s err %v", d.Get("provider").String(), err)
	}
}

// answerServer checks one provider's request and answers it.
func answerServer(t *testing.T, check func(r *http.Request, body gjson.Result) string, reply func(body gjson.Result) string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body := gjson.ParseBytes(b)
		if msg := check(r, body); msg != "" {
			t.Errorf("request: %s (%s %s %s)", msg, r.Method, r.URL.Path, b)
			http.Error(w, msg, 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, reply(body))
	}))
}

func TestSearchAnswerProviders(t *testing.T) {
	clearSearchEnv(t)
	cases := []struct {
		id, key, model string
		check          func(r *http.Request, b gjson.Result) string
		reply          func(b gjson.Result) string
		content, cite  string
	}{
		{"perplexity", "pplx-k", "perplexity/sonar-pro",
			func(r *http.Request, b gjson.Result) string {
				if r.URL.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer pplx-k" || b.Get("model").String() != "perplexity/sonar-pro" ||
					b.Get("messages.0.content").String() != "q" || b.Get("search_recency_filter").String() != "week" || r.Header.Get("X-Title") != "OpenClaw Web Search" {
					return "perplexity shape"
				}
				return ""
			},
			func(gjson.Result) string {
				return `{"choices":[{"message":{"content":"Sonar says"}}],"citations":["https://a.example/1"]}`
			}, "Sonar says", "https://a.example/1"},
		{"gemini", "g", "gemini-2.5-flash",
			func(r *http.Request, b gjson.Result) string {
				if r.URL.Path != "/models/gemini-2.5-flash:generateContent" || r.Header.Get("x-goog-api-key") != "g" ||
					b.Get("contents.0.parts.0.text").String() != "q" || !b.Get("tools.0.google_search").Exists() {
					return "gemini shape"
				}
				return ""
			},
			func(gjson.Result) string {
				return `{"candidates":[{"content":{"parts":[{"text":"Gem "},{"text":"ini"}]},"groundingMetadata":{"groundingChunks":[{"web":{"uri":"https://b.example/","title":"b"}}]}}]}`
			}, "Gem ini", "https://b.example/"},
		{"grok", "x", "grok-4-1-fast",
			func(r *http.Request, b gjson.Result) string {
				if r.URL.Path != "/responses" || r.Header.Get("Authorization") != "Bearer x" || b.Get("model").String() != "grok-4-1-fast" ||
					b.Get("input.0.content").String() != "q" || b.Get("tools.0.type").String() != "web_search" {
					return "grok shape"
				}
				return ""
			},
			func(gjson.Result) string {
				return `{"output":[{"type":"web_search_call"},{"type":"message","content":[{"type":"output_text","text":"Grok says","annotations":[{"type":"url_citation","url":"https://c.example/"}]}]}]}`
			}, "Grok says", "https://c.example/"},
		{"kimi", "k", "moonshot-v1-128k",
			func(r *http.Request, b gjson.Result) string {
				if r.URL.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer k" ||
					b.Get("tools.0.type").String() != "builtin_function" || b.Get("tools.0.function.name").String() != "$web_search" {
					return "kimi shape"
				}
				if n := len(b.Get("messages").Array()); n == 3 && (b.Get("messages.2.role").String() != "tool" ||
					b.Get("messages.2.content").String() != `{"search_result":{"search_id":"s1"},"url":"https://d.example/x"}` || b.Get("messages.2.tool_call_id").String() != "call1") {
					return "kimi tool echo"
				}
				return ""
			},
			func(b gjson.Result) string {
				if len(b.Get("messages").Array()) == 1 {
					return `{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":"","tool_calls":[{"id":"call1","type":"builtin_function","function":{"name":"$web_search","arguments":"{\"search_result\":{\"search_id\":\"s1\"},\"url\":\"https://d.example/x\"}"}}]}}]}`
				}
				return `{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"Kimi says"}}]}`
			}, "Kimi says", "https://d.example/x"},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			srv := answerServer(t, c.check, c.reply)
			defer srv.Close()
			env := searchEnv(t, map[string]any{"provider": c.id, c.id: map[string]any{"apiKey": c.key, "baseUrl": srv.URL}})
			d, err := search(t, env, map[string]any{"query": "q", "freshness": "week"})
			if c.id != "perplexity" {
				d, err = search(t, env, map[string]any{"query": "q"})
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Get("provider").String() != c.id || d.Get("model").String() != c.model ||
				!strings.Contains(d.Get("content").String(), c.content) || d.Get("citations.0").String() != c.cite {
				t.Errorf("payload %s", d.Raw)
			}
		})
	}
}

func errorsAs(err error, te **tools.Error) bool {
	e, ok := err.(*tools.Error)
	if ok {
		*te = e
	}
	return ok
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
