package heartbeat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

func init() {
	tools.Register(&tools.Action{
		Method: "heartbeat.summary", Where: tools.Gateway, Scope: protocol.ScopeRead, Hidden: true,
		Summary: "Heartbeat settings per agent and the main session's queued system events, as status carries them",
		Schema:  `{"type":"object","properties":{"agentIds":{"type":"array","items":{"type":"string"}}}}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			AgentIDs []string `json:"agentIds"`
		}) (any, error) {
			s, err := Key.From(env, "heartbeat.summary")
			if err != nil {
				return nil, err
			}
			return s.summary(ctx, p.AgentIDs), nil
		}),
	})
	tools.Register(&tools.Action{
		Method: "last-heartbeat", Where: tools.Gateway, Scope: protocol.ScopeRead,
		Summary: "Show the last heartbeat event (null when none ran)",
		Schema:  `{"type":"object"}`, // unknown params accepted, as the original
		Run: func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			s, err := Key.From(env, "last-heartbeat")
			if err != nil {
				return nil, err
			}
			if ev := s.Last(); ev != nil {
				return ev, nil
			}
			return nil, nil
		},
		Render: func(w io.Writer, r gjson.Result) error {
			if r.Type == gjson.Null || !r.Exists() {
				_, err := fmt.Fprintln(w, "No heartbeat has run yet.")
				return err
			}
			line := r.Get("status").String()
			if why := r.Get("reason").String(); why != "" {
				line += " (" + why + ")"
			}
			if to := r.Get("to").String(); to != "" {
				line += " to " + r.Get("channel").String() + ":" + to
			}
			_, err := fmt.Fprintf(w, "%s: %s, agent %s\n", r.Get("ts").String(), line, r.Get("agentId").String())
			return err
		},
	})
	tools.Register(&tools.Action{
		Method: "set-heartbeats", Where: tools.Gateway, Scope: protocol.ScopeAdmin,
		Summary: "Enable or disable heartbeats",
		Args:    []string{"enabled"},
		// Loose on purpose: the handler produces the original's exact error.
		Schema: `{"type":"object","properties":{"enabled":{"type":"boolean","description":"true to enable, false to disable"}}}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			Enabled *bool `json:"enabled"`
		}) (any, error) {
			s, err := Key.From(env, "set-heartbeats")
			if err != nil {
				return nil, err
			}
			if p.Enabled == nil {
				return nil, tools.Errorf(tools.CodeInvalidParams, "invalid set-heartbeats params: enabled (boolean) required")
			}
			s.SetEnabled(*p.Enabled)
			return map[string]any{"ok": true, "enabled": *p.Enabled}, nil
		}),
		Render: func(w io.Writer, r gjson.Result) error {
			state := "disabled"
			if r.Get("enabled").Bool() {
				state = "enabled"
			}
			_, err := fmt.Fprintf(w, "Heartbeats %s.\n", state)
			return err
		},
	})
}

// summary is status.heartbeat's agents (each {agentId, enabled, every,
// everyMs}), whether the runner is on, and the texts queued for the
// default agent's main session (status.queuedSystemEvents).
func (s *Service) summary(ctx context.Context, ids []string) map[string]any {
	cfg := s.cfg()
	on := map[string]bool{}
	for _, id := range plan(cfg) {
		on[id] = true
	}
	agents := make([]map[string]any, 0, len(ids))
	for _, raw := range ids {
		id := sessions.NormalizeAgentID(raw)
		hb := resolve(cfg, id)
		row := map[string]any{"agentId": raw, "enabled": false, "every": "disabled", "everyMs": nil}
		if d := hb.interval(); on[id] && d > 0 {
			row["enabled"], row["every"], row["everyMs"] = true, d.String(), d.Milliseconds()
		}
		agents = append(agents, row)
	}
	queued := []string{}
	if evs, err := s.cron.PendingSystemEvents(ctx, sessions.MainKey(tools.DefaultAgentID(cfg))); err == nil {
		for _, e := range evs {
			queued = append(queued, e.Text)
		}
	}
	return map[string]any{"enabled": s.enabled.Load(), "agents": agents, "queuedSystemEvents": queued}
}
