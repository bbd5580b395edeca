package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// These tests pin lines that a one-line mutation (gremlins, `make mutate`)
// could change with every other test still passing (issue 17, item 20).

// Normalize: a document without a version is version 1; the legacy
// agents.default fills each field agents.main leaves empty (and only those).
func TestNormalizeLegacyDefaultFillsEachEmptyField(t *testing.T) {
	d := &ExecApprovals{Agents: map[string]*ExecApprovalAgent{
		"default": {Security: "allowlist", Ask: "always", AskFallback: "deny", Allowlist: []AllowlistEntry{{Pattern: "/usr/bin/make"}}},
	}}
	d.Normalize()
	if d.Version != 1 {
		t.Errorf("version = %d, want 1", d.Version)
	}
	m := d.Agents["main"]
	if m == nil || m.Security != "allowlist" || m.Ask != "always" || m.AskFallback != "deny" || len(m.Allowlist) != 1 {
		t.Fatalf("agents.default not merged into main: %+v", m)
	}
	if _, ok := d.Agents["default"]; ok {
		t.Error("agents.default kept after the merge")
	}

	d = &ExecApprovals{Version: 1, Agents: map[string]*ExecApprovalAgent{
		"main":    {Security: "deny", Ask: "on-miss", AskFallback: "deny"},
		"default": {Security: "full", Ask: "off", AskFallback: "full"},
	}}
	d.Normalize()
	if m := d.Agents["main"]; m.Security != "deny" || m.Ask != "on-miss" || m.AskFallback != "deny" {
		t.Errorf("the legacy entry loosened main's own fields: %+v", m)
	}
}

// Agent creates the entry in a zero document (nil map) and keeps the
// entries already there.
func TestAgentKeepsOtherAgents(t *testing.T) {
	var d ExecApprovals
	d.Agent("ops").Security = "deny"
	d.Agent("main")
	if d.Agents["ops"] == nil || d.Agents["ops"].Security != "deny" || d.Agents["main"] == nil {
		t.Fatalf("agents = %+v", d.Agents)
	}
}

// Effective: an agent's own ask overrides the defaults' ask; an agent
// without one inherits it.
func TestEffectiveAgentAskOverridesDefaults(t *testing.T) {
	d := &ExecApprovals{Defaults: ExecApprovalAgent{Security: "allowlist", Ask: "off"}, Agents: map[string]*ExecApprovalAgent{
		"strict": {Ask: "always"}, "plain": {Security: "deny"},
	}}
	if sec, ask, _ := d.Effective("strict"); sec != "allowlist" || ask != "always" {
		t.Errorf("strict: %q %q, want allowlist always", sec, ask)
	}
	if sec, ask, _ := d.Effective("plain"); sec != "deny" || ask != "off" {
		t.Errorf("plain: %q %q, want deny off", sec, ask)
	}
}

// AnalyzeWords inside double quotes: "$(…)" is command substitution even
// there (a miss), "$X" marks the word as expanding, an unclosed quote or a
// trailing "$" is a miss (and no panic); "a || b" is two commands.
func TestAnalyzeWordsQuotesAndOr(t *testing.T) {
	for _, line := range []string{`echo "$(id)"`, `echo "x$(id)"`, `echo "abc`, `echo "ab$`, `echo "ab\`, "ls |", `ls "`} {
		if segs, ok := AnalyzeWords(line); ok {
			t.Errorf("%s: ok with %v, want a miss", line, segs)
		}
	}
	segs, ok := AnalyzeWords(`echo "$HOME" "plain" 'lit$x'`)
	if !ok || len(segs) != 1 || !slices.Equal(segs[0].Expands, []bool{false, true, false, false}) {
		t.Errorf("expands = %+v ok=%v, want [false true false false]", segs, ok)
	}
	segs, ok = AnalyzeWords("true || echo x")
	if !ok || len(segs) != 2 || segs[1].Argv[0] != "echo" {
		t.Errorf("true || echo x: %+v ok=%v, want two commands", segs, ok)
	}
	if _, ok := AnalyzeWords("|| echo x"); ok {
		t.Error("a line starting with || is a miss")
	}
}

// MergeLoop copies the global detectors before laying the agent's over
// them (the config's own value stays as it was), and every detector key
// of the agent is laid over.
func TestMergeLoopDoesNotWriteThroughGlobal(t *testing.T) {
	yes, no := true, false
	global := &LoopConfig{Detectors: &LoopDetectors{PingPong: &yes, KnownPollNoProgress: &yes}}
	agent := &LoopConfig{Detectors: &LoopDetectors{PingPong: &no, KnownPollNoProgress: &no}}
	out := MergeLoop(global, agent)
	if *out.Detectors.PingPong || *out.Detectors.KnownPollNoProgress {
		t.Errorf("agent detectors not applied: %+v", *out.Detectors)
	}
	if global.Detectors.PingPong != &yes || global.Detectors.KnownPollNoProgress != &yes {
		t.Error("MergeLoop changed the global config's detectors")
	}
	if s := out.Settings(); s.PingPongCheck || s.KnownPoll || !s.GenericRepeat {
		t.Errorf("settings = %+v", s)
	}
}

