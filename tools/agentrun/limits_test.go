package agentrun_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
)

// invokeTool runs an agent tool over tools.invoke as the session key's
// agent (a relayed agent caller) and returns the tool's details.
func invokeTool(t *testing.T, c *client.Conn, key, name string, args map[string]any) gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := c.Call(ctx, "tools.invoke", map[string]any{"name": name, "sessionKey": key, "args": args})
	if err != nil {
		t.Fatalf("%s as %s: %v", name, key, err)
	}
	if !gjson.GetBytes(r, "ok").Bool() {
		t.Fatalf("%s as %s: %s", name, key, r)
	}
	return gjson.GetBytes(r, "output.details")
}

func answers(text string) *scripted {
	return &scripted{script: func(gjson.Result) reply { return reply{text: text} }}
}

// tools.agentToAgent.allow must name both agents of a cross-agent send:
// naming only the sender, or only the target, forbids it; both allow it.
func TestAgentToAgentAllowNeedsBothAgents(t *testing.T) {
	for _, c := range []struct {
		allow []any
		ok    bool
	}{{[]any{"main"}, false}, {[]any{"ops"}, false}, {[]any{"main", "ops"}, true}, {[]any{"M*", "ops"}, true}} {
		url, _ := flowGateway(t, answers("pong"), map[string]any{
			"tools":  map[string]any{"agentToAgent": map[string]any{"enabled": true, "allow": c.allow}},
			"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1"}, "list": []any{map[string]any{"id": "main"}, map[string]any{"id": "ops"}}},
		})
		r := invokeTool(t, dial(t, url, nil), "agent:main:main", "sessions_send", map[string]any{"agentId": "ops", "message": "ping", "timeoutSeconds": 0})
		if got := r.Get("status").String() == "accepted"; got != c.ok {
			t.Errorf("allow %v: main to ops: %s", c.allow, r.Raw)
		}
		if !c.ok && r.Get("error").String() != "Agent-to-agent messaging denied by tools.agentToAgent.allow." {
			t.Errorf("allow %v: the refusal: %s", c.allow, r.Raw)
		}
	}
}

