package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
)

// What a run holds, by who started it (grant.go): the local user its
// owner scopes, an operator connection its own, a running turn its own
// (never wider), anyone else nothing, which a turn resolves to the least
// (operator.write). A turn's calls are checked against them: an admin
// method is refused to a write-scoped or unknown starter's turn and runs
// for an admin's.
func TestRunScopes(t *testing.T) {
	write := []string{"operator.write"}
	cases := []struct {
		name string
		sub  tools.Subject
		want []string
	}{
		{"local user", tools.Subject{}, tools.OwnerScopes},
		{"operator", tools.Subject{Kind: tools.CallerOperator, Role: "operator", Scopes: write}, write},
		{"a turn started by a writer", tools.AgentTurn("main", "agent:main:main", write), write},
		{"a turn whose starter is unknown", tools.AgentTurn("main", "agent:main:main", nil), tools.LeastRunScopes},
		{"node", tools.Subject{Kind: tools.CallerNode, Role: "node"}, nil},
		{"agent in process without a run", tools.Subject{Kind: tools.CallerAgent, AgentID: "main"}, nil},
		{"mcp in process", tools.Subject{Kind: tools.CallerMCP, AgentID: "main"}, nil},
	}
	for _, c := range cases {
		if got := c.sub.RunScopes(); !slices.Equal(got, c.want) {
			t.Errorf("%s: RunScopes %v, want %v", c.name, got, c.want)
		}
	}
	if slices.Contains(tools.LeastRunScopes, "operator.admin") {
		t.Fatal("the least a run holds includes admin")
	}

	r := tools.NewRegistry()
	r.Register(&tools.Action{Method: "zz.grant.admin", Run: func(context.Context, *tools.Env, json.RawMessage) (any, error) {
		return map[string]any{"ok": true}, nil
	}})
	for _, c := range []struct {
		scopes []string
		ok     bool
	}{{write, false}, {nil, false}, {[]string{"operator.admin"}, true}, {tools.OwnerScopes, true}} {
		env := &tools.Env{Subject: tools.AgentTurn("main", "agent:main:main", c.scopes)}
		_, err := r.Invoke(context.Background(), env, tools.Call{Method: "zz.grant.admin"})
		if c.ok != (err == nil) || (err != nil && failure.AsError(err).Code != failure.CodeMissingScope) {
			t.Errorf("a turn holding %v calling an admin method: %v", c.scopes, err)
		}
	}
}
