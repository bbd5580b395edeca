package mcpserve_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
)

// The conversations toolset's adapters (conversations_list,
// conversation_get, messages_read) call sessions_list, session_status and
// sessions_history with the original's argument names: the real binary
// over stdio, relaying to a real gateway, answers each exactly as the
// target tool does; a missing session_key is refused; each adapter goes
// with its target (--deny sessions_history drops messages_read) or by its
// own name.
func TestStdioConversationAdapters(t *testing.T) {
	h := newHome(t)
	h.writeConfig(t, `{agents: {defaults: {workspace: "`+h.ws+`"}}}`)
	g := gatewaytest.Start(t, h.state, "sekret", 0)
	gw := func(args ...string) *client {
		return &client{cs: stdioSession(t, h, gatewayEnv(g.URL, "sekret"), args...), changed: make(chan struct{}, 8)}
	}
	// One conversation, made through the real CLI's gateway call.
	patchSession(t, h, g.URL, "sekret", `{"key":"main","label":"deploy notes"}`)
	cl := gw("--toolsets", "conversations")
	list := names(t, cl.cs)
	for _, want := range []string{"conversations_list", "conversation_get", "messages_read", "sessions_list"} {
		if !slices.Contains(list, want) {
			t.Errorf("list lacks %s: %v", want, list)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cl.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	for _, c := range []struct {
		adapter string
		args    map[string]any
		target  string
		mapped  map[string]any
	}{
		{"conversations_list", map[string]any{"limit": 300, "search": "main"}, "sessions_list", map[string]any{"limit": 200, "search": "main"}},
		{"conversation_get", map[string]any{"session_key": "main"}, "session_status", map[string]any{"sessionKey": "main"}},
		{"messages_read", map[string]any{"session_key": "main"}, "sessions_history", map[string]any{"sessionKey": "main", "limit": 20}},
	} {
		got, want := call(c.adapter, c.args), call(c.target, c.mapped)
		if text(got) != text(want) || got.IsError || want.IsError || !strings.Contains(text(got), "main") {
			t.Errorf("%s %v = %v %q\n%s %v = %v %q", c.adapter, c.args, got.IsError, text(got), c.target, c.mapped, want.IsError, text(want))
		}
	}
	if res := call("messages_read", map[string]any{}); !res.IsError {
		t.Errorf("messages_read without session_key: %q, want an error", text(res))
	}
	if res := call("messages_read", map[string]any{"session_key": ""}); !res.IsError || !strings.Contains(text(res), "session_key is required") {
		t.Errorf("messages_read with an empty session_key: %q", text(res))
	}

	narrowed := names(t, gw("--toolsets", "conversations", "--deny", "sessions_history,conversation_get").cs)
	if slices.Contains(narrowed, "messages_read") || slices.Contains(narrowed, "conversation_get") || !slices.Contains(narrowed, "conversations_list") {
		t.Errorf("--deny sessions_history,conversation_get: %v", narrowed)
	}
	if def := names(t, gw().cs); slices.Contains(def, "conversations_list") {
		t.Errorf("the default set lists the conversation adapters: %v", def)
	}
}
