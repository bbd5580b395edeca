package tools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// Caller kinds × the door's three checks (issue 16 §3): tool policy for
// every caller, scopes for what came over a gateway connection, loop
// detection for agent and mcp callers whether or not a gateway relayed
// them. A Subject whose kind and connection disagree runs nothing, and a
// Subject without a Kind never resolves to the local user unless it names
// neither a session nor a connection.
func TestCallerKinds(t *testing.T) {
	r := tools.NewRegistry()
	ok := func(ctx context.Context, env *tools.Env, p json.RawMessage) (any, error) {
		return map[string]any{"ok": true}, nil
	}
	r.Register(&tools.Action{Tool: "zz_kind_tool", Run: ok})   // needs operator.write over a gateway
	r.Register(&tools.Action{Tool: "zz_kind_denied", Run: ok}) // tools.deny'd below
	r.Register(&tools.Action{Tool: "zz_kind_node", Roles: []string{"node"}, Run: ok})
	r.Register(&tools.Action{Tool: "zz_kind_node_denied", Roles: []string{"node"}, Run: ok})
	r.Register(&tools.Action{Method: "zz.kind.admin", Run: ok}) // operator.admin over a gateway
	cfg := config.Empty()
	cfg.Doc = map[string]any{"tools": map[string]any{
		"deny":          []any{"zz_kind_denied", "zz_kind_node_denied"},
		"loopDetection": map[string]any{"enabled": true, "warningThreshold": 2, "criticalThreshold": 3},
	}}
	read := []string{"operator.read"}
	write := []string{"operator.write"}
	cases := []struct {
		name string
		sub  tools.Subject
		kind tools.Caller
		// what the checks do for this caller
		policy, scopes, loop bool
		// the call that gets through its scopes (for callers that have them)
		allowed tools.Subject
	}{
		{name: "zero Subject is the local user", sub: tools.Subject{}, kind: tools.CallerUser, policy: true},
		{name: "user", sub: tools.Subject{Kind: tools.CallerUser, AgentID: "ops"}, kind: tools.CallerUser, policy: true},
		{name: "operator", sub: tools.Subject{Kind: tools.CallerOperator, Role: "operator", Scopes: read}, kind: tools.CallerOperator,
			policy: true, scopes: true, allowed: tools.Subject{Kind: tools.CallerOperator, Role: "operator", Scopes: []string{"operator.admin"}}},
		{name: "operator without Kind", sub: tools.Subject{Role: "operator", Scopes: read}, kind: tools.CallerOperator,
			policy: true, scopes: true, allowed: tools.Subject{Role: "operator", Scopes: []string{"operator.admin"}}},
		{name: "node", sub: tools.Subject{Kind: tools.CallerNode, Role: "node"}, kind: tools.CallerNode, policy: true, scopes: true},
		{name: "agent in process", sub: tools.Subject{Kind: tools.CallerAgent, AgentID: "main", SessionKey: "agent:main:k1"}, kind: tools.CallerAgent,
			policy: true, loop: true},
		{name: "agent by agent id", sub: tools.Subject{Kind: tools.CallerAgent, AgentID: "k2"}, kind: tools.CallerAgent, policy: true, loop: true},
		{name: "agent relayed by an operator", sub: tools.Subject{Kind: tools.CallerAgent, SessionKey: "agent:main:k3", Role: "operator", Scopes: read},
			kind: tools.CallerAgent, policy: true, scopes: true, loop: true,
			allowed: tools.Subject{Kind: tools.CallerAgent, SessionKey: "agent:main:k3b", Role: "operator", Scopes: []string{"operator.admin"}}},
		{name: "session key without Kind is an agent", sub: tools.Subject{SessionKey: "agent:main:k4"}, kind: tools.CallerAgent, policy: true, loop: true},
		{name: "mcp", sub: tools.Subject{Kind: tools.CallerMCP, AgentID: "k5"}, kind: tools.CallerMCP, policy: true, loop: true},
		{name: "mcp over the gateway", sub: tools.Subject{Kind: tools.CallerMCP, SessionKey: "mcp:k6", Role: "operator", Scopes: read},
			kind: tools.CallerMCP, policy: true, scopes: true, loop: true,
			allowed: tools.Subject{Kind: tools.CallerMCP, SessionKey: "mcp:k6b", Role: "operator", Scopes: []string{"operator.admin"}}},
	}
	invoke := func(sub tools.Subject, call tools.Call) (json.RawMessage, error) {
		return r.Invoke(context.Background(), &tools.Env{Config: cfg, Subject: sub}, call)
	}
	code := func(err error) string {
		if err == nil {
			return ""
		}
		return tools.AsError(err).Code
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.sub.Caller(); got != c.kind {
				t.Fatalf("Caller() = %q, want %q", got, c.kind)
			}
			// Tool policy: tools.deny holds for this caller.
			sub := c.sub
			if c.scopes && sub.Role == "operator" {
				sub.Scopes = write // past the scope check, to reach policy
			}
			tool := "zz_kind_denied"
			if c.kind == tools.CallerNode {
				tool = "zz_kind_node_denied" // a node may call only node tools
			}
			if _, err := invoke(sub, tools.Call{Tool: tool}); (code(err) == "DENIED") != c.policy {
				t.Errorf("policy applies = %v, want %v (%v)", code(err) == "DENIED", c.policy, err)
			}
			// Scopes: an admin-scoped method with only operator.read.
			_, err := invoke(c.sub, tools.Call{Method: "zz.kind.admin"})
			gotScopes := code(err) == "MISSING_SCOPE" || code(err) == "UNAUTHORIZED_ROLE"
			if gotScopes != c.scopes {
				t.Errorf("scopes apply = %v, want %v (%v)", gotScopes, c.scopes, err)
			}
			if c.allowed.Role != "" {
				if _, err := invoke(c.allowed, tools.Call{Method: "zz.kind.admin"}); err != nil {
					t.Errorf("with operator.admin: %v", err)
				}
			}
			if c.kind == tools.CallerNode {
				if _, err := invoke(c.sub, tools.Call{Tool: "zz_kind_tool"}); code(err) != "UNAUTHORIZED_ROLE" {
					t.Errorf("node calling an operator tool: %v", err)
				}
			}
			// Loop detection: the same call again and again is blocked.
			loop := c.sub
			if c.scopes && loop.Role == "operator" {
				loop.Scopes = write
			}
			tool = "zz_kind_tool"
			if c.kind == tools.CallerNode {
				tool = "zz_kind_node"
			}
			blocked := false
			for i := 0; i < 6 && !blocked; i++ {
				_, err := invoke(loop, tools.Call{Tool: tool})
				switch te := tools.AsError(err); {
				case err == nil:
				case te.Code == "DENIED" && detail(te, "deniedReason") == "tool-loop":
					blocked = true
				default:
					t.Fatalf("call %d: %v", i, err)
				}
			}
			if blocked != c.loop {
				t.Errorf("loop detection = %v, want %v", blocked, c.loop)
			}
		})
	}
	// Subjects whose kind and connection disagree run nothing.
	for _, sub := range []tools.Subject{
		{Kind: tools.CallerUser, Role: "operator", Scopes: []string{"operator.admin"}},
		{Kind: tools.CallerOperator},
		{Kind: tools.CallerOperator, Role: "node"},
		{Kind: tools.CallerNode, Role: "operator"},
		{Kind: tools.CallerAgent},
		{Kind: "root"},
	} {
		if _, err := invoke(sub, tools.Call{Tool: "zz_kind_tool"}); code(err) != "UNAUTHORIZED_ROLE" {
			t.Errorf("%+v: want UNAUTHORIZED_ROLE, got %v", sub, err)
		}
	}
}

// detail reads one key of a typed error's details.
func detail(te *tools.Error, key string) any {
	switch d := te.Details.(type) {
	case map[string]any:
		return d[key]
	case json.RawMessage:
		var m map[string]any
		_ = json.Unmarshal(d, &m)
		return m[key]
	}
	return nil
}
