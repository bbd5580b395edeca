package mcpserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
)

// botAPI is a Telegram Bot API stand-in recording each call's params.
type botAPI struct {
	mu    sync.Mutex
	calls []map[string]any
}

func (b *botAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := map[string]any{"_method": r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]}
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&p)
	if p["_method"] == "getUpdates" { // the gateway's receiving loop: no messages
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"result":[]}`)
		return
	}
	b.mu.Lock()
	b.calls = append(b.calls, p)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"ok":true,"result":{"message_id":7,"chat":{"id":42}}}`)
}

func (b *botAPI) snapshot() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

// messages_send (session_key, text) is the message tool's send bound to
// the session: the real binary over stdio, relaying to a real gateway,
// delivers the text to the chat the session key names through the
// Telegram stand-in; a session with no route is refused without a
// channel call; --read-only and --deny message drop it.
func TestStdioMessagesSend(t *testing.T) {
	b := &botAPI{}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	h := newHome(t)
	h.writeConfig(t, `{agents: {defaults: {workspace: "`+h.ws+`"}}, channels: {telegram: {botToken: "1:T", apiBaseUrl: "`+srv.URL+`"}}}`)
	g := gatewaytest.Start(t, h.state, "sekret", 0)
	gw := func(args ...string) *mcp.ClientSession {
		return stdioSession(t, h, gatewayEnv(g.URL, "sekret"), args...)
	}
	patchSession(t, h, g.URL, "sekret", `{"key":"main","label":"no route"}`)
	cs := gw("--toolsets", "conversations")
	if list := names(t, cs); !slices.Contains(list, "messages_send") {
		t.Fatalf("list lacks messages_send: %v", list)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call := func(args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "messages_send", Arguments: args})
		if err != nil {
			t.Fatalf("messages_send %v: %v", args, err)
		}
		return res
	}
	res := call(map[string]any{"session_key": "agent:main:telegram:direct:42", "text": "deploy done"})
	calls := b.snapshot()
	if res.IsError || len(calls) != 1 || calls[0]["_method"] != "sendMessage" || calls[0]["text"] != "deploy done" ||
		fmt.Sprint(calls[0]["chat_id"]) != "42" || !strings.Contains(text(res), `"to"`) {
		t.Fatalf("send to the session's chat: %v %q; Bot API calls %v", res.IsError, text(res), calls)
	}
	if res := call(map[string]any{"session_key": "main", "text": "x"}); !res.IsError || !strings.Contains(text(res), "requires a target") {
		t.Errorf("send on a session without a route: %v %q", res.IsError, text(res))
	}
	if res := call(map[string]any{"session_key": "agent:main:telegram:direct:42"}); !res.IsError || !strings.Contains(text(res), "text is required") {
		t.Errorf("send without text: %v %q", res.IsError, text(res))
	}
	if n := len(b.snapshot()); n != 1 {
		t.Errorf("refused sends reached the Bot API: %d calls", n)
	}
	for _, args := range [][]string{{"--toolsets", "conversations", "--read-only"}, {"--toolsets", "conversations", "--deny", "message"}} {
		if list := names(t, gw(args...)); slices.Contains(list, "messages_send") {
			t.Errorf("%v lists messages_send: %v", args, list)
		}
	}
}
