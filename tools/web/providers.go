package web

import (
	"os"
	"strings"

	"github.com/openclaw-go/openclaw/config"
)

// Provider describes one search provider: where its key lives, its
// default API base, and how a query maps onto its HTTP API (search_*.go).
type Provider struct {
	ID, Label   string
	KeyPath     string   // config path of the key
	EnvKeys     []string // environment variables, in order
	DefaultBase string
	Signup      string
	Placeholder string
	run         func(sc *searchCall) (map[string]any, error)
}

// providers in the classic auto-detect order (spec §5.4).
var providers = []*Provider{
	{ID: "brave", Label: "Brave Search", KeyPath: "tools.web.search.apiKey", EnvKeys: []string{"BRAVE_API_KEY"},
		DefaultBase: "https://api.search.brave.com", Signup: "https://brave.com/search/api/", Placeholder: "BSA...", run: runBrave},
	{ID: "gemini", Label: "Gemini (Google Search)", KeyPath: "tools.web.search.gemini.apiKey", EnvKeys: []string{"GEMINI_API_KEY"},
		DefaultBase: "https://generativelanguage.googleapis.com/v1beta", Signup: "https://aistudio.google.com/apikey", Placeholder: "AIza...", run: runGemini},
	{ID: "perplexity", Label: "Perplexity Sonar", KeyPath: "tools.web.search.perplexity.apiKey", EnvKeys: []string{"PERPLEXITY_API_KEY", "OPENROUTER_API_KEY"},
		DefaultBase: "https://api.perplexity.ai", Signup: "https://www.perplexity.ai/settings/api", Placeholder: "pplx-...", run: runPerplexity},
	{ID: "grok", Label: "Grok (xAI)", KeyPath: "tools.web.search.grok.apiKey", EnvKeys: []string{"XAI_API_KEY"},
		DefaultBase: "https://api.x.ai/v1", Signup: "https://console.x.ai/", Placeholder: "xai-...", run: runGrok},
	{ID: "kimi", Label: "Kimi (Moonshot)", KeyPath: "tools.web.search.kimi.apiKey", EnvKeys: []string{"KIMI_API_KEY", "MOONSHOT_API_KEY"},
		DefaultBase: "https://api.moonshot.ai/v1", Signup: "https://platform.moonshot.ai/", Placeholder: "sk-...", run: runKimi},
}

// Providers lists the search providers in auto-detect order (for
// `openclaw configure --section web`).
func Providers() []*Provider { return providers }

// LookupProvider returns the provider with this id, or nil.
func LookupProvider(id string) *Provider {
	for _, p := range providers {
		if p.ID == strings.ToLower(id) {
			return p
		}
	}
	return nil
}

// ConfigKey is the key stored in config (a string, or a SecretRef
// {source:"env", id}), or "".
func (p *Provider) ConfigKey(cfg *config.Config) string {
	if cfg == nil {
		return ""
	}
	v, ok := cfg.Get(p.KeyPath)
	if !ok {
		return ""
	}
	return config.Secret(v)
}

// EnvKey returns the first set environment variable and its value.
func (p *Provider) EnvKey() (name, value string) {
	for _, e := range p.EnvKeys {
		if v := strings.TrimSpace(os.Getenv(e)); v != "" {
			return e, v
		}
	}
	return "", ""
}

// Key is the provider's key from config, else the environment.
func (p *Provider) Key(cfg *config.Config) (key, envName string) {
	if k := p.ConfigKey(cfg); k != "" {
		return k, ""
	}
	name, value := p.EnvKey()
	return value, name
}

// BaseURLPath is the config path of the provider's API base.
func (p *Provider) BaseURLPath() string { return "tools.web.search." + p.ID + ".baseUrl" }

// selectProvider applies the spec's rule: an explicit provider wins (no
// fallback); otherwise the first with a key; none → Brave.
func selectProvider(cfg *config.Config) (*Provider, error) {
	if id := cfg.String("tools.web.search.provider", ""); id != "" {
		p := LookupProvider(id)
		if p == nil {
			return nil, errUnknownProvider(id)
		}
		return p, nil
	}
	for _, p := range providers {
		if k, _ := p.Key(cfg); k != "" {
			return p, nil
		}
	}
	return providers[0], nil
}

func getenv(k string) string { return os.Getenv(k) }
