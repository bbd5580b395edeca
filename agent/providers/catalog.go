package providers

import (
	"net/netip"
	"net/url"
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
)

// CatalogOptions are models.list's filters.
type CatalogOptions struct {
	// Provider keeps one provider's models; an id nobody configures is an
	// error, as in the original.
	Provider string
	// IncludeDetails adds input and local; View "provider-config" adds
	// input too.
	IncludeDetails bool
	View           string
}

// Row is one public catalog row, in the original's projection
// (buildPublicModelProjection): no route, auth or cost details.
type Row struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Provider          string   `json:"provider"`
	Alias             string   `json:"alias,omitempty"`
	ContextWindow     int      `json:"contextWindow,omitempty"`
	ContextTokens     int      `json:"contextTokens,omitempty"`
	Local             *bool    `json:"local,omitempty"`
	Input             []string `json:"input,omitempty"`
	Reasoning         *bool    `json:"reasoning,omitempty"`
	SupportsTools     *bool    `json:"supportsTools,omitempty"`
	Available         bool     `json:"available"`
	UnavailableReason string   `json:"unavailableReason,omitempty"`
}

// Catalog lists the models models.providers.* configures, sorted by
// provider id, in each provider's own order. A model is available when
// its provider has a key (config, SecretRef or the built-in env var) or
// talks to a local endpoint (Ollama, llama.cpp) that needs none; else it
// is "missing-auth".
func Catalog(cfg *config.Config, o CatalogOptions) ([]Row, error) {
	docs := providersDoc(cfg)
	if o.Provider != "" {
		if _, ok := docs[o.Provider]; !ok {
			return nil, failure.Errorf(failure.CodeInvalidParams,
				"Unknown model catalog provider. Use a provider id from the installed plugins or configured providers.")
		}
	}
	aliases := map[string]string{}
	if cfg != nil {
		var entries map[string]struct {
			Alias string `json:"alias"`
		}
		_ = cfg.Decode("agents.defaults.models", &entries)
		for k, e := range entries {
			aliases[k] = e.Alias
		}
	}
	out := []Row{}
	for _, pid := range IDs(cfg) {
		if o.Provider != "" && pid != o.Provider {
			continue
		}
		var s *Settings
		if got, err := Lookup(cfg, pid); err == nil {
			s = got
		}
		for _, m := range docs[pid].Models {
			if m.ID == "" {
				continue
			}
			r := Row{ID: m.ID, Name: m.Name, Provider: pid, Alias: aliases[pid+"/"+m.ID], Reasoning: m.Reasoning}
			if r.Name == "" {
				r.Name = m.ID
			}
			if m.ContextWindow >= 1 {
				r.ContextWindow = int(m.ContextWindow)
			}
			if m.Compat != nil {
				r.SupportsTools = m.Compat.SupportsTools
			}
			local := s != nil && isLocalBaseURL(s.BaseURL)
			if o.IncludeDetails {
				if m.ContextTokens >= 1 {
					r.ContextTokens = int(m.ContextTokens)
				}
				if s != nil && s.BaseURL != "" {
					r.Local = &local
				}
			}
			if (o.IncludeDetails || o.View == "provider-config") && len(m.Input) > 0 {
				r.Input = m.Input
			}
			r.Available = s != nil && (s.APIKey != "" || local)
			if !r.Available {
				r.UnavailableReason = "missing-auth"
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// isLocalBaseURL is the original's test: localhost, a loopback address,
// an unspecified address, or a .local name.
func isLocalBaseURL(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	host := strings.ToLower(strings.Trim(u.Hostname(), "[]"))
	if host == "localhost" || strings.HasSuffix(host, ".local") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && (a.IsLoopback() || a.IsUnspecified())
}
