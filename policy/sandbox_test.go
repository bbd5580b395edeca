package policy

import (
	"slices"
	"testing"
)

func TestSandboxDefaults(t *testing.T) {
	d := SandboxDefaults()
	for _, tool := range []string{"exec", "read", "apply_patch", "image", "sessions_spawn", "session_status"} {
		if !Matches(d, tool) {
			t.Errorf("default sandbox denies %s", tool)
		}
	}
	for _, tool := range []string{"browser", "canvas", "nodes", "cron", "gateway", "telegram", "slack", "web_search", "message", "plugin_x"} {
		if Matches(d, tool) {
			t.Errorf("default sandbox allows %s", tool)
		}
	}
	d.Deny[0] = "x"
	if SandboxDefaults().Deny[0] != "browser" {
		t.Error("SandboxDefaults leaked its slice")
	}
}

func TestSandboxPolicy(t *testing.T) {
	for _, tc := range []struct {
		name            string
		agent, global   *Policy
		allowed, denied []string
	}{
		{name: "nothing configured = defaults",
			allowed: []string{"exec", "image"}, denied: []string{"browser", "web_search"}},
		{name: "global allow replaces default allow",
			global:  &Policy{Allow: []string{"group:web"}},
			allowed: []string{"web_search", "image"}, denied: []string{"exec", "browser"}},
		{name: "per-agent sandbox.tools replaces global",
			agent: &Policy{Allow: []string{"read"}}, global: &Policy{Allow: []string{"exec"}},
			allowed: []string{"read", "image"}, denied: []string{"exec"}},
		{name: "keys fall back independently: agent allow, global deny",
			agent: &Policy{Allow: []string{"read", "write"}}, global: &Policy{Deny: []string{"write"}},
			allowed: []string{"read"}, denied: []string{"write", "browser" /* not in allow */}},
		{name: "configured deny replaces default deny",
			global:  &Policy{Allow: []string{"*"}, Deny: []string{"exec"}},
			allowed: []string{"browser", "gateway"}, denied: []string{"exec"}},
		{name: "alsoAllow extends default allow and lifts default deny",
			global:  &Policy{AlsoAllow: []string{"browser"}},
			allowed: []string{"browser", "exec"}, denied: []string{"canvas", "web_fetch"}},
		{name: "image can be denied",
			global:  &Policy{Deny: []string{"image"}},
			allowed: []string{"exec"}, denied: []string{"image", "browser" /* deny replaced, but not in allow */}},
		{name: "empty allow means everything, image not forced",
			global:  &Policy{Allow: []string{}},
			allowed: []string{"web_search"}, denied: []string{"browser"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := SandboxPolicy(tc.agent, tc.global)
			for _, tool := range tc.allowed {
				if !Matches(p, tool) {
					t.Errorf("%s denied by %+v", tool, p)
				}
			}
			for _, tool := range tc.denied {
				if Matches(p, tool) {
					t.Errorf("%s allowed by %+v", tool, p)
				}
			}
		})
	}
	if p := SandboxPolicy(&Policy{Allow: []string{}}, nil); slices.Contains(p.Allow, "image") {
		t.Errorf("image forced into empty allow: %v", p.Allow)
	}
}
