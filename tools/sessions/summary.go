package sessions

import (
	"context"
	"time"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
)

// statusRecent is how many recent sessions status shows (the original's 10).
const statusRecent = 10

func init() {
	tools.Register(&tools.Action{
		Method: "sessions.summary", Where: tools.Gateway, Scope: protocol.ScopeRead,
		Summary: "Session counts and recent sessions, as status.sessions carries them",
		Schema: `{"type":"object","properties":{
			"agentIds":{"type":"array","items":{"type":"string"}},"sensitive":{"type":"boolean"}
		},"additionalProperties":false}`,
		Run:    tools.Typed(summary),
		Hidden: true,
	})
}

type summaryParams struct {
	AgentIDs  []string `json:"agentIds"`
	Sensitive bool     `json:"sensitive"`
}

// statusRow is a status.sessions.recent row (the original's fields this
// store has; context window figures are null: no model catalogue).
type statusRow struct {
	AgentID          string   `json:"agentId"`
	Key              string   `json:"key"`
	Kind             string   `json:"kind"`
	SessionID        string   `json:"sessionId"`
	UpdatedAt        int64    `json:"updatedAt"`
	Age              int64    `json:"age"`
	ThinkingLevel    string   `json:"thinkingLevel,omitempty"`
	AbortedLastRun   bool     `json:"abortedLastRun,omitempty"`
	InputTokens      int64    `json:"inputTokens,omitempty"`
	OutputTokens     int64    `json:"outputTokens,omitempty"`
	TotalTokens      *int64   `json:"totalTokens"`
	TotalTokensFresh bool     `json:"totalTokensFresh"`
	RemainingTokens  *int64   `json:"remainingTokens"`
	PercentUsed      *int64   `json:"percentUsed"`
	Model            *string  `json:"model"`
	ContextTokens    *int64   `json:"contextTokens"`
	Flags            []string `json:"flags"`
}

// summary is status.sessions in the original's shape: {paths, count,
// defaults, recent, byAgent[{agentId, path, count, recent}]}. Paths and
// rows are for sensitive (admin) callers only, as the original redacts
// them.
func summary(ctx context.Context, env *tools.Env, p summaryParams) (any, error) {
	s, err := service(env, "sessions.summary")
	if err != nil {
		return nil, err
	}
	cfg := cfgOf(env)
	now := time.Now().UnixMilli()
	path := store.Path(env.StateDir)
	row := func(e *Entry) statusRow {
		r := statusRow{AgentID: AgentOf(e.Key), Key: e.Key, Kind: gatewayKind(e.Key), SessionID: e.SessionID, UpdatedAt: e.UpdatedAt,
			Age: now - e.UpdatedAt, ThinkingLevel: e.ThinkingLevel, AbortedLastRun: e.AbortedLastRun, InputTokens: e.InputTokens,
			OutputTokens: e.OutputTokens, Flags: []string{}}
		if e.TotalTokens > 0 {
			t := e.TotalTokens
			r.TotalTokens, r.TotalTokensFresh = &t, true
		}
		if m := EffectiveModel(cfg, e); m != "" {
			r.Model = &m
		}
		return r
	}
	n := 0
	if p.Sensitive {
		n = statusRecent
	}
	rows := func(f Filter) ([]statusRow, int, error) {
		f.Limit = max(n, 1)
		entries, total, err := s.List(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		out := []statusRow{}
		for i, e := range entries {
			if i < n {
				out = append(out, row(e))
			}
		}
		return out, total, nil
	}
	recent, count, err := rows(Filter{})
	if err != nil {
		return nil, err
	}
	shown := path
	if !p.Sensitive {
		shown = "[redacted]"
	}
	byAgent := []map[string]any{}
	for _, id := range p.AgentIDs {
		r, c, err := rows(Filter{AgentID: id})
		if err != nil {
			return nil, err
		}
		byAgent = append(byAgent, map[string]any{"agentId": id, "path": shown, "count": c, "recent": r})
	}
	paths := []string{}
	if p.Sensitive {
		paths = append(paths, path)
	}
	var model any
	if m := providers.DefaultModel(cfg); m != "" {
		model = m
	}
	return map[string]any{"paths": paths, "count": count, "recent": recent, "byAgent": byAgent,
		"defaults": map[string]any{"model": model, "contextTokens": nil}}, nil
}