// Settings: a 0 (not positive) history size takes the default; a breaker
// equal to critical is raised above it.
func TestLoopSettingsZeroAndEqualThresholds(t *testing.T) {
	zero, c, b := 0, 25, 25
	s := LoopConfig{HistorySize: &zero, CriticalThreshold: &c, GlobalCircuitBreakerThreshold: &b}.Settings()
	if s.HistorySize != DefaultLoopHistory {
		t.Errorf("history = %d, want %d", s.HistorySize, DefaultLoopHistory)
	}
	if s.Critical != 25 || s.Breaker != 26 {
		t.Errorf("critical %d breaker %d, want 25 26", s.Critical, s.Breaker)
	}
}

// The shortest ping-pong (B, A, then B again) counts 3, including the
// oldest call of the history.
func TestPingPongShortestAlternation(t *testing.T) {
	h := []ToolCall{{"t", "B", "rb"}, {"t", "A", "ra"}}
	if n, ev := pingPong(h, "B"); n != 3 || !ev {
		t.Errorf("pingPong = %d %v, want 3 true", n, ev)
	}
}

// A blocked ping-pong call is recorded with the outcome of its last
// identical call, found however far back (here the oldest entry), so the
// next alternating call is still blocked rather than only warned about.
func TestBlockedCallInheritsOldestOutcome(t *testing.T) {
	s := LoopSettings{Enabled: true, HistorySize: 30, Warning: 1, Critical: 2, Breaker: 30, PingPongCheck: true}
	tr := NewLoopTracker()
	_, k := tr.Before("s", s, "t", "B", false)
	k.Done("rb")
	_, k = tr.Before("s", s, "t", "A", false)
	k.Done("ra")
	if v, _ := tr.Before("s", s, "t", "B", false); v.Level != LoopCritical {
		t.Fatalf("third call: %+v, want critical", v)
	}
	if v, _ := tr.Before("s", s, "t", "A", false); v.Level != LoopCritical || v.Detector != "ping_pong" {
		t.Errorf("fourth call: %+v, want critical ping_pong", v)
	}
}

// The tracker remembers at most maxLoopSessions sessions and forgets the
// least recently used one; two sessions are kept apart.
func TestLoopTrackerForgetsLeastRecentlyUsed(t *testing.T) {
	tr := NewLoopTracker()
	s := on()
	for i := 0; i < maxLoopSessions; i++ {
		tr.Before(fmt.Sprint("k", i), s, "t", "a", false)
	}
	tr.Before("k0", s, "t", "a", false) // k0 is now the most recent
	tr.Before("new", s, "t", "a", false)
	if len(tr.sessions) != maxLoopSessions {
		t.Errorf("%d sessions, want %d", len(tr.sessions), maxLoopSessions)
	}
	if tr.sessions["k0"] == nil || tr.sessions["new"] == nil {
		t.Error("the most recently used sessions were forgotten")
	}
	if tr.sessions["k1"] != nil {
		t.Error("k1, the least recently used, was kept")
	}
	if len(tr.sessions["k0"].calls) != 2 {
		t.Errorf("k0 has %d calls, want 2", len(tr.sessions["k0"].calls))
	}
}

// An agent's byProvider alsoAllow replaces the global byProvider one at
// the provider-profile step.
func TestAgentProviderAlsoAllowReplacesGlobal(t *testing.T) {
	r := Resolve(Input{
		Tools:    []string{"read", "exec", "session_status"},
		Provider: "openai",
		Global:   ToolPolicy{ByProvider: map[string]ToolPolicy{"openai": {Profile: "minimal", AlsoAllow: []string{"read"}}}},
		Agent:    &ToolPolicy{ByProvider: map[string]ToolPolicy{"openai": {AlsoAllow: []string{"exec"}}}},
	})
	if !r.Allows("exec") || r.Allows("read") || !r.Allows("session_status") {
		t.Errorf("allowed = %v removed = %v", r.Allowed, r.Removed)
	}
}

// With plugins present, an allow entry that names neither a core nor a
// plugin tool is reported as unknown, not as a plugin entry.
func TestUnknownEntryWithPluginsIsUnknown(t *testing.T) {
	r := Resolve(Input{Tools: []string{"exec", "plugin_tool"}, PluginTools: map[string]string{"plugin_tool": "demo"},
		Global: ToolPolicy{Allow: []string{"wat"}}})
	if len(r.Warnings) != 1 || strings.Contains(r.Warnings[0], "only plugin entries") || !strings.Contains(r.Warnings[0], "wat") {
		t.Errorf("warnings = %q", r.Warnings)
	}
}

