package mcpserve_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
)

// echoModel is an OpenAI-compatible model stand-in answering "Reply: <last message>".
type echoModel struct{}

func (echoModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	msgs := gjson.GetBytes(b, "messages").Array()
	text := "Reply: " + msgs[len(msgs)-1].Get("content").String()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"model":"m1","choices":[{"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`, text)
}

// events_poll and events_wait read the chat and agent events the real
// binary's one kept connection to the named gateway buffers: a chat.send
// turn (the real CLI, a real gateway, a local model stand-in) shows up
// with its session key and increasing cursors; polling after the last
// cursor gives none; a wait with nothing new times out; a cancelled wait
// returns and the session carries on. Without a named gateway they are not
// listed.
func TestStdioEvents(t *testing.T) {
	model := httptest.NewServer(echoModel{})
	t.Cleanup(model.Close)
	h := newHome(t)
	h.writeConfig(t, `{models: {providers: {loc: {baseUrl: "`+model.URL+`/v1", api: "openai-completions", apiKey: "k", models: [{id: "m1", name: "m1"}]}}},
		agents: {defaults: {model: "loc/m1", workspace: "`+h.ws+`"}}}`)
	g := gatewaytest.Start(t, h.state, "sekret", 0)
	connect := func(env []string, args ...string) *mcp.ClientSession { return stdioSession(t, h, env, args...) }
	cs := connect([]string{"OPENCLAW_GATEWAY_URL=" + g.URL, "OPENCLAW_GATEWAY_TOKEN=sekret"}, "--toolsets", "conversations")
	if list := names(t, cs); !slices.Contains(list, "events_poll") || !slices.Contains(list, "events_wait") {
		t.Fatalf("list lacks the event tools: %v", list)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	call := func(ctx context.Context, name string, args map[string]any) gjson.Result {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: %q", name, text(res))
		}
		return gjson.Parse(text(res))
	}
	const key = "agent:main:main"
	// Turns until the kept connection has seen one (it connects on its own).
	var first gjson.Result
	for i := 0; !first.Exists(); i++ {
		send := exec.CommandContext(ctx, bin, "gateway", "call", "chat.send", "--url", g.URL, "--token", "sekret",
			"--params", fmt.Sprintf(`{"sessionKey":%q,"message":"hello","idempotencyKey":"k%d"}`, key, i))
		send.Env = h.cmd().Env
		if out, err := send.CombinedOutput(); err != nil {
			t.Fatalf("chat.send: %v\n%s", err, out)
		}
		w := call(ctx, "events_wait", map[string]any{"after_cursor": 0, "session_key": key, "timeout_ms": 5000})
		if w.Get("event").IsObject() {
			first = w.Get("event")
		}
		if ctx.Err() != nil {
			t.Fatal("no event arrived")
		}
	}
	if first.Get("cursor").Int() < 1 || first.Get("session_key").String() != key || !slices.Contains([]string{"chat", "agent"}, first.Get("event").String()) {
		t.Fatalf("first event %s", first.Raw)
	}
	// The turn finishes with a final chat event; poll until it is in.
	var all []gjson.Result
	cursor := int64(0)
	for !slices.ContainsFunc(all, func(e gjson.Result) bool { return strings.Contains(e.Raw, "Reply: hello") }) {
		p := call(ctx, "events_poll", map[string]any{"after_cursor": cursor, "limit": 200})
		for _, e := range p.Get("events").Array() {
			if e.Get("cursor").Int() <= cursor {
				t.Fatalf("cursor %d after %d: %s", e.Get("cursor").Int(), cursor, p.Raw)
			}
			cursor = e.Get("cursor").Int()
			all = append(all, e)
		}
		if p.Get("next_cursor").Int() != cursor {
			t.Fatalf("next_cursor %s, want %d", p.Get("next_cursor").Raw, cursor)
		}
		if len(p.Get("events").Array()) == 0 {
			call(ctx, "events_wait", map[string]any{"after_cursor": cursor, "timeout_ms": 5000})
		}
		if ctx.Err() != nil {
			t.Fatalf("the reply never came: %v", all)
		}
	}
	if p := call(ctx, "events_poll", map[string]any{"after_cursor": cursor, "session_key": "agent:main:other"}); len(p.Get("events").Array()) != 0 {
		t.Errorf("events of another session: %s", p.Raw)
	}
	if w := call(ctx, "events_wait", map[string]any{"after_cursor": cursor + 1000, "timeout_ms": 1}); !w.Get("timeout").Bool() || w.Get("event").Type != gjson.Null {
		t.Errorf("wait past the newest: %s", w.Raw)
	}
	// A cancelled wait ends; the session carries on.
	wctx, wcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(wctx, &mcp.CallToolParams{Name: "events_wait", Arguments: map[string]any{"after_cursor": cursor + 1000, "timeout_ms": 300000}})
		done <- err
	}()
	wcancel()
	if err := <-done; err == nil {
		t.Errorf("cancelled events_wait returned no error")
	}
	call(ctx, "events_poll", map[string]any{})

	if list := names(t, connect(nil, "--toolsets", "conversations")); slices.Contains(list, "events_poll") {
		t.Errorf("no named gateway, yet events_poll is listed: %v", list)
	}
}
