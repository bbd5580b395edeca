package providers

import (
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
)

// Settings is one models.providers.<id> entry, resolved.
type Settings struct {
	ID      string
	BaseURL string
	APIKey  string
	API     string
	Headers map[string]string
	Models  []ModelInfo
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
}

// ModelInfo is one entry of models.providers.<id>.models.
type ModelInfo struct {
	ID            string       `json:"id"`
	Name          string       `json:"name,omitempty"`
	Input         []string     `json:"input,omitempty"`
	MaxTokens     int          `json:"maxTokens,omitempty"`
	ContextWindow float64      `json:"contextWindow,omitempty"`
	ContextTokens float64      `json:"contextTokens,omitempty"`
	Reasoning     *bool        `json:"reasoning,omitempty"`
	Compat        *ModelCompat `json:"compat,omitempty"`
}

// ModelCompat holds the per-model quirks the catalog reports.
type ModelCompat struct {
	SupportsTools *bool `json:"supportsTools,omitempty"`
}

// SupportsImages reports whether the model declares image input.
func (m ModelInfo) SupportsImages() bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// Known providers' defaults, used when config names them without a baseUrl
// or api (and for their keys in the environment).
var builtins = map[string]struct{ baseURL, api, env string }{
	"openai":    {"https://api.openai.com/v1", APIOpenAICompletions, "OPENAI_API_KEY"},
	"anthropic": {"https://api.anthropic.com", APIAnthropicMessages, "ANTHROPIC_API_KEY"},
	"ollama":    {"http://127.0.0.1:11434/v1", APIOpenAICompletions, ""},
}

// rawProvider is the config shape of one provider.
type rawProvider struct {
	BaseURL string            `json:"baseUrl"`
	APIKey  any               `json:"apiKey"`
	API     string            `json:"api"`
	Headers map[string]string `json:"headers"`
	Models  []ModelInfo       `json:"models"`
}

func providersDoc(cfg *config.Config) map[string]rawProvider {
	out := map[string]rawProvider{}
	if cfg != nil {
		_ = cfg.Decode("models.providers", &out)
	}
	return out
}

