// Package mcpserve is the MCP front door: it serves the registry's
// agent-facing tools to MCP clients (coding agents) over stdio (`openclaw
// mcp serve`) and over stateless streamable HTTP (the gateway's POST /mcp),
// with the official Go SDK. Which tools it lists is the normal tool policy
// for provider key "mcp" (tools.byProvider.mcp), narrowed by the serve
// flags; every call goes through tools.Invoke with caller kind mcp, so
// policy is checked again at call time and loop detection applies.
package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// Provider is the tools.byProvider key MCP callers are under.
const Provider = "mcp"

// Defaults for the result limits.
const (
	DefaultMaxImageBytes  = 4 << 20
	DefaultMaxResultChars = 100000
)

// StdioDeny is the default deny list of `openclaw mcp serve`: the client
// inherits the user's trust, so only the gateway's own controls are out.
var StdioDeny = []string{"gateway"}

// HTTPDeny is the default deny list of the gateway's POST /mcp: the
// original's POST /tools/invoke list (DEFAULT_GATEWAY_HTTP_TOOL_DENY in
// OpenClaw 2026.9.6, which calls cron "automations"; names we have no
// tool for are kept so a later family is denied from the start), plus
// cron and whatsapp_login.
var HTTPDeny = []string{
	"exec", "spawn", "shell", "fs_write", "fs_delete", "fs_move", "apply_patch", "terminal", "portal",
	"sessions_spawn", "sessions_send", "conversations_list", "conversations_send", "conversations_turn",
	"automations", "cron", "gateway", "plugins", "nodes", "computer", "mobile_ui", "openclaw", "whatsapp_login",
}

// HTTPDenyFor is the HTTP deny list under gateway.tools as the original
// reads it: a gateway.tools.allow entry removes a tool from HTTPDeny
// (by name, not glob), gateway.tools.deny entries are added (globs and
// groups, the tools.deny matcher).
func HTTPDenyFor(allow, deny []string) []string {
	out := make([]string, 0, len(HTTPDeny)+len(deny))
	for _, name := range HTTPDeny {
		if !slices.ContainsFunc(allow, func(a string) bool { return policy.Normalize(a) == policy.Normalize(name) }) {
			out = append(out, name)
		}
	}
	return append(out, deny...)
}

// ToolsetsKey is the config key naming the toolsets POST /mcp serves
// (the --toolsets of `mcp serve`; unset: "default").
const ToolsetsKey = "gateway.mcp.toolsets"

// HTTPOptions are the options of the gateway's POST /mcp under its config:
// toolsets from gateway.mcp.toolsets; gateway.tools.allow entries both
// come off the default deny list and are served (as --tools), so allowing
// "read" serves read; gateway.tools.deny adds to the deny list. An allow
// entry that names no tool here does nothing, and is reported to warn once
// per distinct message (nil: not reported).
func HTTPOptions(toolsets, allow, deny []string, warn func(string)) Options {
	o := Options{Toolsets: toolsets, DefaultDeny: HTTPDenyFor(allow, deny)}
	registered := tools.ToolNames()
	for _, a := range allow {
		n := policy.Normalize(a)
		if slices.Contains(registered, n) {
			o.Tools = append(o.Tools, n)
		} else if warn != nil {
			warnOnce(warn, fmt.Sprintf("gateway.tools.allow: %q is not a tool of this gateway, so it serves nothing over POST /mcp "+
				"(tool names: `openclaw tools list`; whole toolsets go in %s)", a, ToolsetsKey))
		}
	}
	return o
}

var warned sync.Map

func warnOnce(warn func(string), msg string) {
	if _, seen := warned.LoadOrStore(msg, true); !seen {
		warn(msg)
	}
}

// Options choose the tools served and how results are shaped.
type Options struct {
	// Toolsets are toolset names (see Toolsets); empty means "default".
	// Entries starting with + or - add to or remove from the default.
	Toolsets []string
	// Files puts the file tools (group:fs) in the default set: the client
	// named a workspace for them (`mcp serve --workspace DIR`).
	Files bool
	// Tools adds individual tools; an unknown name is a usage error.
	Tools []string
	// Deny removes tools (names, globs, group:*; the tools.deny matcher).
	Deny []string
	// DefaultDeny is the door's own deny list (StdioDeny, HTTPDeny);
	// naming a tool in Tools does not lift it.
	DefaultDeny []string
	// Profile caps the set with a tool profile (minimal, coding,
	// messaging, full).
	Profile string
	// ReadOnly keeps only read-only actions: each tool's action enum is
	// narrowed, and tools left with none are dropped.
	ReadOnly bool
	// OmitImages sends paths instead of inline image blocks.
	OmitImages bool
	// MaxImageBytes caps an inline image (bigger ones go as a link).
	MaxImageBytes int64
	// MaxResultChars caps a result's text.
	MaxResultChars int
}

