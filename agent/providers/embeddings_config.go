package providers

import (
	"fmt"
	"os"
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
)

// EmbeddingConfig is what memorySearch says about embeddings:
// provider, model, remote{baseUrl, apiKey, headers}, local{modelPath}.
type EmbeddingConfig struct {
	Provider       string
	Model          string
	BaseURL        string
	APIKey         any // a string or a SecretRef {source:"env", id}
	Headers        map[string]string
	LocalModelPath string
}

// embedBuiltin is a known embeddings provider: where it lives, its default
// model, the models.providers id and environment variables holding its key.
type embedBuiltin struct {
	baseURL, model, api, configID string
	env                           []string
	keyless                       bool // a local server: no key needed
}

var embedBuiltins = map[string]embedBuiltin{
	"openai":  {"https://api.openai.com/v1", "text-embedding-3-small", EmbedAPIOpenAI, "openai", []string{"OPENAI_API_KEY"}, false},
	"gemini":  {"https://generativelanguage.googleapis.com/v1beta", "gemini-embedding-001", EmbedAPIGemini, "google", []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, false},
	"voyage":  {"https://api.voyageai.com/v1", "voyage-4-large", EmbedAPIOpenAI, "voyage", []string{"VOYAGE_API_KEY"}, false},
	"mistral": {"https://api.mistral.ai/v1", "mistral-embed", EmbedAPIOpenAI, "mistral", []string{"MISTRAL_API_KEY"}, false},
	"ollama":  {"http://127.0.0.1:11434/v1", "nomic-embed-text", EmbedAPIOpenAI, "ollama", nil, true},
}

// embedAutoOrder is provider "auto": the first of these with a key.
var embedAutoOrder = []string{"openai", "gemini", "voyage", "mistral"}

// ResolveEmbeddings picks the embeddings endpoint memory search uses. No
// provider is not an error: it returns nil and the reason (search is then
// keyword-only and says why). An error means the configuration is wrong
// (an unknown provider id).
func ResolveEmbeddings(cfg *config.Config, c EmbeddingConfig) (*EmbeddingSettings, string, error) {
	prov := strings.ToLower(strings.TrimSpace(c.Provider))
	if prov == "" {
		prov = "auto"
	}
	switch prov {
	case "none", "off":
		return nil, "memorySearch.provider is " + prov, nil
	case "local":
		return nil, "memorySearch.provider local (GGUF models in-process) is not supported by this build; " +
			"serve the model over an OpenAI-compatible /v1/embeddings endpoint (llama.cpp server, Ollama, vLLM) and set provider ollama or openai with remote.baseUrl", nil
	case "auto":
		remoteKey := config.Secret(c.APIKey)
		if strings.TrimSpace(c.BaseURL) != "" || remoteKey != "" {
			// remote settings without a provider name: the OpenAI shape.
			return resolveNamed(cfg, "openai", c, true)
		}
		for _, id := range embedAutoOrder {
			s, _, err := resolveNamed(cfg, id, c, false)
			if err == nil && s != nil {
				return s, "", nil
			}
		}
		return nil, "no embeddings provider configured: set agents.defaults.memorySearch.provider " +
			"(openai, gemini, voyage, mistral, ollama) with remote.apiKey, or OPENAI_API_KEY / GEMINI_API_KEY / VOYAGE_API_KEY / MISTRAL_API_KEY", nil
	}
	return resolveNamed(cfg, prov, c, true)
}

// resolveNamed resolves one provider id. explicit says the user named it
// (or gave remote settings): an unknown id is then an error.
func resolveNamed(cfg *config.Config, id string, c EmbeddingConfig, explicit bool) (*EmbeddingSettings, string, error) {
	b, builtin := embedBuiltins[id]
	configID := id
	if builtin {
		configID = b.configID
	}
	raw, configured := providersDoc(cfg)[configID]
	if !builtin && !configured {
		return nil, "", failure.Errorf(failure.CodeInvalidParams,
			"memorySearch.provider %q is not known: use openai, gemini, voyage, mistral, ollama, or a models.providers id with a baseUrl", id)
	}
	s := &EmbeddingSettings{Provider: id, API: EmbedAPIOpenAI}
	providerBase := strings.TrimRight(raw.BaseURL, "/")
	if builtin {
		s.API = b.api
		if providerBase == "" {
			providerBase = b.baseURL
		}
	}
	s.BaseURL = strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	if s.BaseURL == "" {
		s.BaseURL = providerBase
	}
	if s.BaseURL == "" {
		return nil, "", failure.Errorf(failure.CodeInvalidParams,
			"memorySearch.provider %s: set memorySearch.remote.baseUrl or models.providers.%s.baseUrl", id, configID)
	}
	// The provider's own key and headers go only to the provider's own
	// destination (as the original): a remote.baseUrl elsewhere gets
	// remote.apiKey or nothing.
	ownsDestination := s.BaseURL == providerBase
	s.APIKey = config.Secret(c.APIKey)
	if s.APIKey == "" && ownsDestination {
		s.APIKey = config.Secret(raw.APIKey)
		if s.APIKey == "" && builtin {
			for _, env := range b.env {
				if k := strings.TrimSpace(os.Getenv(env)); k != "" {
					s.APIKey = k
					break
				}
			}
		}
	}
	s.Headers = map[string]string{}
	if ownsDestination {
		for k, v := range raw.Headers {
			s.Headers[k] = v
		}
	}
	for k, v := range c.Headers {
		s.Headers[k] = v
	}
	if s.APIKey == "" && ownsDestination && builtin && !b.keyless && !hasAuthHeader(s.Headers) {
		reason := fmt.Sprintf("memorySearch.provider %s has no API key: set memorySearch.remote.apiKey, models.providers.%s.apiKey or %s",
			id, configID, strings.Join(b.env, " / "))
		if explicit {
			return nil, reason, nil
		}
		return nil, reason, failure.Errorf(failure.CodeAuth, "%s", reason)
	}
	s.Model = strings.TrimSpace(c.Model)
	s.Model = strings.TrimPrefix(s.Model, id+"/")
	if s.Model == "" && builtin {
		s.Model = b.model
	}
	if s.Model == "" {
		return nil, "", failure.Errorf(failure.CodeInvalidParams, "memorySearch.provider %s: set memorySearch.model", id)
	}
	return s, "", nil
}

func hasAuthHeader(h map[string]string) bool {
	for k := range h {
		if strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "x-goog-api-key") {
			return true
		}
	}
	return false
}
