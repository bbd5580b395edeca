package agentrun_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A turn is for a configured agent: `agent` and `chat.send` naming an agent
// id that agents.list lacks (by agentId or by the session key's agent) are
// refused before anything runs, and the model is never asked; a listed
// agent and main run.
func TestTurnsForAnUnknownAgentAreRefused(t *testing.T) {
	m := answers("hi")
	url, _ := flowGateway(t, m, map[string]any{
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1"},
			"list": []any{map[string]any{"id": "main"}, map[string]any{"id": "ops"}}}})
	c := dial(t, url, nil)
	call := func(method string, params map[string]any) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := c.Call(ctx, method, params)
		return err
	}
	for _, p := range []struct {
		method string
		params map[string]any
	}{
		{"agent", map[string]any{"message": "x", "agentId": "zzz", "idempotencyKey": "a1"}},
		{"agent", map[string]any{"message": "x", "sessionKey": "agent:zzz:main", "idempotencyKey": "a2"}},
		{"chat.send", map[string]any{"message": "x", "sessionKey": "agent:zzz:main", "idempotencyKey": "c1"}},
	} {
		err := call(p.method, p.params)
		if err == nil || !strings.Contains(err.Error(), `unknown agent id "zzz"`) {
			t.Fatalf("%s %v: %v", p.method, p.params, err)
		}
	}
	if n := len(m.requests()); n != 0 {
		t.Fatalf("the model was asked %d times for an unknown agent", n)
	}
	if err := call("agent", map[string]any{"message": "x", "agentId": "ops", "idempotencyKey": "a3"}); err != nil {
		t.Fatalf("a listed agent: %v", err)
	}
}
