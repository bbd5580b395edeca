package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
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
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			AgentID string `json:"agentId"`
		}) (any, error) {
			agent := p.AgentID
			if agent == "" {
				agent = defaultAgentID(env.Config)
			}
			// A tool the config switches off for every caller (apply_patch
			// with tools.exec.applyPatch.enabled false) is not in the catalog.
			var names []string
			for _, name := range tools.ToolNames() {
				if tools.Unavailable(env, name) == nil {
					names = append(names, name)
				}
			}
			entries, err := catalogEntries(names, true)
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
		}),
		Render: renderCatalog,
	})
	registerMethod(&tools.Action{
		Method:  "tools.effective",
		Summary: "Show the tools an agent may call after tool policy",
		Schema: `{"type":"object","properties":{"agentId":{"type":"string","minLength":1},
			"provider":{"type":"string"},"model":{"type":"string"},"sessionKey":{"type":"string"}},
			"additionalProperties":false}`,
		Scope: protocol.ScopeRead,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p effectiveParams) (any, error) {
			sub := *env
			sub.Subject.AgentID, sub.Subject.Provider, sub.Subject.Model = p.AgentID, p.Provider, p.Model
			sub.Subject.SessionKey = p.SessionKey
			if sub.Subject.AgentID == "" {
				// The original requires sessionKey and takes the agent from it;
				// we accept either and fall back to the default agent.
				sub.Subject.AgentID = tools.AgentFromSessionKey(p.SessionKey)
			}
			if sub.Subject.AgentID == "" {
				sub.Subject.AgentID = defaultAgentID(env.Config)
			}
			if err := tools.CheckAgentID(env.Config, sub.Subject.AgentID); err != nil {
				return nil, err // as the original: unknown agent id "x"
			}
			sub.Warn = nil
			res := tools.EffectiveRegistered(&sub)
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
				"note":     res.Note,
			}, nil
		}),
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
			if note := r.Get("note").String(); note != "" {
				if _, err := fmt.Fprintf(w, "Note: %s\n", note); err != nil {
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
		Run:   tools.Typed(runToolsInvoke),
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

type effectiveParams struct {
	AgentID    string `json:"agentId"`
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	SessionKey string `json:"sessionKey"`
}

type invokeParams struct {
	Name       string       `json:"name"`
	Args       tools.Object `json:"args"`
	SessionKey string       `json:"sessionKey"`
	AgentID    string       `json:"agentId"`
}

// runToolsInvoke is the tools.invoke front door: it hands name + args to
// tools.Invoke, which resolves the action (args.action for multi-action
// tools), checks that action's own scope against the caller's, validates,
// applies tool policy and runs it. A tool's failure is reported in the
// payload with its typed code, so a relayed call fails exactly as the local
// one; a caller lacking the tool's scope gets the method error FORBIDDEN.
// Naming a session or an agent makes the call that agent's (an agent
// caller relayed by this connection, tools/caller.go).
func runToolsInvoke(ctx context.Context, env *tools.Env, p invokeParams) (any, error) {
	sub := *env
	sub.Subject.AgentID, sub.Subject.SessionKey = p.AgentID, p.SessionKey
	if sub.Subject.AgentID == "" {
		sub.Subject.AgentID = tools.AgentFromSessionKey(p.SessionKey)
	}
	// An agent nobody configured has no policy of its own: refused, never
	// run under the defaults' looser one (issue 30).
	if err := tools.CheckAgentID(env.Config, sub.Subject.AgentID); err != nil {
		return toolsInvokeResult{OK: false, ToolName: p.Name, Error: failure.AsError(err)}, nil
	}
	if p.AgentID != "" || p.SessionKey != "" {
		// On behalf of an agent's turn: loop detection applies as to the
		// agent itself, and the connection's scopes still bound what it may
		// run (Role and Scopes stay).
		sub.Subject.Kind = tools.CallerAgent
	}
	call := tools.Call{Tool: p.Name, Args: p.Args.Raw} // args as decoded once by the door, and their bytes
	if p.Args.Value != nil {
		call.Value = p.Args.Value
	}
	out, err := tools.Invoke(ctx, &sub, call)
	if err != nil {
		te := failure.AsError(err)
		if te.Code == failure.CodeMissingScope || te.Code == failure.CodeUnauthorizedRole {
			return nil, te
		}
		return toolsInvokeResult{OK: false, ToolName: p.Name, Error: te}, nil
	}
	return toolsInvokeResult{OK: true, ToolName: p.Name, Source: "core", Output: out}, nil
}

// toolsInvokeResult is the tools.invoke payload. Error is the typed error
// as the CLI prints it (details omitted when there are none).
type toolsInvokeResult struct {
	OK       bool            `json:"ok"`
	ToolName string          `json:"toolName"`
	Source   string          `json:"source,omitempty"`
	Output   json.RawMessage `json:"output,omitempty"`
	Error    *failure.Error  `json:"error,omitempty"`
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
