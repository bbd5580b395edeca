package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// catalogEntry is one agent tool in tools.catalog / tools.effective.
type catalogEntry struct {
	ID              string          `json:"id"`
	Label           string          `json:"label"`
	Description     string          `json:"description"`
	RawDescription  string          `json:"rawDescription,omitempty"`
	Source          string          `json:"source"`
	DefaultProfiles []string        `json:"defaultProfiles,omitempty"`
	Groups          []string        `json:"groups"`
	Actions         []string        `json:"actions,omitempty"`
	Where           string          `json:"where"`
	Parameters      json.RawMessage `json:"parameters,omitempty"`
}

type catalogGroup struct {
	ID     string         `json:"id"`
	Label  string         `json:"label"`
	Source string         `json:"source"`
	Tools  []catalogEntry `json:"tools"`
}

func init() {
	registerMethod(&tools.Action{
		Method:  "tools.catalog",
		Summary: "List every agent tool with its groups and agent-facing schema",
		Schema: `{"type":"object","properties":{"agentId":{"type":"string","minLength":1},
			"includePlugins":{"type":"boolean"}},"additionalProperties":false}`,
		Scope: protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			agent := gjson.GetBytes(params, "agentId").String()
			if agent == "" {
				agent = defaultAgentID(env.Config)
			}
			entries, err := catalogEntries(tools.ToolNames(), true)
			if err != nil {
				return nil, err
			}
			return map[string]any{
				"agentId": agent,
				"profiles": []map[string]string{
					{"id": "minimal", "label": "Minimal"}, {"id": "coding", "label": "Coding"},
					{"id": "messaging", "label": "Messaging"}, {"id": "full", "label": "Full"},
				},
				"groups": groupEntries(entries),
				"tools":  entries,
			}, nil
		},
		Render: renderCatalog,
	})
	registerMethod(&tools.Action{
		Method:  "tools.effective",
		Summary: "Show the tools an agent may call after tool policy",
		Schema: `{"type":"object","properties":{"agentId":{"type":"string","minLength":1},
			"provider":{"type":"string"},"model":{"type":"string"},"sessionKey":{"type":"string"}},
			"additionalProperties":false}`,
		Scope: protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			var p struct {
				AgentID    string `json:"agentId"`
				Provider   string `json:"provider"`
				Model      string `json:"model"`
				SessionKey string `json:"sessionKey"`
			}
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, tools.Errorf(tools.CodeInvalidParams, "invalid tools.effective params: %v", err)
			}
			sub := *env
			sub.Subject.AgentID, sub.Subject.Provider, sub.Subject.Model = p.AgentID, p.Provider, p.Model
			sub.Subject.SessionKey = p.SessionKey
			sub.Warn = nil
			res := tools.Effective(&sub)
			var callable []string
			for _, name := range tools.ToolNames() {
				if res.Allows(name) {
					callable = append(callable, name)
				}
			}
			entries, err := catalogEntries(callable, false)
			if err != nil {
				return nil, err
			}
			profile := env.Config.String("tools.profile", "full")
			return map[string]any{
				"agentId":  sub.AgentID(),
				"profile":  profile,
				"groups":   []catalogGroup{{ID: "core", Label: "Built-in tools", Source: "core", Tools: entries}},
				"allowed":  nonNil(res.Allowed),
				"removed":  res.Removed,
				"warnings": nonNil(res.Warnings),
			}, nil
		},
		Render: func(w io.Writer, r gjson.Result) error {
			if _, err := fmt.Fprintf(w, "Agent %s (profile %s): %s\n", r.Get("agentId").String(), r.Get("profile").String(),
				joinResults(r.Get("allowed").Array())); err != nil {
				return err
			}
			for _, rm := range r.Get("removed").Array() {
				if _, err := fmt.Fprintf(w, "  removed %s (%s)\n", rm.Get("tool").String(), rm.Get("step").String()); err != nil {
					return err
				}
			}
			return nil
		},
	})
	registerMethod(&tools.Action{
		Method:  "tools.invoke",
		Summary: "Invoke one agent tool through tool policy",
		Args:    []string{"name"},
		Schema: `{"type":"object","required":["name"],"properties":{
			"name":{"type":"string","minLength":1,"description":"Agent tool name (read, browser, …)"},
			"args":{"type":"object","description":"Tool arguments; multi-action tools take \"action\""},
			"sessionKey":{"type":"string","minLength":1},"agentId":{"type":"string","minLength":1},
			"confirm":{"type":"boolean"},"idempotencyKey":{"type":"string","minLength":1}},
			"additionalProperties":false}`,
		Scope: protocol.ScopeWrite,
		Run:   runToolsInvoke,
		Render: func(w io.Writer, r gjson.Result) error {
			if !r.Get("ok").Bool() {
				_, err := fmt.Fprintf(w, "%s failed: %s\n", r.Get("toolName").String(), r.Get("error.message").String())
				return err
			}
			if texts := r.Get(`output.content.#(type=="text")#.text`).Array(); len(texts) > 0 {
				return writeLines(w, texts)
			}
			_, err := fmt.Fprintln(w, r.Get("output").Raw)
			return err
		},
	})
}

