package policy

import (
	"slices"
	"testing"
)

// §5.12 case 7: configuration of tools.subagents.tools, maxSpawnDepth 2,
// depth 1 (an orchestrator).
func TestSubagentPolicyConfig(t *testing.T) {
	in := func(p Policy) SubagentInput { return SubagentInput{Depth: 1, MaxSpawnDepth: 2, Tools: p} }
	for _, tc := range []struct {
		name      string
		cfg       Policy
		allowed   []string
		denied    []string
		wantAllow []string // checked when non-nil
		allowNil  bool
	}{
		{name: "alsoAllow re-enables sessions_send, cron stays denied",
			cfg: Policy{AlsoAllow: []string{"sessions_send"}}, allowed: []string{"sessions_send"}, denied: []string{"cron"}},
		{name: "allow re-enables sessions_send",
			cfg: Policy{Allow: []string{"sessions_send"}}, allowed: []string{"sessions_send"}, denied: []string{"cron", "exec"}},
		{name: "configured deny replaces defaults",
			cfg: Policy{Deny: []string{"gateway"}}, allowed: []string{"cron", "sessions_send", "memory_get"}, denied: []string{"gateway"}},
		{name: "allow and alsoAllow merge",
			cfg:       Policy{Allow: []string{"sessions_spawn"}, AlsoAllow: []string{"sessions_send"}},
			wantAllow: []string{"sessions_spawn", "sessions_send"}, allowed: []string{"sessions_spawn", "sessions_send"}, denied: []string{"exec"}},
		{name: "deny beats allow+alsoAllow",
			cfg:    Policy{Allow: []string{"sessions_send"}, AlsoAllow: []string{"sessions_spawn"}, Deny: []string{"sessions_send"}},
			denied: []string{"sessions_send"}, allowed: []string{"sessions_spawn"}},
		{name: "alsoAllow only leaves allow undefined",
			cfg: Policy{AlsoAllow: []string{"sessions_send"}}, allowNil: true, allowed: []string{"subagents", "exec", "read"}},
		{name: "explicit allow is normalised against defaults",
			cfg: Policy{AlsoAllow: []string{" CRON "}}, allowed: []string{"cron"}, denied: []string{"gateway"}},
		{name: "empty configured deny removes all defaults",
			cfg: Policy{Deny: []string{}}, allowed: []string{"gateway", "cron"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := SubagentPolicy(in(tc.cfg))
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
			if tc.wantAllow != nil && !slices.Equal(p.Allow, tc.wantAllow) {
				t.Errorf("allow = %v, want %v", p.Allow, tc.wantAllow)
			}
			if tc.allowNil && p.Allow != nil {
				t.Errorf("allow = %v, want nil", p.Allow)
			}
		})
	}
}

// §5.12 case 8: the depth matrix.
func TestSubagentPolicyDepth(t *testing.T) {
	for _, tc := range []struct {
		depth, max      int
		allowed, denied []string
	}{
		{1, 2, []string{"sessions_spawn", "subagents", "sessions_list", "sessions_history"},
			[]string{"gateway", "cron", "memory_search", "memory_get", "agents_list", "session_status", "sessions_send", "whatsapp_login"}},
		{2, 2, []string{"subagents", "exec"}, []string{"sessions_spawn", "sessions_list", "sessions_history"}},
		{2, 3, []string{"sessions_spawn"}, nil},
		{3, 3, nil, []string{"sessions_spawn"}},
		{1, 1, nil, []string{"sessions_spawn", "sessions_list"}},
		{0, 2, []string{"sessions_spawn"}, nil}, // unknown depth counts as 1
		{0, 1, nil, []string{"sessions_spawn"}},
		{0, 0, nil, []string{"sessions_spawn"}}, // unset maxSpawnDepth counts as 1
		{5, 2, []string{"subagents"}, []string{"sessions_spawn"}},
	} {
		p := SubagentPolicy(SubagentInput{Depth: tc.depth, MaxSpawnDepth: tc.max})
		for _, tool := range tc.allowed {
			if !Matches(p, tool) {
				t.Errorf("depth %d max %d: %s denied", tc.depth, tc.max, tool)
			}
		}
		for _, tool := range tc.denied {
			if Matches(p, tool) {
				t.Errorf("depth %d max %d: %s allowed", tc.depth, tc.max, tool)
			}
		}
	}
}
