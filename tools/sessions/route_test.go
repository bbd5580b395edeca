package sessions

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/message"
)

// botAPI is a Telegram Bot API stand-in recording each call's params.
type botAPI struct {
	mu    sync.Mutex
	calls []map[string]any
}

func (b *botAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := map[string]any{"_method": r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]}
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	_ = dec.Decode(&p)
	b.mu.Lock()
	b.calls = append(b.calls, p)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"ok":true,"result":{"message_id":7,"chat":{"id":1}}}`)
}

// A message send bound to a session whose key names no chat
// (agent:main:main) goes to the session's last delivery target, through
// the sessions service as the message family's SessionRouter.
func TestDeliveryRouteRoutesMessageSend(t *testing.T) {
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	ctx := context.Background()
	if _, _, _, _, ok, err := s.DeliveryRoute(ctx, "agent:main:main"); ok || err != nil {
		t.Fatalf("unknown session: ok=%v err=%v, want no route", ok, err)
	}
	if err := s.RecordRoute(ctx, "agent:main:main", "telegram", "-100555", "", "42"); err != nil {
		t.Fatal(err)
	}
	ch, to, acct, thread, ok, err := s.DeliveryRoute(ctx, "agent:main:main")
	if err != nil || !ok || ch != "telegram" || to != "-100555" || acct != "" || thread != "42" {
		t.Fatalf("route = %q %q %q %q %v %v", ch, to, acct, thread, ok, err)
	}
	// Reset keeps the route (as the original keeps lastChannel/lastTo).
	if _, err := s.Reset(ctx, "agent:main:main"); err != nil {
		t.Fatal(err)
	}
	if _, to, _, _, ok, _ := s.DeliveryRoute(ctx, "main"); !ok || to != "-100555" {
		t.Fatalf("the short key main is agent:main:main: got %q", to)
	}
	if _, to, _, _, ok, _ := s.DeliveryRoute(ctx, "agent:main:other"); ok || to != "" {
		t.Fatalf("a session that never delivered has no route, got %q", to)
	}

	b := &botAPI{}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	cfg := config.Empty()
	cfg.Doc = map[string]any{"channels": map[string]any{"telegram": map[string]any{"botToken": "1:T", "apiBaseUrl": srv.URL}}}
	env := &tools.Env{Config: cfg, StateDir: dir, Services: map[string]tools.Service{"sessions": s}}
	r := invoke(t, env, "message.send", map[string]any{"sessionKey": "agent:main:main", "message": "hello again"})
	if r.Get("to").String() != "-100555" {
		t.Fatalf("send result %s, want to -100555", r.Raw)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.calls) != 1 {
		t.Fatalf("Bot API calls = %v, want one", b.calls)
	}
	c := b.calls[0]
	if c["_method"] != "sendMessage" || c["text"] != "hello again" || c["message_thread_id"] == nil ||
		!strings.Contains(jsonOf(c["chat_id"]), "-100555") {
		t.Fatalf("Bot API call %v, want sendMessage to -100555 in topic 42", c)
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }
