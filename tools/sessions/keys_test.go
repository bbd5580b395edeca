package sessions

import "testing"

func TestCanonicalKeys(t *testing.T) {
	cases := []struct{ in, agent, want string }{
		{"main", "main", "agent:main:main"},
		{"MAIN", "coder", "agent:coder:main"},
		{"cron:job-1", "main", "agent:main:cron:job-1"},
		{"agent:Coder:Main", "main", "agent:coder:main"},
		{"agent:main:telegram:DM:42", "main", "agent:main:telegram:direct:42"},
		{"agent:main:matrix:group:!RoomID:server", "main", "agent:main:matrix:group:!RoomID:server"},
		{"agent:main:discord:group:ABC", "main", "agent:main:discord:group:abc"},
		{"node-AbC", "main", "node-AbC"},
		{"agent:bad id!:main", "main", "agent:bad-id-:main"},
		{"", "main", ""},
	}
	for _, c := range cases {
		if got := Canonical(c.in, c.agent); got != c.want {
			t.Errorf("Canonical(%q, %q) = %q, want %q", c.in, c.agent, got, c.want)
		}
	}
}

func TestKindsAndDisplay(t *testing.T) {
	cases := []struct{ key, kind, channel string }{
		{"agent:main:main", "main", "unknown"},
		{"agent:main:discord:group:1", "group", "discord"},
		{"agent:main:slack:channel:c1", "group", "slack"},
		{"agent:main:cron:j1", "cron", "internal"},
		{"agent:main:hook:u1", "hook", "internal"},
		{"node-n1", "node", "internal"},
		{"agent:main:subagent:x", "other", "unknown"},
	}
	for _, c := range cases {
		if got := Kind(c.key); got != c.kind {
			t.Errorf("Kind(%q) = %q, want %q", c.key, got, c.kind)
		}
		if got := channelOf(c.key, ""); got != c.channel {
			t.Errorf("channelOf(%q) = %q, want %q", c.key, got, c.channel)
		}
	}
	if got := Display("agent:main:cron:j1", "main"); got != "cron:j1" {
		t.Errorf("Display own = %q", got)
	}
	if got := Display("agent:coder:main", "main"); got != "agent:coder:main" {
		t.Errorf("Display other = %q", got)
	}
	if NormalizeAgentID("") != "main" || NormalizeAgentID("--Ops Team") != "ops-team" {
		t.Errorf("NormalizeAgentID: %q %q", NormalizeAgentID(""), NormalizeAgentID("--Ops Team"))
	}
	if SpawnDepth("agent:main:subagent:a:subagent:b") != 2 {
		t.Error("SpawnDepth")
	}
}
