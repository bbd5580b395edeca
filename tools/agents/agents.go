// Package agents declares the agent and model catalogue methods
// (agents.list, models.list): they read the config and the provider
// catalogue, so they live with the agents family, not in the gateway.
// They run inside the gateway (Where Gateway), as the original serves them.
package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

func init() {
	tools.Register(&tools.Action{
		Where:   tools.Gateway,
		Method:  "agents.list",
		Summary: "List configured agents",
		Schema:  `{"type":"object","additionalProperties":false}`,
		Scope:   protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			return agentsList(env.Config), nil
		},
		Render: func(w io.Writer, r gjson.Result) error {
			def := r.Get("defaultId").String()
			for _, a := range r.Get("agents").Array() {
				mark := ""
				if a.Get("id").String() == def {
					mark = " (default)"
				}
				name := a.Get("name").String()
				if name != "" {
					name = "  " + name
				}
				if _, err := fmt.Fprintf(w, "%s%s%s\n", a.Get("id").String(), mark, name); err != nil {
					return err
				}
			}
			return nil
		},
	})
	tools.Register(&tools.Action{
		Where:   tools.Gateway,
		Method:  "models.list",
		Summary: "List models from the configured providers",
		Schema: `{"type":"object","properties":{"view":{"type":"string","enum":["default","configured","provider-config","all"]},
			"provider":{"type":"string"},"sessionKey":{"type":"string"},"agentId":{"type":"string"},
			"authProfileId":{"type":"string"},"refresh":{"type":"boolean"},"preparedOnly":{"type":"boolean"},
			"includeDetails":{"type":"boolean"}},"additionalProperties":false}`,
		Scope: protocol.ScopeRead,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			Provider       string `json:"provider"`
			View           string `json:"view"`
			IncludeDetails bool   `json:"includeDetails"`
		}) (any, error) {
			rows, err := providers.Catalog(env.Config, providers.CatalogOptions{Provider: p.Provider, View: p.View, IncludeDetails: p.IncludeDetails})
			if err != nil {
				return nil, err
			}
			return map[string]any{"models": rows}, nil
		}),
		Render: func(w io.Writer, r gjson.Result) error {
			for _, m := range r.Get("models").Array() {
				if _, err := fmt.Fprintf(w, "%s/%s\n", m.Get("provider").String(), m.Get("id").String()); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// agentsList reads agents.list (classic) or agents.entries (newer configs);
// with neither the implicit "main" agent is listed.
func agentsList(cfg *config.Config) map[string]any {
	type agent struct {
		ID   string `json:"id"`
		Name string `json:"name,omitempty"`
	}
	var list []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	_ = cfg.Decode("agents.list", &list)
	agents := []agent{}
	for _, a := range list {
		if a.ID != "" {
			agents = append(agents, agent{ID: a.ID, Name: a.Name})
		}
	}
	if len(agents) == 0 {
		var entries map[string]struct {
			Name string `json:"name"`
		}
		_ = cfg.Decode("agents.entries", &entries)
		ids := make([]string, 0, len(entries))
		for id := range entries {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			agents = append(agents, agent{ID: id, Name: entries[id].Name})
		}
	}
	if len(agents) == 0 {
		agents = append(agents, agent{ID: "main"})
	}
	scope := cfg.String("session.scope", "per-sender")
	return map[string]any{"defaultId": tools.DefaultAgentID(cfg), "mainKey": "main", "scope": scope, "agents": agents}
}
