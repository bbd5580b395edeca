package heartbeat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

func init() {
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
