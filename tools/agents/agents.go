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
// with neither the implicit "main" agent is listed. Each row carries what
// the original's rows carry where the config says it: the agent's
// workspace, its model (primary and fallbacks) and thinkingDefault. The
// original's thinkingLevels/thinkingOptions come from its model catalogue's
// per-model profiles, which this gateway does not have: they are left out
// rather than guessed.
func agentsList(env *tools.Env) map[string]any {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	type agent struct {
		ID              string      `json:"id"`
		Name            string      `json:"name,omitempty"`
		Workspace       string      `json:"workspace"`
		ThinkingDefault string      `json:"thinkingDefault,omitempty"`
		Model           *agentModel `json:"model,omitempty"`
	}
	type entry struct {
		Name            string          `json:"name"`
		Model           json.RawMessage `json:"model"`
		ThinkingDefault string          `json:"thinkingDefault"`
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
		// The original lists the default agent first, then the rest by id.
		def := tools.DefaultAgentID(cfg)
		sort.Slice(ids, func(i, j int) bool {
			if (ids[i] == def) != (ids[j] == def) {
				return ids[i] == def
			}
			return ids[i] < ids[j]
		})
	}
	if len(ids) == 0 {
		ids = append(ids, "main")
	}
	var defaults struct {
		Model           json.RawMessage `json:"model"`
		ThinkingDefault string          `json:"thinkingDefault"`
	}
	_ = cfg.Decode("agents.defaults", &defaults)
	agents := make([]agent, 0, len(ids))
	for _, id := range ids {
		sub := *env
		sub.Config, sub.Workspace = cfg, ""
		sub.Subject.AgentID = id
		e := byID[id]
		a := agent{ID: id, Name: e.Name, Workspace: sub.WorkspaceDir(), Model: resolveModel(e.Model, defaults.Model),
			ThinkingDefault: strings.TrimSpace(e.ThinkingDefault)}
		if a.ThinkingDefault == "" {
			a.ThinkingDefault = strings.TrimSpace(defaults.ThinkingDefault)
		}
		agents = append(agents, a)
	}
	scope := cfg.String("session.scope", "per-sender")
	return map[string]any{"defaultId": tools.DefaultAgentID(cfg), "mainKey": "main", "scope": scope, "agents": agents}
}

// agentModel is a row's model: {primary, fallbacks?}, as the original's.
type agentModel struct {
	Primary   string   `json:"primary"`
	Fallbacks []string `json:"fallbacks,omitempty"`
}

// modelSetting is a config model value: "provider/model" or {primary,
// fallbacks}; hasFallbacks says whether the object names fallbacks at all.
type modelSetting struct {
	primary      string
	fallbacks    []string
	hasFallbacks bool
}

func parseModel(raw json.RawMessage) modelSetting {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return modelSetting{primary: strings.TrimSpace(s)}
	}
	var m struct {
		Primary   string    `json:"primary"`
		Fallbacks *[]string `json:"fallbacks"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return modelSetting{}
	}
	out := modelSetting{primary: strings.TrimSpace(m.Primary), hasFallbacks: m.Fallbacks != nil}
	if m.Fallbacks != nil {
		out.fallbacks = *m.Fallbacks
	}
	return out
}

// resolveModel is the original's rule: the agent's primary, else the
// defaults'; an agent that names its own primary (a string, or an object
// without fallbacks) has no fallbacks, one whose object lists fallbacks has
// those, and otherwise the defaults' fallbacks apply (trimmed, without
// repeats in any case).
func resolveModel(own, defaults json.RawMessage) *agentModel {
	o, d := parseModel(own), parseModel(defaults)
	primary := o.primary
	if primary == "" {
		primary = d.primary
	}
	if primary == "" {
		return nil
	}
	fallbacks := d.fallbacks
	switch {
	case o.hasFallbacks:
		fallbacks = o.fallbacks
	case o.primary != "":
		fallbacks = nil
	}
	m := &agentModel{Primary: primary}
	seen := map[string]bool{}
	for _, f := range fallbacks {
		if f = strings.TrimSpace(f); f != "" && !seen[strings.ToLower(f)] {
			seen[strings.ToLower(f)] = true
			m.Fallbacks = append(m.Fallbacks, f)
		}
	}
	return m
}