// SafeBin: tr's operands are character sets, so an unquoted glob in them
// is tr's own syntax; the bin's own name is never allowed to be a glob.
func TestSafeBinGlobOnlyInOperands(t *testing.T) {
	bins, dirs := DefaultSafeBins, []string{"/usr/bin"}
	ok := Segment{Argv: []string{"tr", "[a-z]", "[A-Z]"}, Resolved: "/usr/bin/tr", ViaPATH: true, Expands: []bool{false, true, true}}
	if !SafeBin(ok, bins, dirs) {
		t.Error("tr [a-z] [A-Z] refused")
	}
	globName := Segment{Argv: []string{"t?", "a", "b"}, Resolved: "/usr/bin/tr", ViaPATH: true, Expands: []bool{true, false, false}}
	if SafeBin(globName, bins, dirs) {
		t.Error("a globbed program name passed as tr")
	}
}

// "--" ends the options: what follows counts as operands, and nothing
// following is none. A short value option needs its value.
func TestSafeBinDoubleDashCountsOperands(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"head --", true}, {"head -n 5 --", true}, {"head -- f", false}, {"head -n 5 -- f", false},
		{"tr -d -- a", true}, {"tr -d -- a b c", false}, {"tr -- a b", true},
		{"head -n", false}, {"tail -qn", false}, {"cut -f", false},
	} {
		if got := safe(t, c.line, DefaultSafeBins); got != c.want {
			t.Errorf("%s: %v, want %v", c.line, got, c.want)
		}
	}
}

// An abbreviation shared by options of different kinds is ambiguous
// (getopt refuses it too): grep --co is --count, --color, --colour or
// --context. The long options live in a map, so the check is repeated to
// cover the orders it can be walked in.
func TestSafeBinAmbiguousAbbreviationRefused(t *testing.T) {
	for i := 0; i < 64; i++ {
		if safe(t, "grep -e x --co", DefaultSafeBins) {
			t.Fatal("grep -e x --co passed: an ambiguous abbreviation was taken as one option")
		}
	}
	if !safe(t, "grep -e x --cou", DefaultSafeBins) {
		t.Error("grep -e x --cou (--count) refused")
	}
}

// Wrapper options are matched after GNU abbreviation; a wrapper with no
// program (nothing after its options) is the program itself.
func TestUnwrapAbbreviationsAndBareWrappers(t *testing.T) {
	trusted := func(string) bool { return true }
	for _, c := range []struct {
		line, program string
	}{
		{"timeout --sig=KILL 5 make", "make"},
		{"nice --adj=5 make", "make"},
		{"nohup", "nohup"},
		{"nice -n 5", "nice"},
		{"setsid -w", "setsid"},
	} {
		segs, ok := AnalyzeWords(c.line)
		if !ok {
			t.Fatal(c.line)
		}
		start, refused := Unwrap(segs[0], trusted)
		if segs[0].Argv[start] != c.program || refused != "" {
			t.Errorf("%s: lands on %q refused %q, want %q", c.line, segs[0].Argv[start], refused, c.program)
		}
	}
	segs, _ := AnalyzeWords("nice --=5 make")
	if _, refused := Unwrap(segs[0], trusted); refused != "nice" {
		t.Errorf("nice --=5 make: refused %q, want nice", refused)
	}
}

// A critical threshold equal to the warning one is raised above it.
func TestLoopSettingsCriticalEqualWarning(t *testing.T) {
	w, c := 15, 15
	if s := (LoopConfig{WarningThreshold: &w, CriticalThreshold: &c}).Settings(); s.Warning != 15 || s.Critical != 16 {
		t.Errorf("warning %d critical %d, want 15 16", s.Warning, s.Critical)
	}
}

// Outcome hashes ignore volatile keys (a result is parsed, not hashed as
// text); argument hashes tell a string from a number.
func TestHashesParseTheirInput(t *testing.T) {
	a := ResultHash(json.RawMessage(`{"status":"ok","durationMs":5,"pid":1}`), "")
	b := ResultHash(json.RawMessage(`{"pid":2, "status":"ok","durationMs":9}`), "")
	if a != b {
		t.Error("results differing only in volatile keys hash apart")
	}
	if ResultHash(json.RawMessage(`{"status":"ok"}`), "") == ResultHash(json.RawMessage(`{"status":"failed"}`), "") {
		t.Error("different outcomes hash alike")
	}
	if ArgsHash("t", json.RawMessage(`{"a":"1"}`)) == ArgsHash("t", json.RawMessage(`{"a":1}`)) {
		t.Error(`{"a":"1"} and {"a":1} hash alike`)
	}
}

// Done records an outcome on its own call even when a later call was
// recorded first (calls overlap).
func TestLoopDoneOutOfOrder(t *testing.T) {
	tr := NewLoopTracker()
	s := on()
	_, first := tr.Before("s", s, "t", "a", false)
	_, second := tr.Before("s", s, "t", "b", false)
	first.Done("ra")
	second.Done("rb")
	calls := tr.sessions["s"].calls
	if len(calls) != 2 || calls[0].ResultHash != "ra" || calls[1].ResultHash != "rb" {
		t.Errorf("calls %+v", calls)
	}
}
