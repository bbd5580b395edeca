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
	"strings"

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
			return agentsList(env), nil
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
// with neither the implicit "main" agent is listed. Each row carries the
// agent's workspace and primary model, as the original's rows do.
func agentsList(env *tools.Env) map[string]any {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	type model struct {
		Primary string `json:"primary"`
	}
	type agent struct {
		ID        string `json:"id"`
		Name      string `json:"name,omitempty"`
		Workspace string `json:"workspace"`
		Model     *model `json:"model,omitempty"`
	}
	type entry struct {
		Name  string          `json:"name"`
		Model json.RawMessage `json:"model"`
	}
	var list []struct {
		ID string `json:"id"`
		entry
	}
	_ = cfg.Decode("agents.list", &list)
	ids, byID := []string{}, map[string]entry{}
	for _, a := range list {
		if a.ID != "" {
			ids = append(ids, a.ID)
			byID[a.ID] = a.entry
		}
	}
	if len(ids) == 0 {
		var entries map[string]entry
		_ = cfg.Decode("agents.entries", &entries)
		for id, e := range entries {
			ids = append(ids, id)
			byID[id] = e
		}
		sort.Strings(ids)
	}
	if len(ids) == 0 {
		ids = append(ids, "main")
	}
	agents := make([]agent, 0, len(ids))
	for _, id := range ids {
		sub := *env
		sub.Config, sub.Workspace = cfg, ""
		sub.Subject.AgentID = id
		a := agent{ID: id, Name: byID[id].Name, Workspace: sub.WorkspaceDir()}
		if m := primaryModel(byID[id].Model); m != "" {
			a.Model = &model{Primary: m}
		} else if m := providers.DefaultModel(cfg); m != "" {
			a.Model = &model{Primary: m}
		}
		agents = append(agents, a)
	}
	scope := cfg.String("session.scope", "per-sender")
	return map[string]any{"defaultId": tools.DefaultAgentID(cfg), "mainKey": "main", "scope": scope, "agents": agents}
}

// primaryModel reads an agent's own model: "provider/model" or {primary}.
func primaryModel(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var m struct {
		Primary string `json:"primary"`
	}
	if json.Unmarshal(raw, &m) == nil {
		return strings.TrimSpace(m.Primary)
	}
	return ""
}
