package tools

import (
	"bytes"
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

// resolveAgentCall maps an agent tool call (name, verb or args.action, args)
// to the action it names and that action's params: args without "action",
// cut out of the bytes rather than decoded and re-encoded, and out of the
// decoded args when the caller has them (a shallow copy, never re-parsed).
func (r *Registry) resolveAgentCall(tool, verb string, args json.RawMessage, value any) (*Action, json.RawMessage, any, error) {
	if len(args) == 0 && value == nil {
		args = json.RawMessage(`{}`)
	}
	acts := r.ToolActions(tool)
	if len(acts) == 0 {
		e := Errorf(CodeUnknownTool, "unknown tool %q", tool)
		if s := Closest(tool, r.ToolNames()); len(s) > 0 {
			e.Message += fmt.Sprintf(" (did you mean %q?)", s[0])
		}
		return nil, nil, nil, e
	}
	if len(acts) == 1 && acts[0].Verb == "" && verb == "" {
		return acts[0], args, value, nil
	}
	if verb == "" {
		if value != nil {
			obj, ok := value.(map[string]any)
			if !ok {
				return nil, nil, nil, Errorf(CodeInvalidParams, "invalid %s params: args must be a JSON object", tool)
			}
			if v, ok := obj["action"].(string); ok {
				verb = v
			}
			if _, has := obj["action"]; has {
				rest := make(map[string]any, len(obj)-1)
				for k, v := range obj {
					if k != "action" {
						rest[k] = v
					}
				}
				value = rest
			}
		}
		if len(args) > 0 {
			if t := bytes.TrimLeft(args, " \t\r\n"); len(t) == 0 || t[0] != '{' {
				return nil, nil, nil, Errorf(CodeInvalidParams, "invalid %s params: args must be a JSON object", tool)
			}
			var v gjson.Result
			args, v = cutMember(args, "action")
			if v.Type == gjson.String && value == nil {
				verb = v.Str
			}
		}
	}
	var a *Action
	for _, x := range acts {
		if x.Verb == verb && verb != "" {
			a = x
		}
	}
	if a == nil {
		verbs := make([]string, len(acts))
		for i, x := range acts {
			verbs[i] = x.Verb
		}
		return nil, nil, nil, Errorf(CodeInvalidParams, "invalid %s params: /action: must be one of %s", tool, strings.Join(verbs, ", "))
	}
	return a, args, value, nil
}

// cutMember returns obj (a valid JSON object) without its top-level member
// name, and that member's value; obj unchanged when it has none.
func cutMember(obj json.RawMessage, name string) (json.RawMessage, gjson.Result) {
	var val gjson.Result
	start, end := -1, -1
	prevEnd := -1 // end of the previous member's value
	gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
		if k.Str == name && start < 0 {
			val = v
			start, end = k.Index, v.Index+len(v.Raw)
			return false
		}
		prevEnd = v.Index + len(v.Raw)
		return true
	})
	if start < 0 {
		return obj, val
	}
	out := make(json.RawMessage, 0, len(obj))
	if prevEnd >= 0 {
		// "…prev, name: v …" → drop from the end of prev through v.
		out = append(out, obj[:prevEnd]...)
		out = append(out, obj[end:]...)
		return out, val
	}
	// First member: drop it and the comma after it, if any.
	rest := obj[end:]
	for i, c := range rest {
		if c == ',' {
			rest = rest[i+1:]
			break
		}
		if c == '}' {
			break
		}
	}
	out = append(out, obj[:start]...)
	out = append(out, rest...)
	return out, val
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