func (o Options) maxImage() int64 {
	if o.MaxImageBytes <= 0 {
		return DefaultMaxImageBytes
	}
	return o.MaxImageBytes
}

func (o Options) maxChars() int {
	if o.MaxResultChars <= 0 {
		return DefaultMaxResultChars
	}
	return o.MaxResultChars
}

// Tool is one served MCP tool: an agent tool, possibly narrowed.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Verbs are the actions served when narrowed (--read-only); nil serves
	// all of the tool's actions.
	Verbs       []string             `json:"-"`
	Annotations *mcp.ToolAnnotations `json:"annotations"`
	Meta        map[string]any       `json:"_meta,omitempty"`
	// adapter is set for a conversation tool that calls another tool
	// (conversations.go).
	adapter *adapter
	// local answers the call in this server, without the Runner (the
	// event tools over Config.Events).
	local func(context.Context, json.RawMessage) (json.RawMessage, error)
}

// conversationTools are the registry tools that stand for the original's
// nine conversation tools (conversations_list, conversation_get,
// messages_read, messages_send, …) when their families are linked.
var conversationTools = append([]string{"sessions_list", "sessions_history", "session_status", "sessions_send", "message", "events_poll", "events_wait"}, AdapterNames()...)

// Toolsets are the names --toolsets takes: OpenClaw's groups without
// "group:", the single-tool sets and conversations. "default" and "all"
// are keywords.
func Toolsets() map[string][]string {
	sets := map[string][]string{
		"browser":       {"browser"},
		"canvas":        {"canvas"},
		"media":         {"image", "pdf"},
		"conversations": conversationTools,
	}
	for g, members := range policy.Groups {
		sets[strings.TrimPrefix(g, "group:")] = members
	}
	return sets
}

// ToolsetNames lists every name --toolsets accepts, sorted.
func ToolsetNames() []string {
	names := []string{"all", "default"}
	for n := range Toolsets() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// defaultSet is group:openclaw minus gateway, plus group:fs when a
// workspace was named for the file tools.
func (o Options) defaultSet() []string {
	set := slices.DeleteFunc(slices.Clone(policy.Groups["group:openclaw"]), func(s string) bool { return s == "gateway" })
	if o.Files {
		set = append(set, policy.Groups["group:fs"]...)
	}
	return set
}

// chosen expands the toolsets and --tools into the names asked for (before
// policy), or a usage error naming what is unknown.
func (o Options) chosen(registered []string) (map[string]bool, error) {
	sets := Toolsets()
	want := map[string]bool{}
	add := func(names []string, on bool) {
		for _, n := range names {
			want[policy.Normalize(n)] = on
		}
	}
	entries := o.Toolsets
	relative := len(entries) > 0
	for _, e := range entries {
		if !strings.HasPrefix(e, "+") && !strings.HasPrefix(e, "-") {
			relative = false
		}
	}
	if len(entries) == 0 || relative {
		add(o.defaultSet(), true)
	}
	for _, e := range entries {
		on := !strings.HasPrefix(e, "-")
		name := strings.ToLower(strings.TrimLeft(strings.TrimSpace(e), "+-"))
		name = strings.TrimPrefix(name, "group:")
		switch {
		case name == "":
		case name == "all":
			add(registered, on)
		case name == "default":
			add(o.defaultSet(), on)
		default:
			members, ok := sets[name]
			if !ok {
				msg := fmt.Sprintf("unknown toolset %q (toolsets: %s)", name, strings.Join(ToolsetNames(), ", "))
				if s := tools.Closest(name, ToolsetNames()); len(s) > 0 {
					msg = fmt.Sprintf("unknown toolset %q (did you mean %q?)", name, s[0])
				}
				return nil, failure.Errorf(failure.CodeUsage, "%s", msg)
			}
			add(members, on)
		}
	}
	for _, t := range o.Tools {
		n := policy.Normalize(t)
		if n == "" {
			continue
		}
		if !slices.Contains(registered, n) {
			msg := fmt.Sprintf("unknown tool %q for --tools (see `openclaw tools list`)", t)
			if s := tools.Closest(n, registered); len(s) > 0 {
				msg = fmt.Sprintf("unknown tool %q for --tools (did you mean %q?)", t, s[0])
			}
			return nil, failure.Errorf(failure.CodeUsage, "%s", msg)
		}
		want[n] = true
	}
	return want, nil
}

// Check validates the options without a config (flag errors at start).
func (o Options) Check() error {
	if _, err := o.chosen(tools.ToolNames()); err != nil {
		return err
	}
	if p := strings.TrimSpace(o.Profile); p != "" {
		if _, ok := policy.Profiles[strings.ToLower(p)]; !ok {
			return failure.Errorf(failure.CodeUsage, "unknown --profile %q (minimal, coding, messaging, full)", p)
		}
	}
	return nil
}

// Subject is the caller an MCP client is for agent id: kind mcp, provider
// key mcp.
func Subject(agentID string) tools.Subject {
	return tools.Subject{Kind: tools.CallerMCP, AgentID: agentID, Provider: Provider}
}

// Select is the tool list for env (whose Subject should be an MCP
// Subject): registered agent tools the toolsets name, the policy allows,
// the profile admits and no deny list removes, sorted by name.
func Select(env *tools.Env, o Options) ([]Tool, error) {
	registered := tools.ToolNames()
	want, err := o.chosen(registered)
	if err != nil {
		return nil, err
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	res := tools.Effective(env)
	var profile *policy.Policy
	if o.Profile != "" {
		profile = policy.ResolveProfile(o.Profile)
	}
	deny := policy.Policy{Deny: append(slices.Clone(o.DefaultDeny), o.Deny...)}
	var out []Tool
	for _, name := range registered {
		switch {
		case !want[policy.Normalize(name)], !res.Allows(name): // Allows: Available too
			continue
		case profile != nil && !policy.Matches(*profile, name), !policy.Matches(deny, name):
			continue
		}
		t, ok, err := describe(name, o)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, t)
		}
	}
	// An adapter is served with its target (which passed policy, the
	// profile and --read-only above) unless its own name is denied.
	return withAdapters(out, want, func(name string) bool { return policy.Matches(deny, name) }), nil
}

