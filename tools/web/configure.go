package web

import "github.com/openclaw-go/openclaw/tools"

// The providers as `openclaw configure --section web` sees them, through
// tools (the CLI imports no family).
func init() {
	tools.RegisterSearchProviders(func() []*tools.SearchProvider {
		out := make([]*tools.SearchProvider, 0, len(providers))
		for _, p := range providers {
			out = append(out, &tools.SearchProvider{
				ID: p.ID, Label: p.Label, KeyPath: p.KeyPath, EnvKeys: p.EnvKeys, Signup: p.Signup, Placeholder: p.Placeholder,
				ConfigKey: p.ConfigKey, EnvKey: p.EnvKey, Key: p.Key,
			})
		}
		return out
	})
}
