package tools

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// AgentSchema returns the agent-facing JSON Schema of a tool. A single-action
// tool's schema is its action's; a multi-action tool gets one flat object
// with an `action` enum, because model providers reject root unions. Params
// are still validated per action at run time (see ResolveAgentCall).
func AgentSchema(tool string) (json.RawMessage, error) {
	acts := ToolActions(tool)
	if len(acts) == 0 {
		return nil, Errorf(CodeUnknownTool, "unknown tool %q", tool)
	}
	if len(acts) == 1 && acts[0].Verb == "" {
		return json.RawMessage(acts[0].Schema), nil
	}
	props := map[string]json.RawMessage{}
	var verbs []string
	for _, a := range acts {
		verbs = append(verbs, a.Verb)
		gjson.Get(a.Schema, "properties").ForEach(func(k, v gjson.Result) bool {
			if _, seen := props[k.String()]; !seen {
				props[k.String()] = json.RawMessage(v.Raw)
			}
			return true
		})
	}
	sort.Strings(verbs)
	actionProp, err := json.Marshal(map[string]any{
		"type": "string", "enum": verbs,
		"description": "The action to perform.",
	})
	if err != nil {
		return nil, err
	}
	props["action"] = actionProp
	return json.Marshal(map[string]any{
		"type":        "object",
		"description": AgentDescription(tool),
		"properties":  props,
		"required":    []string{"action"},
	})
}

// AgentDescription is the tool description given to models: its summary, or
// for multi-action tools one line per action.
func AgentDescription(tool string) string {
	acts := ToolActions(tool)
	if len(acts) == 1 && acts[0].Verb == "" {
		return joinSentences(acts[0].Summary, acts[0].Description)
	}
	lines := make([]string, 0, len(acts))
	for _, a := range acts {
		lines = append(lines, fmt.Sprintf("%s: %s", a.Verb, a.Summary))
	}
	return "Actions — " + strings.Join(lines, "; ")
}

// ResolveAgentCall maps an agent tool call (name + args) to the action it
// names and the params for that action (args without "action").
func ResolveAgentCall(tool string, args json.RawMessage) (*Action, json.RawMessage, error) {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if a := Lookup(tool); a != nil && a.Tool == tool && a.Verb == "" {
		return a, args, nil
	}
	acts := ToolActions(tool)
	if len(acts) == 0 {
		e := Errorf(CodeUnknownTool, "unknown tool %q", tool)
		if s := Closest(tool, ToolNames()); len(s) > 0 {
			e.Message += fmt.Sprintf(" (did you mean %q?)", s[0])
		}
		return nil, nil, e
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, nil, Errorf(CodeInvalidParams, "invalid %s params: args must be a JSON object", tool)
	}
	var verb string
	_ = json.Unmarshal(m["action"], &verb)
	a := Lookup(tool + "." + verb)
	if verb == "" || a == nil {
		verbs := make([]string, len(acts))
		for i, x := range acts {
			verbs[i] = x.Verb
		}
		return nil, nil, Errorf(CodeInvalidParams, "invalid %s params: /action: must be one of %s", tool, strings.Join(verbs, ", "))
	}
	delete(m, "action")
	params, err := json.Marshal(m)
	if err != nil {
		return nil, nil, err
	}
	return a, params, nil
}

// joinSentences joins a summary and a description into running text.
func joinSentences(summary, desc string) string {
	if desc == "" {
		return summary
	}
	if !strings.HasSuffix(summary, ".") {
		summary += "."
	}
	return summary + " " + desc
}