// IDs lists the configured provider ids, sorted.
func IDs(cfg *config.Config) []string {
	var ids []string
	for id := range providersDoc(cfg) {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Lookup resolves provider id from config (models.providers.<id>), filling
// built-in defaults for well-known ids. Unknown ids are NOT_FOUND.
func Lookup(cfg *config.Config, id string) (*Settings, error) {
	raw, ok := providersDoc(cfg)[id]
	b, builtin := builtins[id]
	if !ok && !builtin {
		return nil, failure.Errorf(failure.CodeNotFound,
			"unknown model provider %q: add it under models.providers.%s {baseUrl, apiKey, api}", id, id)
	}
	s := &Settings{ID: id, BaseURL: raw.BaseURL, API: raw.API, Headers: raw.Headers, Models: raw.Models}
	s.APIKey = config.Secret(raw.APIKey)
	if builtin {
		if s.BaseURL == "" {
			s.BaseURL = b.baseURL
		}
		if s.API == "" {
			s.API = b.api
		}
		if s.APIKey == "" && b.env != "" {
			s.APIKey = strings.TrimSpace(os.Getenv(b.env))
		}
	}
	if s.API == "" {
		s.API = APIOpenAICompletions
	}
	if s.BaseURL == "" {
		return nil, failure.Errorf(failure.CodeInvalidParams, "models.providers.%s.baseUrl is not set", id)
	}
	s.BaseURL = strings.TrimRight(s.BaseURL, "/")
	return s, nil
}

// New builds the Provider for these settings.
func New(s *Settings) (Provider, error) {
	switch s.API {
	case APIOpenAICompletions:
		return &openAI{s: s}, nil
	case APIAnthropicMessages:
		return &anthropic{s: s}, nil
	}
	return nil, failure.Errorf(failure.CodeInvalidParams,
		"models.providers.%s.api %q is not supported (use %q or %q)", s.ID, s.API, APIOpenAICompletions, APIAnthropicMessages)
}

// Model returns the catalog entry for model, if the provider lists it.
func (s *Settings) Model(model string) (ModelInfo, bool) {
	for _, m := range s.Models {
		if m.ID == model {
			return m, true
		}
	}
	return ModelInfo{}, false
}

// CheckListed refuses a model its provider does not list, when the
// provider lists its models (models.providers.<id>.models); a provider
// configured without a list takes any model id.
func CheckListed(s *Settings, r Ref) error {
	if len(s.Models) == 0 {
		return nil
	}
	if _, ok := s.Model(r.Model); ok {
		return nil
	}
	ids := make([]string, 0, len(s.Models))
	for _, m := range s.Models {
		if m.ID != "" {
			ids = append(ids, s.ID+"/"+m.ID)
		}
	}
	return failure.Errorf(failure.CodeInvalidParams, "provider %s does not list model %s (known: %s); use one of those or add it to models.providers.%s.models",
		s.ID, r.Model, strings.Join(ids, ", "), s.ID)
}

// Ref is a parsed "provider/model" reference.
type Ref struct{ Provider, Model string }

func (r Ref) String() string { return r.Provider + "/" + r.Model }

// ParseRef splits "provider/model" at the first slash (model ids such as
// "meta-llama/Llama-3" keep theirs).
func ParseRef(s string) (Ref, error) {
	s = strings.TrimSpace(s)
	p, m, ok := strings.Cut(s, "/")
	if !ok || p == "" || m == "" {
		return Ref{}, failure.Errorf(failure.CodeInvalidParams, "model %q: use provider/model (e.g. openai/gpt-4o-mini)", s)
	}
	return Ref{Provider: p, Model: m}, nil
}

// Resolve returns the Provider and settings for a provider/model reference.
func Resolve(cfg *config.Config, ref string) (Provider, *Settings, Ref, error) {
	r, err := ParseRef(ref)
	if err != nil {
		return nil, nil, Ref{}, err
	}
	s, err := Lookup(cfg, r.Provider)
	if err != nil {
		return nil, nil, r, err
	}
	p, err := New(s)
	return p, s, r, err
}

// ModelRefs reads an agentModel value ("p/m" or {primary, fallbacks}) at
// path: the primary first, then fallbacks. Empty when unset.
func ModelRefs(cfg *config.Config, path string) []string {
	if cfg == nil {
		return nil
	}
	v, ok := cfg.Get(path)
	if !ok {
		return nil
	}
	var out []string
	switch m := v.(type) {
	case string:
		if strings.TrimSpace(m) != "" {
			out = append(out, strings.TrimSpace(m))
		}
	case map[string]any:
		if p, _ := m["primary"].(string); strings.TrimSpace(p) != "" {
			out = append(out, strings.TrimSpace(p))
		}
		if fb, ok := m["fallbacks"].([]any); ok {
			for _, f := range fb {
				if s, _ := f.(string); strings.TrimSpace(s) != "" {
					out = append(out, strings.TrimSpace(s))
				}
			}
		}
	}
	return out
}

// DefaultModel is agents.defaults.model's primary, or "".
func DefaultModel(cfg *config.Config) string {
	if r := ModelRefs(cfg, "agents.defaults.model"); len(r) > 0 {
		return r[0]
	}
	return ""
}

// ImageModels lists the image models to try, in order, following the
// spec: agents.defaults.imageModel (primary then fallbacks); else the
// primary model when its catalog entry declares image input; else the
// first configured model that declares image input. Empty means no image
// model resolves (the image tool is then unavailable).
func ImageModels(cfg *config.Config) []string {
	if r := ModelRefs(cfg, "agents.defaults.imageModel"); len(r) > 0 {
		return r
	}
	docs := providersDoc(cfg)
	if d := DefaultModel(cfg); d != "" {
		if r, err := ParseRef(d); err == nil {
			for _, m := range docs[r.Provider].Models {
				if m.ID == r.Model && m.SupportsImages() {
					return []string{d}
				}
			}
			for _, m := range docs[r.Provider].Models {
				if m.SupportsImages() {
					return []string{r.Provider + "/" + m.ID}
				}
			}
		}
	}
	for _, id := range IDs(cfg) {
		for _, m := range docs[id].Models {
			if m.SupportsImages() {
				return []string{id + "/" + m.ID}
			}
		}
	}
	return nil
}

// apiError turns a non-2xx HTTP answer into an error that says what to fix.
func apiError(s *Settings, status int, body string) error {
	body = strings.TrimSpace(body)
	if s.APIKey != "" {
		body = strings.ReplaceAll(body, s.APIKey, "***")
	}
	if len(body) > 300 {
		body = body[:300] + "…"
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return failure.Errorf(failure.CodeAuth,
			"model provider %s: HTTP %d (%s): check models.providers.%s.apiKey", s.ID, status, body, s.ID)
	case http.StatusNotFound:
		return failure.Errorf(failure.CodeNotFound,
			"model provider %s: HTTP 404 (%s): check models.providers.%s.baseUrl and the model id", s.ID, body, s.ID)
	}
	return failure.Errorf(failure.CodeFailed, "model provider %s: HTTP %d: %s", s.ID, status, body)
}

func (s *Settings) client() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return http.DefaultClient
}