// describe builds the MCP tool for an agent tool: the agent schema as
// `openclaw tools schema` prints it, or with --read-only a narrowed one;
// ok is false when --read-only leaves it no action.
func describe(name string, o Options) (Tool, bool, error) {
	acts := tools.ToolActions(name)
	exposed := acts
	narrowed := false
	if o.ReadOnly {
		exposed = slices.DeleteFunc(slices.Clone(acts), func(a *tools.Action) bool { return !a.ReadOnly })
		if len(exposed) == 0 {
			return Tool{}, false, nil
		}
		narrowed = len(exposed) < len(acts)
	}
	t := Tool{Name: name, Annotations: annotations(exposed),
		Meta: map[string]any{"anthropic/maxResultSizeChars": o.maxChars()}}
	if !narrowed {
		s, err := tools.AgentSchema(name)
		if err != nil {
			return Tool{}, false, err
		}
		t.InputSchema, t.Description = s, tools.AgentDescription(name)
		return t, true, nil
	}
	for _, a := range exposed {
		t.Verbs = append(t.Verbs, a.Verb)
	}
	s, desc, err := narrowSchema(exposed)
	if err != nil {
		return Tool{}, false, err
	}
	t.InputSchema, t.Description = s, desc
	return t, true, nil
}

// narrowSchema is tools.AgentSchema over some of a tool's actions: the
// same flat object with only their properties and verbs.
func narrowSchema(acts []*tools.Action) (json.RawMessage, string, error) {
	props := map[string]json.RawMessage{}
	var verbs, lines []string
	for _, a := range acts {
		verbs = append(verbs, a.Verb)
		lines = append(lines, fmt.Sprintf("%s: %s", a.Verb, a.Summary))
		gjson.Get(a.Schema, "properties").ForEach(func(k, v gjson.Result) bool {
			if _, seen := props[k.String()]; !seen {
				props[k.String()] = json.RawMessage(v.Raw)
			}
			return true
		})
	}
	sort.Strings(verbs)
	desc := "Actions — " + strings.Join(lines, "; ")
	action, err := json.Marshal(map[string]any{"type": "string", "enum": verbs, "description": "The action to perform."})
	if err != nil {
		return nil, "", err
	}
	props["action"] = action
	s, err := json.Marshal(map[string]any{"type": "object", "description": desc, "properties": props, "required": []string{"action"}})
	return s, desc, err
}

// annotations are the MCP hints of the exposed actions: read-only when all
// are, destructive when any is (or any is undescribed), idempotent when
// all are, open-world when any is (or any is undescribed).
func annotations(acts []*tools.Action) *mcp.ToolAnnotations {
	readOnly, idem, destructive, open := true, true, false, false
	for _, a := range acts {
		readOnly = readOnly && a.ReadOnly
		idem = idem && a.Idempotent
		destructive = destructive || a.Destructive || !a.Described()
		open = open || a.OpenWorld || !a.Described()
	}
	ann := &mcp.ToolAnnotations{ReadOnlyHint: readOnly, IdempotentHint: idem, OpenWorldHint: &open}
	if !readOnly {
		ann.DestructiveHint = &destructive
	}
	return ann
}
