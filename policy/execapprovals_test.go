package policy

import (
	"reflect"
	"testing"
)

func TestAnalyzeCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		segs [][]string
		ok   bool
	}{
		{"rg -n foo", [][]string{{"rg", "-n", "foo"}}, true},
		{"ls | head -n 2 && echo 'a b'; wc -l", [][]string{{"ls"}, {"head", "-n", "2"}, {"echo", "a b"}, {"wc", "-l"}}, true},
		{`echo "x y" || true`, [][]string{{"echo", "x y"}, {"true"}}, true},
		{"ls > out", nil, false},
		{"cat < in", nil, false},
		{"echo $(id)", nil, false},
		{"echo \"$(id)\"", nil, false},
		{"echo `id`", nil, false},
		{"sleep 1 &", nil, false},
		{"(ls)", nil, false},
		{"echo 'open", nil, false},
		{"ls ||", nil, false},
	} {
		segs, ok := AnalyzeCommand(c.in)
		if ok != c.ok || !reflect.DeepEqual(segs, c.segs) {
			t.Errorf("%q: %v %v, want %v %v", c.in, segs, ok, c.segs, c.ok)
		}
	}
}

func TestMatchAllowlist(t *testing.T) {
	rg := Segment{Argv: []string{"rg", "-n", "foo"}, Resolved: "/opt/bin/rg", ViaPATH: true}
	local := Segment{Argv: []string{"./rg"}, Resolved: "/opt/bin/rg"}
	for _, c := range []struct {
		name  string
		entry AllowlistEntry
		seg   Segment
		want  bool
	}{
		{"bare name via PATH", AllowlistEntry{Pattern: "rg"}, rg, true},
		{"bare name not for an explicit path", AllowlistEntry{Pattern: "rg"}, local, false},
		{"bare glob", AllowlistEntry{Pattern: "r?"}, rg, true},
		{"path glob *", AllowlistEntry{Pattern: "/opt/bin/*"}, local, true},
		{"path * stops at /", AllowlistEntry{Pattern: "/opt/*"}, rg, false},
		{"path **", AllowlistEntry{Pattern: "/opt/**"}, rg, true},
		{"home", AllowlistEntry{Pattern: "~/bin/rg"}, Segment{Argv: []string{"rg"}, Resolved: "/h/bin/rg"}, true},
		{"argPattern hit", AllowlistEntry{Pattern: "rg", ArgPattern: "^-n "}, rg, true},
		{"argPattern miss", AllowlistEntry{Pattern: "rg", ArgPattern: "^-l"}, rg, false},
		{"star allows all", AllowlistEntry{Pattern: "*"}, local, true},
		{"unresolved never matches", AllowlistEntry{Pattern: "rg"}, Segment{Argv: []string{"rg"}, ViaPATH: true}, false},
	} {
		if got := MatchAllowlist(c.seg, []AllowlistEntry{c.entry}, "/h") != nil; got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTightenAndFile(t *testing.T) {
	if TightestSecurity("full", "allowlist", "") != "allowlist" || TightestSecurity("full", "", "deny") != "deny" {
		t.Error("security does not tighten")
	}
	if StrictestAsk("off", "on-miss", "") != "on-miss" || StrictestAsk("always", "off") != "always" {
		t.Error("ask does not tighten")
	}
	// Legacy agents.default merges into main.
	doc := &ExecApprovals{Agents: map[string]*ExecApprovalAgent{"default": {Security: "allowlist", Allowlist: []AllowlistEntry{{Pattern: "jq"}}}}}
	doc.Normalize()
	if sec, _, allow := doc.Effective("main"); sec != "allowlist" || len(allow) != 1 || allow[0].Pattern != "jq" || doc.Agents["default"] != nil {
		t.Fatalf("legacy: %v %v %v", sec, allow, doc.Agents)
	}
}

// An agent with no entry of its own is never looser than main (issue 30
// item 2): `approvals set` writes agents.main, and an id nobody configured
// used to fall back to the defaults block, whose built-in security is full.
func TestResolveNeverLooserThanMain(t *testing.T) {
	f := false
	doc := &ExecApprovals{
		Defaults: ExecApprovalAgent{Allowlist: []AllowlistEntry{{Pattern: "ls"}}},
		Agents: map[string]*ExecApprovalAgent{
			"main": {Security: "allowlist", Ask: "on-miss", AskFallback: "deny", AutoAllowSkills: &f, Allowlist: []AllowlistEntry{{Pattern: "git"}}},
			"work": {Security: "full"},
			// what allow-always leaves for an agent that had no entry
			"ops": {Allowlist: []AllowlistEntry{{Pattern: "make", Source: "allow-always"}}},
		},
	}
	for _, c := range []struct {
		agent, sec, ask, fallback string
		allow                     []string
	}{
		{"main", "allowlist", "on-miss", "deny", []string{"ls", "git"}},
		{"", "allowlist", "on-miss", "deny", []string{"ls", "git"}},
		{"work", "full", "on-miss", "deny", []string{"ls"}}, // its own fields decide; the rest no looser than main
		{"zzz", "allowlist", "on-miss", "deny", []string{"ls"}},
		{"ops", "allowlist", "on-miss", "deny", []string{"ls", "make"}},
	} {
		r := doc.Resolve(c.agent)
		var allow []string
		for _, e := range r.Allowlist {
			allow = append(allow, e.Pattern)
		}
		if r.Security != c.sec || r.Ask != c.ask || r.AskFallback != c.fallback || !reflect.DeepEqual(allow, c.allow) {
			t.Errorf("%q: %s/%s/%s %v, want %s/%s/%s %v", c.agent, r.Security, r.Ask, r.AskFallback, allow, c.sec, c.ask, c.fallback, c.allow)
		}
	}
	// A tighter defaults block stays tighter than main.
	doc.Defaults.Security, doc.Defaults.Ask = "deny", "always"
	if r := doc.Resolve("zzz"); r.Security != "deny" || r.Ask != "always" {
		t.Errorf("zzz under deny defaults: %s/%s", r.Security, r.Ask)
	}
	// With no main entry the defaults alone decide.
	delete(doc.Agents, "main")
	doc.Defaults = ExecApprovalAgent{Security: "allowlist"}
	if r := doc.Resolve("zzz"); r.Security != "allowlist" || r.Ask != "" {
		t.Errorf("no main entry: %s/%s", r.Security, r.Ask)
	}
}
