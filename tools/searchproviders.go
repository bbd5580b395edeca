package tools

import (
	"strings"

	"github.com/openclaw-go/openclaw/config"
)

// SearchProvider is a web_search backend as `openclaw configure --section
// web` lists and stores it. The web family registers its providers here,
// so the CLI reaches them without importing the family.
type SearchProvider struct {
	ID, Label string
	KeyPath   string   // config path of the key
	EnvKeys   []string // environment variables, in order
	Signup    string   // where to get a key
	// Placeholder shows a key's shape in the prompt ("BSA...").
	Placeholder string
	// ConfigKey is the key stored in config, or "".
	ConfigKey func(cfg *config.Config) string
	// EnvKey is the first set environment variable and its value.
	EnvKey func() (name, value string)
	// Key is the key from config, else the environment.
	Key func(cfg *config.Config) (key, envName string)
}

var searchProviders func() []*SearchProvider

// RegisterSearchProviders installs the provider list (built only when
// asked for); the web family calls it from init.
func RegisterSearchProviders(list func() []*SearchProvider) { searchProviders = list }

// SearchProviders lists the registered providers in auto-detect order
// (none when the web family is not linked).
func SearchProviders() []*SearchProvider {
	if searchProviders == nil {
		return nil
	}
	return searchProviders()
}

// LookupSearchProvider returns the provider with this id (any case), or nil.
func LookupSearchProvider(id string) *SearchProvider {
	for _, p := range SearchProviders() {
		if p.ID == strings.ToLower(id) {
			return p
		}
	}
	return nil
}
