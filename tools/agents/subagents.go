package agents

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

func init() {
	tools.Register(&tools.Action{
		Tool: "agents_list", Where: tools.Gateway, Scope: protocol.ScopeRead, ReadOnly: true, Idempotent: true,
		Summary: "List the agents this session may spawn sub-agents under",
		Description: "List agent ids you can target with sessions_spawn (agents.list[].subagents.allowAgents): " +
			"the requester first, then the rest by id, each with its resolved model.",
		Schema: `{"type":"object","properties":{},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, _ struct{}) (any, error) {
			return tools.JSONResult(subagentTargets(env))
		}),
		Render: renderTargets,
	})
}

// AllowedAgents is the agents requester may spawn under (spec §3.9): its
// agents.list[].subagents.allowAgents, else agents.defaults.subagents.
// allowAgents; default only its own agent; "*" any configured agent.
func AllowedAgents(cfg *config.Config, requester string) (ids []string, allowAny bool) {
	var list []struct {
		ID        string `json:"id"`
		Subagents *struct {
			AllowAgents []string `json:"allowAgents"`
		} `json:"subagents"`
	}
	_ = cfg.Decode("agents.list", &list)
	var allow []string
	found := false
	for _, a := range list {
		if sessions.NormalizeAgentID(a.ID) == requester && a.Subagents != nil && a.Subagents.AllowAgents != nil {
			allow, found = a.Subagents.AllowAgents, true
		}
	}
	if !found {
		_ = cfg.Decode("agents.defaults.subagents.allowAgents", &allow)
	}
	configured := map[string]bool{requester: true}
	for _, a := range list {
		if a.ID != "" {
			configured[sessions.NormalizeAgentID(a.ID)] = true
		}
	}
	set := map[string]bool{requester: true}
	for _, a := range allow {
		if strings.TrimSpace(a) == "*" {
			allowAny = true
			for id := range configured {
				set[id] = true
			}
			continue
		}
		if id := sessions.NormalizeAgentID(a); configured[id] { // stale ids are dropped
			set[id] = true
		}
	}
	ids = []string{requester}
	var rest []string
	for id := range set {
		if id != requester {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	return append(ids, rest...), allowAny
}

type target struct {
	ID         string `json:"id"`
	Name       string `json:"name,omitempty"`
	Configured bool   `json:"configured"`
	Model      string `json:"model,omitempty"`
}

// subagentTargets is agents_list's result (spec §3.9): {requester,
// allowAny, agents}.
func subagentTargets(env *tools.Env) map[string]any {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	requester := sessions.CallerOf(env).Agent()
	ids, allowAny := AllowedAgents(cfg, requester)
	var list []struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Model any    `json:"model"`
	}
	_ = cfg.Decode("agents.list", &list)
	var defaults struct {
		Model any `json:"model"`
	}
	_ = cfg.Decode("agents.defaults", &defaults)
	rows := make([]target, 0, len(ids))
	for _, id := range ids {
		t := target{ID: id, Model: modelString(defaults.Model)}
		for _, a := range list {
			if sessions.NormalizeAgentID(a.ID) == id {
				t.Configured, t.Name = true, a.Name
				if m := modelString(a.Model); m != "" {
					t.Model = m
				}
			}
		}
		rows = append(rows, t)
	}
	return map[string]any{"requester": requester, "allowAny": allowAny, "agents": rows}
}

func modelString(v any) string {
	switch m := v.(type) {
	case string:
		return strings.TrimSpace(m)
	case map[string]any:
		p, _ := m["primary"].(string)
		return strings.TrimSpace(p)
	}
	return ""
}

func renderTargets(w io.Writer, res gjson.Result) error {
	d := res.Get("details")
	if !d.Exists() {
		d = res
	}
	for _, a := range d.Get("agents").Array() {
		line := a.Get("id").String()
		if a.Get("id").String() == d.Get("requester").String() {
			line += " (requester)"
		}
		if m := a.Get("model").String(); m != "" {
			line += "  " + m
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