// agents.defaults.subagents.maxSpawnDepth bounds nesting in the handler
// itself, not only through the sub-agent tool policy: a depth-1 session
// whose policy lets it call sessions_spawn is still forbidden under the
// default maximum 1, and may spawn under 2.
func TestMaxSpawnDepth(t *testing.T) {
	alsoAllow := map[string]any{"subagents": map[string]any{"tools": map[string]any{"alsoAllow": []any{"sessions_spawn"}}}}
	url, _ := flowGateway(t, answers("done"), map[string]any{"tools": alsoAllow})
	const child = "agent:main:subagent:11111111-2222-3333-4444-555555555555"
	r := invokeTool(t, dial(t, url, nil), child, "sessions_spawn", map[string]any{"task": "go deeper"})
	if r.Get("status").String() != "forbidden" || r.Get("error").String() != "sessions_spawn is not allowed at this depth (current depth: 1, max: 1)" {
		t.Fatalf("depth 1 under max 1: %s", r.Raw)
	}
	url, _ = flowGateway(t, answers("done"), map[string]any{"tools": alsoAllow,
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1", "subagents": map[string]any{"maxSpawnDepth": 2}}}})
	r = invokeTool(t, dial(t, url, nil), child, "sessions_spawn", map[string]any{"task": "go deeper"})
	if r.Get("status").String() != "accepted" || !strings.HasPrefix(r.Get("childSessionKey").String(), child+":subagent:") {
		t.Fatalf("depth 1 under max 2: %s", r.Raw)
	}
}

// agents.defaults.subagents.maxChildrenPerAgent caps the sub-agents one
// session has running: with 1, a second spawn while the first child is
// still running is forbidden.
func TestMaxChildrenPerAgent(t *testing.T) {
	hold := make(chan struct{})
	m := answers("done")
	m.hold = func(req gjson.Result) chan struct{} {
		if strings.Contains(system(req), "sub-agent") {
			return hold
		}
		return nil
	}
	url, _ := flowGateway(t, m, map[string]any{
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1", "subagents": map[string]any{"maxChildrenPerAgent": 1}}}})
	defer close(hold) // before the gateway stops: the held child ends
	c := dial(t, url, nil)
	if r := invokeTool(t, c, "agent:main:main", "sessions_spawn", map[string]any{"task": "first"}); r.Get("status").String() != "accepted" {
		t.Fatalf("first spawn: %s", r.Raw)
	}
	r := invokeTool(t, c, "agent:main:main", "sessions_spawn", map[string]any{"task": "second"})
	if r.Get("status").String() != "forbidden" || !strings.HasPrefix(r.Get("error").String(), "sessions_spawn: too many sub-agents running (1 for this session, max 1;") {
		t.Fatalf("second spawn while the first runs: %s", r.Raw)
	}
	// Another session has its own count.
	if r := invokeTool(t, c, "agent:main:other", "sessions_spawn", map[string]any{"task": "third"}); r.Get("status").String() != "accepted" {
		t.Fatalf("a spawn from another session: %s", r.Raw)
	}
}

// subagents.allowAgents decides which other agents a session may spawn
// under: none configured forbids ops; the requester's list naming ops
// allows it.
func TestAllowAgents(t *testing.T) {
	for _, c := range []struct {
		main map[string]any
		ok   bool
	}{
		{map[string]any{"id": "main"}, false},
		{map[string]any{"id": "main", "subagents": map[string]any{"allowAgents": []any{"zed"}}}, false},
		{map[string]any{"id": "main", "subagents": map[string]any{"allowAgents": []any{"ops"}}}, true},
	} {
		url, _ := flowGateway(t, answers("done"), map[string]any{
			"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1"},
				"list": []any{c.main, map[string]any{"id": "ops"}, map[string]any{"id": "zed"}}}})
		r := invokeTool(t, dial(t, url, nil), "agent:main:main", "sessions_spawn", map[string]any{"task": "t", "agentId": "ops"})
		switch {
		case c.ok && (r.Get("status").String() != "accepted" || !strings.HasPrefix(r.Get("childSessionKey").String(), "agent:ops:subagent:")):
			t.Errorf("%v: spawn under ops: %s", c.main, r.Raw)
		case !c.ok && (r.Get("status").String() != "forbidden" || !strings.HasPrefix(r.Get("error").String(), "agentId is not allowed for sessions_spawn")):
			t.Errorf("%v: spawn under ops: %s", c.main, r.Raw)
		}
	}
}

// Two turns on one session never interleave: a second turn started while
// the first waits on the model neither writes to the transcript nor asks
// the model until the first has ended, and then sees the first's answer.
// The first turn's model call is held until the second turn's call
// arrives, which only a runtime that lets them interleave lets happen, or
// a grace period ends (the test's pass never depends on that period: a
// correct runtime passes whatever it is).
func TestTurnsOnOneSessionNeverInterleave(t *testing.T) {
	second := make(chan struct{})
	m := &scripted{}
	m.script = func(req gjson.Result) reply { return reply{text: "answer to " + lastUser(req)} }
	m.hold = func(req gjson.Result) chan struct{} {
		switch lastUser(req) {
		case "first":
			release := make(chan struct{})
			go func() {
				select {
				case <-second:
				case <-time.After(3 * time.Second):
				}
				close(release)
			}()
			return release
		case "second":
			close(second)
		}
		return nil
	}
	m.seen = make(chan gjson.Result, 1)
	url, _ := flowGateway(t, m, nil)
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const key = "agent:main:lane"
	if _, err := c.Call(ctx, "chat.send", map[string]any{"sessionKey": key, "message": "first", "idempotencyKey": "i1"}); err != nil {
		t.Fatal(err)
	}
	<-m.seen // the first turn is at the model
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "second", "sessionKey": key, "idempotencyKey": "i2"},
		client.CallOptions{ExpectFinal: true})
	if err != nil || gjson.GetBytes(out, "result.payloads.0.text").String() != "answer to second" {
		t.Fatalf("second turn: %s %v", out, err)
	}
	var order []string
	for _, msg := range history(t, c, key).Get("messages").Array() {
		order = append(order, msg.Get("role").String()+":"+msg.Get("content.0.text").String())
	}
	if got := strings.Join(order, " | "); got != "user:first | assistant:answer to first | user:second | assistant:answer to second" {
		t.Fatalf("transcript: %s", got)
	}
	reqs := m.requests()
	last := reqs[len(reqs)-1]
	if lastUser(last) != "second" || !strings.Contains(last.Raw, "answer to first") {
		t.Fatalf("the second turn's model call lacks the first's answer: %s", last.Raw)
	}
}
