package policy

import (
	"strings"
	"testing"
)

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Policy
		tool string
		want bool
	}{
		// §5.12 case 4
		{"allow * keeps all", Policy{Allow: []string{"*"}}, "browser", true},
		{"allow * keeps plugin names", Policy{Allow: []string{"*"}}, "plugin_x", true},
		{"deny * removes all", Policy{Deny: []string{"*"}}, "exec", false},
		{"deny * beats allow *", Policy{Allow: []string{"*"}, Deny: []string{"*"}}, "read", false},
		// §5.12 case 5
		{"allow glob", Policy{Allow: []string{"web_*"}}, "web_fetch", true},
		{"allow glob excludes others", Policy{Allow: []string{"web_*"}}, "exec", false},
		{"deny glob", Policy{Deny: []string{"web_*"}}, "web_search", false},
		// §5.12 case 6 (Classic: exec implies apply_patch; Later used write)
		{"exec implies apply_patch", Policy{Allow: []string{"exec"}}, "apply_patch", true},
		{"bash alias implies apply_patch", Policy{Allow: []string{"bash"}}, "apply-patch", true},
		{"write does not imply apply_patch (Classic)", Policy{Allow: []string{"write"}}, "apply_patch", false},
		{"glob hitting exec implies apply_patch", Policy{Allow: []string{"ex*"}}, "apply_patch", true},
		{"deny write keeps apply_patch", Policy{Deny: []string{"write"}}, "apply_patch", true},
		{"deny apply_patch beats exec", Policy{Allow: []string{"exec"}, Deny: []string{"apply_patch"}}, "apply_patch", false},
		// extra cases
		{"case-insensitive tool", Policy{Allow: []string{"exec"}}, "Exec", true},
		{"case-insensitive entry", Policy{Allow: []string{"EXEC"}}, "exec", true},
		{"alias entry", Policy{Allow: []string{"bash"}}, "exec", true},
		{"alias tool", Policy{Allow: []string{"exec"}}, "BASH", true},
		{"deny wins in same layer", Policy{Allow: []string{"exec"}, Deny: []string{"exec"}}, "exec", false},
		{"empty policy allows", Policy{}, "anything", true},
		{"empty allow list allows", Policy{Allow: []string{}}, "exec", true},
		{"empty-string allow entries are dropped", Policy{Allow: []string{"", "  "}}, "exec", true},
		{"empty-string deny entries are dropped", Policy{Deny: []string{""}}, "exec", true},
		{"empty tool name not allowed by allow-list", Policy{Allow: []string{"exec"}}, "", false},
		{"duplicate entries", Policy{Allow: []string{"exec", "exec", "EXEC"}}, "exec", true},
		{"group in allow", Policy{Allow: []string{"group:fs"}}, "edit", true},
		{"group in deny", Policy{Deny: []string{"group:fs"}}, "apply_patch", false},
		{"group in deny leaves others", Policy{Deny: []string{"group:fs"}}, "exec", true},
		{"group case-insensitive", Policy{Deny: []string{"GROUP:RUNTIME"}}, "process", false},
		{"unknown group is a literal", Policy{Allow: []string{"group:nope"}}, "exec", false},
		{"unknown group literal matches itself", Policy{Allow: []string{"group:nope"}}, "group:nope", true},
		{"regex metachar is literal: no match", Policy{Allow: []string{"web.*"}}, "web_search", false},
		{"regex metachar is literal: match", Policy{Allow: []string{"web.*"}}, "web.search", true},
		{"brackets are literal", Policy{Allow: []string{"[a-z]*"}}, "exec", false},
		{"plus and parens are literal", Policy{Allow: []string{"a+(b)*"}}, "a+(b)c", true},
		{"star in the middle", Policy{Allow: []string{"sessions_*y"}}, "sessions_history", true},
		{"star in the middle no match", Policy{Allow: []string{"sessions_*y"}}, "sessions_list", false},
		{"double star", Policy{Allow: []string{"**"}}, "x", true},
		{"glob anchored both ends", Policy{Allow: []string{"*_get"}}, "memory_get_x", false},
		{"glob overlapping parts", Policy{Allow: []string{"a*a"}}, "a", false},
		{"glob overlapping parts ok", Policy{Allow: []string{"a*a"}}, "aa", true},
		{"alsoAllow alone never restricts", Policy{AlsoAllow: []string{"browser"}}, "exec", true},
		{"alsoAllow unions into allow", Policy{Allow: []string{"exec"}, AlsoAllow: []string{"browser"}}, "browser", true},
		{"alsoAllow union still restricts", Policy{Allow: []string{"exec"}, AlsoAllow: []string{"browser"}}, "read", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Matches(tc.p, tc.tool); got != tc.want {
				t.Errorf("Matches(%+v, %q) = %v, want %v", tc.p, tc.tool, got, tc.want)
			}
		})
	}
}

// Conformance 4 over the whole inventory.
func TestMatchesStarOverInventory(t *testing.T) {
	for _, tool := range CoreTools() {
		if !Matches(Policy{Allow: []string{"*"}}, tool) {
			t.Errorf("allow * dropped %s", tool)
		}
		if Matches(Policy{Deny: []string{"*"}}, tool) {
			t.Errorf("deny * kept %s", tool)
		}
	}
}

func FuzzMatches(f *testing.F) {
	f.Add("exec,web_*", "process", "", "apply_patch")
	f.Add("*", "*", "x", "")
	f.Add("group:fs", "", "a*b*c", "abc")
	f.Add("web.*", "[", "(", "web.x")
	f.Add("**", "\x00*", "\ufeff", "  BASH ")
	f.Fuzz(func(t *testing.T, allow, deny, also, tool string) {
		p := Policy{Allow: strings.Split(allow, ","), AlsoAllow: strings.Split(also, ","), Deny: strings.Split(deny, ",")}
		got := Matches(p, tool)
		if got && Matches(Policy{Deny: p.Deny}, tool) == false {
			t.Fatalf("allowed %q although its deny list alone rejects it", tool)
		}
		if !Matches(Policy{}, tool) {
			t.Fatalf("empty policy rejected %q", tool)
		}
		if Matches(Policy{Deny: []string{"*"}}, tool) {
			t.Fatalf("deny * admitted %q", tool)
		}
		r := Resolve(Input{Tools: []string{tool, "exec"}, Global: ToolPolicy{Allow: p.Allow, AlsoAllow: p.AlsoAllow, Deny: p.Deny}})
		if len(r.Allowed)+len(r.Removed) > 2 {
			t.Fatalf("Resolve invented tools: %+v", r)
		}
	})
}
