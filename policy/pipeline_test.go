package policy

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

type rm = Removal

const (
	wUnknownIgnored = "tools: tools.allow allowlist contains unknown entries (wat). Ignoring allowlist so core tools remain available. These entries won't match any tool unless the plugin is enabled."
	wUnknownKept    = "tools: tools.allow allowlist contains unknown entries (wat). These entries won't match any tool unless the plugin is enabled."
)

func TestResolve(t *testing.T) {
	plugins := map[string]string{"plugin_tool": "demo"}
	for _, tc := range []struct {
		name     string
		in       Input
		allowed  []string
		removed  []Removal
		warnings []string
	}{
		// §5.12 case 9. Later keeps a plugin-only allow-list (=> [plugin_tool]);
		// Classic ignores it with a warning so core tools stay available.
		{name: "9 classic: plugin-only allow-list is ignored",
			in:       Input{Tools: []string{"exec", "plugin_tool"}, PluginTools: plugins, Global: ToolPolicy{Allow: []string{"plugin_tool"}}},
			allowed:  []string{"exec", "plugin_tool"},
			warnings: []string{"tools: tools.allow allowlist contains only plugin entries (plugin_tool). Ignoring allowlist so core tools remain available. Use tools.alsoAllow for additive plugin tool enablement."}},
		{name: "9 classic: plugin id allow-list is ignored too",
			in:       Input{Tools: []string{"exec", "plugin_tool"}, PluginTools: plugins, Global: ToolPolicy{Allow: []string{"DEMO"}}},
			allowed:  []string{"exec", "plugin_tool"},
			warnings: []string{"tools: tools.allow allowlist contains only plugin entries (demo). Ignoring allowlist so core tools remain available. Use tools.alsoAllow for additive plugin tool enablement."}},
		{name: "9 classic: plugin + core entries filter normally",
			in:      Input{Tools: []string{"exec", "read", "plugin_tool"}, PluginTools: plugins, Global: ToolPolicy{Allow: []string{"plugin_tool", "exec"}}},
			allowed: []string{"exec", "plugin_tool"}, removed: []rm{{"read", "tools.allow"}}},
		{name: "9 classic: alsoAllow is the additive way to grant plugin tools",
			in:      Input{Tools: []string{"exec", "browser", "plugin_tool"}, PluginTools: plugins, Global: ToolPolicy{Profile: "coding", AlsoAllow: []string{"plugin_tool"}}},
			allowed: []string{"exec", "plugin_tool"}, removed: []rm{{"browser", "tools.profile (coding)"}}},
		{name: "9 classic: profile without alsoAllow drops plugin tools",
			in:      Input{Tools: []string{"exec", "plugin_tool"}, PluginTools: plugins, Global: ToolPolicy{Profile: "coding"}},
			allowed: []string{"exec"}, removed: []rm{{"plugin_tool", "tools.profile (coding)"}}},
		{name: "group:plugins in deny",
			in:      Input{Tools: []string{"exec", "plugin_tool"}, PluginTools: plugins, Global: ToolPolicy{Deny: []string{"group:plugins"}}},
			allowed: []string{"exec"}, removed: []rm{{"plugin_tool", "tools.deny"}}},
		{name: "plugin id in agent deny",
			in:      Input{Tools: []string{"exec", "plugin_tool"}, PluginTools: plugins, AgentID: "main", Agent: &ToolPolicy{Deny: []string{"demo"}}},
			allowed: []string{"exec"}, removed: []rm{{"plugin_tool", "agents.main.tools.deny"}}},
		{name: "group:plugins without plugins matches nothing",
			in:      Input{Tools: []string{"exec"}, Global: ToolPolicy{Deny: []string{"group:plugins"}}},
			allowed: []string{"exec"}},

		// §5.12 case 10 (the single-warning half; dedupe is TestWarner).
		{name: "10: unknown-only allow-list warns once and is ignored (Classic)",
			in:      Input{Tools: []string{"exec"}, Global: ToolPolicy{Allow: []string{"wat"}}},
			allowed: []string{"exec"}, warnings: []string{wUnknownIgnored}},
		{name: "10: unknown entry next to a core entry warns, list applies",
			in:      Input{Tools: []string{"exec", "read"}, Global: ToolPolicy{Allow: []string{"exec", "wat", "WAT"}}},
			allowed: []string{"exec"}, removed: []rm{{"read", "tools.allow"}}, warnings: []string{wUnknownKept}},

		// §5.12 case 11, adapted: Classic has no explicit suppress list; the
		// built-in profile's own entries play that role. The Later
		// "unavailable here: <reason>" variant has no Classic counterpart.
		{name: "11: profile entries missing from the run are not warned about",
			in:      Input{Tools: []string{"exec", "read", "write", "edit"}, Global: ToolPolicy{Profile: "coding"}},
			allowed: []string{"exec", "read", "write", "edit"}},
		{name: "11: extra alsoAllow entry is named alone as unavailable core",
			in:      Input{Tools: []string{"exec", "read"}, Global: ToolPolicy{Profile: "coding"}, AgentID: "a", Agent: &ToolPolicy{AlsoAllow: []string{"apply_patch", "browser"}}},
			allowed: []string{"exec", "read"},
			warnings: []string{
				"tools: tools.profile (coding) allowlist contains unknown entries (browser). These entries are shipped core tools but unavailable in the current runtime/provider/model/config.",
				"tools: agents.a.tools.allow allowlist contains unknown entries (apply_patch, browser). These entries are shipped core tools but unavailable in the current runtime/provider/model/config.",
			}},
		{name: "11: explicit tools.allow of an unavailable core tool warns",
			in:       Input{Tools: []string{"exec", "read"}, Global: ToolPolicy{Allow: []string{"apply_patch"}}},
			allowed:  []string{"exec", "read"},
			warnings: []string{"tools: tools.allow allowlist contains unknown entries (apply_patch). Ignoring allowlist so core tools remain available. These entries are shipped core tools but unavailable in the current runtime/provider/model/config."}},
		{name: "11: mixed unavailable core and unknown",
			in:       Input{Tools: []string{"exec", "read"}, Global: ToolPolicy{Allow: []string{"exec", "browser", "wat"}}},
			allowed:  []string{"exec"},
			removed:  []rm{{"read", "tools.allow"}},
			warnings: []string{"tools: tools.allow allowlist contains unknown entries (browser, wat). Some entries are shipped core tools but unavailable in the current runtime/provider/model/config; other entries won't match any tool unless the plugin is enabled."}},

		// §5.12 case 12
		{name: "12: allow exec",
			in:      Input{Tools: []string{"exec", "process"}, Global: ToolPolicy{Allow: []string{"exec"}}},
			allowed: []string{"exec"}, removed: []rm{{"process", "tools.allow"}}},
		{name: "12: allow exec,process deny process",
			in:      Input{Tools: []string{"exec", "process"}, Global: ToolPolicy{Allow: []string{"exec", "process"}, Deny: []string{"process"}}},
			allowed: []string{"exec"}, removed: []rm{{"process", "tools.deny"}}},

		// §5.12 extra cases
		{name: "extra: case-insensitive match keeps the run's spelling",
			in:      Input{Tools: []string{"Exec", "read"}, Global: ToolPolicy{Allow: []string{"EXEC"}}},
			allowed: []string{"Exec"}, removed: []rm{{"read", "tools.allow"}}},
		{name: "extra: deny wins over allow in the same layer",
			in:      Input{Tools: []string{"exec", "read"}, Global: ToolPolicy{Allow: []string{"exec", "read"}, Deny: []string{"exec"}}},
			allowed: []string{"read"}, removed: []rm{{"exec", "tools.deny"}}},
		{name: "extra: a later layer cannot re-add",
			in:      Input{Tools: []string{"exec", "read"}, Global: ToolPolicy{Deny: []string{"exec"}}, AgentID: "main", Agent: &ToolPolicy{Allow: []string{"exec"}}},
			allowed: []string{}, removed: []rm{{"exec", "tools.deny"}, {"read", "agents.main.tools.allow"}}},
		{name: "extra: alsoAllow without allow never restricts",
			in:      Input{Tools: []string{"exec", "read", "browser"}, Global: ToolPolicy{AlsoAllow: []string{"browser"}}},
			allowed: []string{"exec", "read", "browser"}},
		{name: "extra: byProvider provider/model before provider",
			in: Input{Tools: []string{"exec", "read"}, Provider: "OpenAI", Model: "GPT-4o", Global: ToolPolicy{ByProvider: map[string]ToolPolicy{
				"openai": {Deny: []string{"exec"}}, " OpenAI/gpt-4o ": {Deny: []string{"read"}}}}},
			allowed: []string{"exec"}, removed: []rm{{"read", "tools.byProvider.deny"}}},
		{name: "extra: byProvider falls back to provider",
			in: Input{Tools: []string{"exec", "read"}, Provider: "openai", Model: "o3", Global: ToolPolicy{ByProvider: map[string]ToolPolicy{
				"openai": {Allow: []string{"read"}}, "openai/gpt-4o": {Deny: []string{"read"}}}}},
			allowed: []string{"read"}, removed: []rm{{"exec", "tools.byProvider.allow"}}},
		{name: "extra: byProvider model id with slash is used raw",
			in: Input{Tools: []string{"exec", "read"}, Provider: "openrouter", Model: "anthropic/claude", Global: ToolPolicy{ByProvider: map[string]ToolPolicy{
				"anthropic/claude": {Deny: []string{"exec"}}, "openrouter/anthropic/claude": {Deny: []string{"read"}}}}},
			allowed: []string{"read"}, removed: []rm{{"exec", "tools.byProvider.deny"}}},
		{name: "extra: no provider, no byProvider",
			in:      Input{Tools: []string{"exec"}, Global: ToolPolicy{ByProvider: map[string]ToolPolicy{"openai": {Deny: []string{"exec"}}}}},
			allowed: []string{"exec"}},
		{name: "byProvider profile, agent entry first",
			in: Input{Tools: []string{"exec", "message", "session_status"}, Provider: "openai",
				Global: ToolPolicy{ByProvider: map[string]ToolPolicy{"openai": {Profile: "minimal"}}},
				Agent:  &ToolPolicy{ByProvider: map[string]ToolPolicy{"openai": {Profile: "messaging"}}}},
			allowed: []string{"message", "session_status"}, removed: []rm{{"exec", "tools.byProvider.profile (messaging)"}}},
		{name: "agent byProvider labels",
			in: Input{Tools: []string{"exec", "read"}, Provider: "openai", AgentID: "ops",
				Agent: &ToolPolicy{ByProvider: map[string]ToolPolicy{"openai": {Allow: []string{"exec"}}}}},
			allowed: []string{"exec"}, removed: []rm{{"read", "agents.ops.tools.byProvider.allow"}}},
		{name: "per-agent profile overrides global",
			in:      Input{Tools: []string{"exec", "session_status", "message"}, Global: ToolPolicy{Profile: "minimal"}, Agent: &ToolPolicy{Profile: "coding"}},
			allowed: []string{"exec", "session_status"}, removed: []rm{{"message", "tools.profile (coding)"}}},
		{name: "unknown profile is no policy",
			in:      Input{Tools: []string{"exec", "browser"}, Global: ToolPolicy{Profile: "bogus"}},
			allowed: []string{"exec", "browser"}},
		{name: "full profile is no restriction",
			in:      Input{Tools: []string{"exec", "browser"}, Global: ToolPolicy{Profile: "full"}},
			allowed: []string{"exec", "browser"}},
		{name: "profile fails closed even when none of its tools is present",
			in:      Input{Tools: []string{"browser", "message"}, Global: ToolPolicy{Profile: "minimal"}},
			allowed: []string{}, removed: []rm{{"browser", "tools.profile (minimal)"}, {"message", "tools.profile (minimal)"}}},
		{name: "agent alsoAllow replaces global alsoAllow at the profile step",
			in:      Input{Tools: []string{"exec", "browser", "message"}, Global: ToolPolicy{Profile: "coding", AlsoAllow: []string{"browser"}}, Agent: &ToolPolicy{AlsoAllow: []string{"message"}}},
			allowed: []string{"exec", "message"}, removed: []rm{{"browser", "tools.profile (coding)"}}},
		{name: "group policy",
			in:      Input{Tools: []string{"exec", "read"}, Group: &Policy{Deny: []string{"exec"}}},
			allowed: []string{"read"}, removed: []rm{{"exec", "group tools.deny"}}},
		{name: "sandbox defaults",
			in:      Input{Tools: []string{"exec", "browser", "web_search", "image"}, Sandbox: ptr(SandboxDefaults())},
			allowed: []string{"exec", "image"}, removed: []rm{{"browser", "sandbox tools.deny"}, {"web_search", "sandbox tools.allow"}}},
		{name: "sandbox allow-list is never dropped as plugin-only",
			in:      Input{Tools: []string{"exec", "plugin_tool"}, PluginTools: plugins, Sandbox: &Policy{Allow: []string{"plugin_tool"}}},
			allowed: []string{"plugin_tool"}, removed: []rm{{"exec", "sandbox tools.allow"}}},
		{name: "subagent defaults",
			in:      Input{Tools: []string{"exec", "gateway", "sessions_spawn"}, Subagent: &SubagentInput{}},
			allowed: []string{"exec"}, removed: []rm{{"gateway", "subagent tools.deny"}, {"sessions_spawn", "subagent tools.deny"}}},
		{name: "subagent configured allow",
			in:      Input{Tools: []string{"exec", "read"}, Subagent: &SubagentInput{Tools: Policy{Allow: []string{"read"}}}},
			allowed: []string{"read"}, removed: []rm{{"exec", "subagent tools.allow"}}},
		{name: "first removing step is recorded",
			in: Input{Tools: []string{"exec", "read", "write"}, Global: ToolPolicy{Profile: "minimal"}, Group: &Policy{Deny: []string{"*"}},
				Sandbox: &Policy{Deny: []string{"*"}}},
			allowed: []string{}, removed: []rm{{"exec", "tools.profile (minimal)"}, {"read", "tools.profile (minimal)"}, {"write", "tools.profile (minimal)"}}},
		{name: "deny * removes all",
			in:      Input{Tools: []string{"exec", "read"}, Global: ToolPolicy{Deny: []string{"*"}}},
			allowed: []string{}, removed: []rm{{"exec", "tools.deny"}, {"read", "tools.deny"}}},
		{name: "allow * keeps all",
			in:      Input{Tools: []string{"exec", "read"}, Global: ToolPolicy{Allow: []string{"*"}}},
			allowed: []string{"exec", "read"}},
		{name: "group in deny",
			in:      Input{Tools: []string{"exec", "read", "apply_patch"}, Global: ToolPolicy{Deny: []string{"group:fs"}}},
			allowed: []string{"exec"}, removed: []rm{{"read", "tools.deny"}, {"apply_patch", "tools.deny"}}},
		{name: "glob-only allow-list is not mistaken for unknown",
			in:      Input{Tools: []string{"exec", "web_search", "web_fetch"}, Global: ToolPolicy{Allow: []string{"web_*"}}},
			allowed: []string{"web_search", "web_fetch"}, removed: []rm{{"exec", "tools.allow"}}},
		{name: "regex metacharacters stay literal",
			in:      Input{Tools: []string{"exec", "web_search"}, Global: ToolPolicy{Allow: []string{"exec", "web.*"}}},
			allowed: []string{"exec"}, removed: []rm{{"web_search", "tools.allow"}},
			warnings: []string{"tools: tools.allow allowlist contains unknown entries (web.*). These entries won't match any tool unless the plugin is enabled."}},
		{name: "unknown group is a literal (and unknown)",
			in:       Input{Tools: []string{"exec"}, Global: ToolPolicy{Allow: []string{"group:nope"}}},
			allowed:  []string{"exec"},
			warnings: []string{"tools: tools.allow allowlist contains unknown entries (group:nope). Ignoring allowlist so core tools remain available. These entries won't match any tool unless the plugin is enabled."}},
		{name: "empty and duplicate tool names",
			in:      Input{Tools: []string{"", "exec", " ", "EXEC", "read", "read"}, Global: ToolPolicy{Deny: []string{"read"}}},
			allowed: []string{"exec"}, removed: []rm{{"read", "tools.deny"}}},
		{name: "empty allow entries are no allow-list",
			in:      Input{Tools: []string{"exec"}, Global: ToolPolicy{Allow: []string{"", " "}}},
			allowed: []string{"exec"}},
		{name: "no tools",
			in:       Input{Global: ToolPolicy{Allow: []string{"exec"}}},
			allowed:  []string{},
			warnings: []string{"tools: tools.allow allowlist contains unknown entries (exec). Ignoring allowlist so core tools remain available. These entries are shipped core tools but unavailable in the current runtime/provider/model/config."}},
		{name: "agent without id",
			in:      Input{Tools: []string{"exec", "read"}, Agent: &ToolPolicy{Deny: []string{"read"}}},
			allowed: []string{"exec"}, removed: []rm{{"read", "agent tools.deny"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Resolve(tc.in)
			if !slices.Equal(got.Allowed, tc.allowed) {
				t.Errorf("allowed = %q, want %q", got.Allowed, tc.allowed)
			}
			if tc.removed == nil {
				tc.removed = []Removal{}
			}
			if !reflect.DeepEqual(got.Removed, tc.removed) {
				t.Errorf("removed = %v, want %v", got.Removed, tc.removed)
			}
			if !slices.Equal(got.Warnings, tc.warnings) {
				t.Errorf("warnings =\n%q\nwant\n%q", got.Warnings, tc.warnings)
			}
			if again := Resolve(tc.in); !reflect.DeepEqual(again, got) {
				t.Errorf("not deterministic: %+v vs %+v", again, got)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestResultAllowsAndJSON(t *testing.T) {
	r := Resolve(Input{Tools: []string{"exec", "apply_patch", "Read"}, Global: ToolPolicy{Deny: []string{"apply_patch"}}})
	for tool, want := range map[string]bool{"exec": true, "BASH": true, " read ": true, "apply-patch": false, "": false, "browser": false} {
		if got := r.Allows(tool); got != want {
			t.Errorf("Allows(%q) = %v, want %v", tool, got, want)
		}
	}
	b, _ := json.Marshal(Resolve(Input{}))
	if string(b) != `{"allowed":[],"removed":[]}` {
		t.Errorf("empty result JSON = %s", b)
	}
}

// §5.12 case 13 (the Later audit log, offered as Result.Audit).
func TestAudit(t *testing.T) {
	tools := []string{"exec", "browser", "write", "read"}
	for _, tc := range []struct {
		name  string
		agent ToolPolicy
		id    string
		want  []string
	}{
		{"allow removal", ToolPolicy{Allow: []string{"exec", "read"}}, "",
			[]string{"tool policy removed 2 tool(s) via agent tools.allow: browser, write"}},
		{"deny removal", ToolPolicy{Deny: []string{"browser"}}, "",
			[]string{"tool policy removed 1 tool(s) via agent tools.deny: browser"}},
		{"mixed", ToolPolicy{Allow: []string{"exec", "read", "browser"}, Deny: []string{"browser"}}, "",
			[]string{"tool policy removed 1 tool(s) via agent tools.deny: browser", "tool policy removed 1 tool(s) via agent tools.allow: write"}},
		{"unchanged", ToolPolicy{Allow: []string{"*"}}, "", []string{}},
		{"control characters escaped", ToolPolicy{Deny: []string{"browser"}}, "a\nb",
			[]string{`tool policy removed 1 tool(s) via agents.a\nb.tools.deny: browser`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Resolve(Input{Tools: tools, AgentID: tc.id, Agent: &tc.agent}).Audit()
			if !slices.Equal(got, tc.want) {
				t.Errorf("audit = %q, want %q", got, tc.want)
			}
		})
	}
	got := Result{Removed: []Removal{{"evil\ntool\x01", "tools.deny"}}}.Audit()
	if want := `tool policy removed 1 tool(s) via tools.deny: evil\ntool\u0001`; got[0] != want {
		t.Errorf("audit = %q, want %q", got[0], want)
	}
}

// §5.12 case 10: dedupe across runs, bounded cache.
func TestWarner(t *testing.T) {
	var w Warner
	in := Input{Tools: []string{"exec"}, Global: ToolPolicy{Allow: []string{"wat"}}}
	if got := w.Filter(Resolve(in).Warnings); !slices.Equal(got, []string{wUnknownIgnored}) {
		t.Fatalf("first run: %q", got)
	}
	if got := w.Filter(Resolve(in).Warnings); len(got) != 0 {
		t.Fatalf("second run re-warned: %q", got)
	}
	if got := w.Filter([]string{"a", "a", "b"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("in-batch dupes: %q", got)
	}

	// 257 distinct then a repeat of the first => 258 emitted.
	var fresh Warner
	total := 0
	for i := range 257 {
		total += len(fresh.Filter([]string{fmt.Sprint("w", i)}))
	}
	total += len(fresh.Filter([]string{"w0"}))
	if total != 258 {
		t.Fatalf("emitted %d, want 258", total)
	}

	// LRU: a message seen again is kept; the least recently seen goes.
	var lru Warner
	for i := range WarningCacheSize {
		lru.Filter([]string{fmt.Sprint("m", i)})
	}
	lru.Filter([]string{"m0"})  // refresh m0
	lru.Filter([]string{"new"}) // evicts m1
	if got := lru.Filter([]string{"m0", "m1"}); !slices.Equal(got, []string{"m1"}) {
		t.Fatalf("after eviction: %q", got)
	}
}

func TestWarnerConcurrent(t *testing.T) {
	var w Warner
	done := make(chan int)
	for g := range 8 {
		go func() {
			n := 0
			for i := range 100 {
				n += len(w.Filter([]string{fmt.Sprint(i % 50), fmt.Sprint("g", g)}))
			}
			done <- n
		}()
	}
	total := 0
	for range 8 {
		total += <-done
	}
	if total != 50+8 {
		t.Fatalf("emitted %d, want 58", total)
	}
}

// BenchmarkResolve30x5 resolves 30 tools (24 core + 6 plugin) for 5 agents
// with different policies per iteration.
func BenchmarkResolve30x5(b *testing.B) {
	tools := CoreTools()
	pluginTools := map[string]string{}
	for i := range 6 {
		name := fmt.Sprintf("plug_%d", i)
		tools = append(tools, name)
		pluginTools[name] = fmt.Sprintf("plugin%d", i%2)
	}
	global := ToolPolicy{
		Deny:       []string{"whatsapp_login"},
		ByProvider: map[string]ToolPolicy{"openai": {Deny: []string{"canvas"}}, "anthropic/claude": {AlsoAllow: []string{"plug_0"}}},
	}
	agents := []Input{
		{AgentID: "main"},
		{AgentID: "coder", Agent: &ToolPolicy{Profile: "coding", AlsoAllow: []string{"plugin0"}}},
		{AgentID: "web", Agent: &ToolPolicy{Allow: []string{"group:web", "read", "plug_*"}, Deny: []string{"plug_5"}}, Sandbox: ptr(SandboxDefaults())},
		{AgentID: "chat", Agent: &ToolPolicy{Profile: "messaging", ByProvider: map[string]ToolPolicy{"openai/gpt-4o": {Deny: []string{"sessions_send"}}}}, Group: &Policy{Deny: []string{"group:runtime"}}},
		{AgentID: "worker", Agent: &ToolPolicy{Deny: []string{"browser", "nodes"}}, Subagent: &SubagentInput{Depth: 2, MaxSpawnDepth: 2}},
	}
	for i := range agents {
		agents[i].Tools, agents[i].PluginTools, agents[i].Global = tools, pluginTools, global
		agents[i].Provider, agents[i].Model = "openai", "gpt-4o"
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range agents {
			_ = Resolve(in)
		}
	}
}
