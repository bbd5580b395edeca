// Package policy decides which tools a run may call. It is pure: no I/O, no
// clocks, no globals that change at run time (except the opt-in Warner), so
// every decision is reproducible from its input.
//
// The behaviour follows the "Classic" OpenClaw surface (spec
// tools-automation-sessions-policy.md §5): names are normalised, groups
// expand, a policy is an allow/deny pair where deny always wins, and a run's
// tool list passes through an ordered pipeline of layers that can only remove.
package policy

import (
	"slices"
	"strings"
	"sync"
	"unicode"
)

// aliases maps alternative spellings to canonical tool names. The Later
// rename cron -> automations is accepted backwards so configs written for
// newer OpenClaw versions still hit our Classic `cron` tool.
var aliases = map[string]string{
	"bash":        "exec",
	"apply-patch": "apply_patch",
	"automations": "cron",
}

// Normalize returns the canonical form of a tool name or policy entry:
// trimmed, lower-cased, with aliases applied. Matching is done only on
// normalised names, which is what makes it case-insensitive.
func Normalize(name string) string {
	n := strings.ToLower(strings.TrimFunc(name, isTrimSpace))
	if a, ok := aliases[n]; ok {
		return a
	}
	return n
}

// isTrimSpace mirrors JavaScript's String.prototype.trim, which also strips
// the byte-order mark.
func isTrimSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// Groups are the Classic tool groups usable as policy entries. Members are
// canonical names. `group:plugins` is not listed: it depends on the plugins
// loaded in a run and is expanded by Resolve.
var Groups = map[string][]string{
	"group:runtime":    {"exec", "process"},
	"group:fs":         {"read", "write", "edit", "apply_patch"},
	"group:sessions":   {"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status"},
	"group:memory":     {"memory_search", "memory_get"},
	"group:web":        {"web_search", "web_fetch"},
	"group:ui":         {"browser", "canvas"},
	"group:automation": {"cron", "gateway"},
	"group:messaging":  {"message"},
	"group:nodes":      {"nodes"},
	"group:openclaw": {
		"browser", "canvas", "nodes", "cron", "message", "gateway", "agents_list",
		"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status",
		"memory_search", "memory_get", "web_search", "web_fetch", "image",
	},
}

// Profiles are the Classic base allow-lists selected by `tools.profile`.
// "full" is the empty policy: no restriction, same as no profile.
// coding and messaging also allow the saved MCP servers' tools (plugin id
// bundle-mcp, as the original's profiles do); minimal hides them.
var Profiles = map[string]Policy{
	"minimal":   {Allow: []string{"session_status"}},
	"coding":    {Allow: []string{"group:fs", "group:runtime", "group:sessions", "group:memory", "image", MCPPluginID}},
	"messaging": {Allow: []string{"group:messaging", "sessions_list", "sessions_history", "sessions_send", "session_status", MCPPluginID}},
	"full":      {},
}

// MCPPluginID is the plugin id the saved MCP servers' tools carry in tool
// policies (tools.deny: ["bundle-mcp"] removes them all).
const MCPPluginID = "bundle-mcp"

// profileOrder is the stable order ProfilesOf reports in (narrow to wide).
var profileOrder = []string{"minimal", "coding", "messaging", "full"}

var coreTools = []string{
	"agents_list", "apply_patch", "browser", "canvas", "cron", "edit", "exec", "gateway",
	"image", "memory_get", "memory_search", "message", "nodes", "pdf", "process", "read",
	"session_status", "sessions_history", "sessions_list", "sessions_send", "sessions_spawn",
	"web_fetch", "web_search", "write",
}

var coreSet = func() map[string]bool {
	m := make(map[string]bool, len(coreTools))
	for _, t := range coreTools {
		m[t] = true
	}
	return m
}()

// CoreTools returns the whole Classic built-in tool inventory, sorted. The
// slice is a fresh copy.
func CoreTools() []string { return slices.Clone(coreTools) }

// IsCoreTool reports whether name (normalised) is a shipped Classic tool.
// Used to tell "unavailable here" apart from "unknown" in warnings.
func IsCoreTool(name string) bool { return coreSet[Normalize(name)] }

// ExpandGroups normalises names, replaces every known `group:*` entry by its
// members and drops empty entries and duplicates, keeping first-seen order.
// Unknown group names stay as literals (they then match nothing).
func ExpandGroups(names []string) []string {
	out := make([]string, 0, len(names))
	seen := make(map[string]bool, len(names))
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, raw := range names {
		n := Normalize(raw)
		if n == "" {
			continue
		}
		if members, ok := Groups[n]; ok {
			for _, m := range members {
				add(m)
			}
			continue
		}
		add(n)
	}
	return out
}

// GroupsOf returns the sorted names of the groups that contain tool.
func GroupsOf(tool string) []string {
	n := Normalize(tool)
	var out []string
	for g, members := range Groups {
		if slices.Contains(members, n) {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}

// ProfilesOf returns the profiles whose allow-list admits tool, in the order
// minimal, coding, messaging, full ("full" is always present).
func ProfilesOf(tool string) []string {
	var out []string
	name := Normalize(tool)
	for i, m := range profileMatchers() {
		if m == nil || m.admits(name) {
			out = append(out, profileOrder[i])
		}
	}
	return out
}

// profileMatchers compiles each profile once per process, in profileOrder
// (nil: the profile admits everything): listings ask for every tool, and
// compiling the profiles per tool was the largest cost of `tools list`.
var profileMatchers = sync.OnceValue(func() []*matcher {
	out := make([]*matcher, len(profileOrder))
	for i, name := range profileOrder {
		p := Profiles[name]
		if eff, ok := (&p).effective(); ok {
			m := compilePolicy(eff, nil)
			out[i] = &m
		}
	}
	return out
})

// ResolveProfile returns a copy of the named profile's policy, or nil when
// the name is unknown or the profile does not restrict anything ("full").
// An unknown profile is deliberately "no policy", not an error: config
// validation reports it, the runtime must not lock the agent out.
func ResolveProfile(name string) *Policy {
	p, ok := Profiles[strings.ToLower(strings.TrimSpace(name))]
	if !ok || (len(p.Allow) == 0 && len(p.Deny) == 0) {
		return nil
	}
	return &Policy{Allow: slices.Clone(p.Allow), Deny: slices.Clone(p.Deny)}
}

// groupLabels title the groups for people: help sections and tools.catalog.
var groupLabels = map[string]string{
	"group:runtime": "Runtime", "group:fs": "Files", "group:sessions": "Sessions and agents",
	"group:memory": "Memory", "group:web": "Web", "group:ui": "Browser and canvas",
	"group:automation": "Automation and gateway", "group:messaging": "Messaging",
	"group:nodes": "Nodes", "group:openclaw": "OpenClaw",
}

// PrimaryGroup is the group a tool is shown under: its first specific
// group, group:openclaw only when that is all it has, "" when none.
func PrimaryGroup(tool string) string {
	gs := GroupsOf(tool)
	for _, g := range gs {
		if g != "group:openclaw" {
			return g
		}
	}
	if len(gs) > 0 {
		return gs[0]
	}
	return ""
}

// GroupLabel is the human title of a group ("Other" for none).
func GroupLabel(group string) string {
	if l, ok := groupLabels[group]; ok {
		return l
	}
	if group == "" {
		return "Other"
	}
	return group
}