// runToolsInvoke resolves name (+args.action) to a registered action and
// runs it through Action.Invoke, so schema and tool policy apply exactly as
// for a local call. Tool failures are reported in the payload.
func runToolsInvoke(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
	var p struct {
		Name       string          `json:"name"`
		Args       json.RawMessage `json:"args"`
		SessionKey string          `json:"sessionKey"`
		AgentID    string          `json:"agentId"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid tools.invoke params: %v", err)
	}
	fail := func(err error, a *tools.Action) (any, error) {
		if a == nil {
			a = &tools.Action{Tool: p.Name}
		}
		// A tool's own failure keeps its tools code (DENIED, INVALID_PARAMS, …)
		// so a relayed call fails exactly as the local one does.
		var te *tools.Error
		if errors.As(err, &te) {
			return map[string]any{"ok": false, "toolName": p.Name,
				"error": map[string]any{"code": te.Code, "message": te.Message, "details": te.Details}}, nil
		}
		e := wireError(p.Name, a, err)
		return map[string]any{"ok": false, "toolName": p.Name,
			"error": map[string]any{"code": e.Code, "message": e.Message, "details": e.Details}}, nil
	}
	a, args, err := tools.ResolveAgentCall(p.Name, p.Args)
	if err != nil {
		return fail(err, nil)
	}
	if a.Scope != "" && !protocol.ScopeSatisfied(env.Subject.Scopes, a.Scope) && env.Subject.Role != protocol.RoleNode {
		return nil, tools.Errorf(protocol.ErrForbidden, "missing scope: %s", a.Scope).WithDetails(map[string]any{
			"code": protocol.DetailMissingScope, "missingScope": a.Scope, "requiredScopes": []string{a.Scope}})
	}
	sub := *env
	sub.Subject.AgentID, sub.Subject.SessionKey = p.AgentID, p.SessionKey
	out, err := a.Invoke(ctx, &sub, args)
	if err != nil {
		return fail(err, a)
	}
	return map[string]any{"ok": true, "toolName": p.Name, "source": "core", "output": out}, nil
}

// catalogEntries describes tools with their policy groups and, when
// withSchema, the agent-facing schema (tools.AgentSchema).
func catalogEntries(names []string, withSchema bool) ([]catalogEntry, error) {
	out := make([]catalogEntry, 0, len(names))
	for _, name := range names {
		acts := tools.ToolActions(name)
		if len(acts) == 0 {
			continue
		}
		e := catalogEntry{
			ID: name, Label: name, Description: tools.AgentDescription(name), Source: "core",
			DefaultProfiles: policy.ProfilesOf(name), Groups: nonNil(policy.GroupsOf(name)),
			Where: acts[0].Where.String(),
		}
		e.RawDescription = e.Description
		for _, a := range acts {
			if a.Verb != "" {
				e.Actions = append(e.Actions, a.Verb)
			}
		}
		if withSchema {
			schema, err := tools.AgentSchema(name)
			if err != nil {
				return nil, fmt.Errorf("tools.catalog %s: %w", name, err)
			}
			e.Parameters = schema
		}
		out = append(out, e)
	}
	return out, nil
}

// groupEntries buckets tools by their first specific group (group:openclaw
// only when it is the sole one).
func groupEntries(entries []catalogEntry) []catalogGroup {
	var order []string
	byID := map[string]*catalogGroup{}
	for _, e := range entries {
		primary := policy.PrimaryGroup(e.ID)
		id := strings.TrimPrefix(primary, "group:")
		if id == "" {
			id = "other"
		}
		g := byID[id]
		if g == nil {
			g = &catalogGroup{ID: id, Label: policy.GroupLabel(primary), Source: "core"}
			byID[id] = g
			order = append(order, id)
		}
		g.Tools = append(g.Tools, e)
	}
	out := make([]catalogGroup, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	return out
}

func renderCatalog(w io.Writer, r gjson.Result) error {
	for _, t := range r.Get("tools").Array() {
		line := t.Get("id").String()
		if acts := t.Get("actions").Array(); len(acts) > 0 {
			line += " [" + joinResults(acts) + "]"
		}
		if _, err := fmt.Fprintf(w, "%-18s %s\n", line, t.Get("description").String()); err != nil {
			return err
		}
	}
	return nil
}

func joinResults(rs []gjson.Result) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

func writeLines(w io.Writer, rs []gjson.Result) error {
	for _, r := range rs {
		if _, err := fmt.Fprintln(w, r.String()); err != nil {
			return err
		}
	}
	return nil
}
