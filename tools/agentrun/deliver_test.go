package agentrun_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/protocol"
)

// echoModel answers every turn with "Reply: <the user's last message>".
type echoModel struct{}

func (echoModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	msgs := gjson.GetBytes(b, "messages").Array()
	text := "Reply: " + msgs[len(msgs)-1].Get("content").String()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"model":"m1","choices":[{"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`, text)
}

// botAPI is a Telegram Bot API stand-in: it records each call and refuses
// chat -999 as the real API refuses an unknown chat.
type botAPI struct {
	mu    sync.Mutex
	calls []gjson.Result
}

func (b *botAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	j := gjson.ParseBytes(body)
	if strings.HasSuffix(r.URL.Path, "/getUpdates") { // the gateway's receiving loop: no messages
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"result":[]}`)
		return
	}
	b.mu.Lock()
	b.calls = append(b.calls, j)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if j.Get("chat_id").String() == "-999" {
		w.WriteHeader(400)
		io.WriteString(w, `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`)
		return
	}
	fmt.Fprintf(w, `{"ok":true,"result":{"message_id":%d,"chat":{"id":%s}}}`, 100+len(b.calls), j.Get("chat_id").Raw)
}

func (b *botAPI) sent() []gjson.Result {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]gjson.Result(nil), b.calls...)
}

func deliverGateway(t *testing.T) (*client.Conn, *botAPI) {
	url, bot := deliverGatewayURL(t)
	return dial(t, url, nil), bot
}

func deliverGatewayURL(t testing.TB) (string, *botAPI) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	model := httptest.NewServer(echoModel{})
	t.Cleanup(model.Close)
	bot := &botAPI{}
	tg := httptest.NewServer(bot)
	t.Cleanup(tg.Close)
	url := startGateway(t, dir, map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": model.URL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1", "name": "m1"}}}}},
		"agents":   map[string]any{"defaults": map[string]any{"model": "loc/m1", "workspace": ws}},
		"channels": map[string]any{"telegram": map[string]any{"botToken": "1:T", "apiBaseUrl": tg.URL}},
	})
	return url, bot
}

func agentFinal(t *testing.T, c *client.Conn, params map[string]any) gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", params, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatalf("agent %v: %v", params, err)
	}
	return gjson.ParseBytes(out)
}

// agent deliver:true posts the final reply through the message family to
// the named target, records it as the session's last route, and a later
// deliver (or a message send bound to the session) without a target goes
// there; a failed post leaves the run's result intact with the error.
func TestAgentDeliverPostsTheReply(t *testing.T) {
	c, bot := deliverGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	r := agentFinal(t, c, map[string]any{"message": "first", "idempotencyKey": "d1", "deliver": true, "channel": "telegram", "to": "12345"})
	if r.Get("status").String() != "ok" || r.Get("result.meta.deliveryStatus").String() != "delivered" ||
		r.Get("result.meta.delivery.messageId").String() == "" {
		t.Fatalf("final %s", r.Raw)
	}
	sent := bot.sent()
	if len(sent) != 1 || sent[0].Get("chat_id").String() != "12345" || sent[0].Get("text").String() != "Reply: first" {
		t.Fatalf("Bot API calls %v", sent)
	}

	// No target: the session's last route (recorded by the delivery).
	r = agentFinal(t, c, map[string]any{"message": "second", "idempotencyKey": "d2", "deliver": true})
	if r.Get("result.meta.deliveryStatus").String() != "delivered" {
		t.Fatalf("final %s", r.Raw)
	}
	sent = bot.sent()
	if len(sent) != 2 || sent[1].Get("chat_id").String() != "12345" || sent[1].Get("text").String() != "Reply: second" {
		t.Fatalf("Bot API calls %v", sent)
	}
	sl, err := c.Call(ctx, "sessions.list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	row := gjson.GetBytes(sl, `sessions.#(key=="agent:main:main")`)
	if row.Get("lastChannel").String() != "telegram" || row.Get("lastTo").String() != "12345" {
		t.Fatalf("session row %s", row.Raw)
	}

	// The message family routes a send bound to agent:main:main there too
	// (the sessions service is its SessionRouter).
	out, err := c.Call(ctx, "message.action", map[string]any{"action": "send", "sessionKey": "agent:main:main", "params": map[string]any{"message": "by hand"}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(out, "to").String() != "12345" {
		t.Fatalf("message.action %s", out)
	}
	if sent = bot.sent(); sent[2].Get("chat_id").String() != "12345" || sent[2].Get("text").String() != "by hand" {
		t.Fatalf("Bot API call %s", sent[2].Raw)
	}

	// A session with no route: refused before the run, unless best effort.
	_, err = c.CallWith(ctx, "agent", map[string]any{"message": "x", "idempotencyKey": "d3", "deliver": true, "sessionKey": "agent:main:fresh"},
		client.CallOptions{ExpectFinal: true})
	if err == nil || !strings.Contains(err.Error(), "no route") {
		t.Fatalf("deliver without a route: %v", err)
	}
	r = agentFinal(t, c, map[string]any{"message": "third", "idempotencyKey": "d4", "deliver": true, "sessionKey": "agent:main:fresh", "bestEffortDeliver": true})
	if r.Get("status").String() != "ok" || r.Get("result.payloads.0.text").String() != "Reply: third" ||
		r.Get("result.meta.deliveryStatus").String() != "not-delivered" || !strings.Contains(r.Get("result.meta.deliveryError").String(), "target") {
		t.Fatalf("best-effort final %s", r.Raw)
	}

	// The channel refuses the post: the run stays ok, with the error.
	r = agentFinal(t, c, map[string]any{"message": "fourth", "idempotencyKey": "d5", "deliver": true, "channel": "telegram", "to": "-999",
		"sessionKey": "agent:main:other"})
	if r.Get("status").String() != "ok" || r.Get("result.payloads.0.text").String() != "Reply: fourth" ||
		r.Get("result.meta.deliveryStatus").String() != "not-delivered" || !strings.Contains(r.Get("result.meta.deliveryError").String(), "chat not found") {
		t.Fatalf("failed-delivery final %s", r.Raw)
	}
	h, err := c.Call(ctx, "chat.history", map[string]any{"sessionKey": "agent:main:other"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "Reply: fourth") {
		t.Fatalf("the reply is not in the transcript: %s", h)
	}
}

// chat.send deliver:true posts the reply to the chat the session key names.
func TestChatSendDeliverPostsToTheSessionsChat(t *testing.T) {
	c, bot := deliverGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Call(ctx, "chat.send", map[string]any{"sessionKey": "agent:main:main", "message": "hi", "idempotencyKey": "c0", "deliver": true})
	if err == nil || !strings.Contains(err.Error(), "no conversation") {
		t.Fatalf("chat.send deliver on a session without a chat: %v", err)
	}
	out, err := c.Call(ctx, "chat.send", map[string]any{"sessionKey": "agent:main:telegram:direct:777", "message": "hi", "idempotencyKey": "c1", "deliver": true})
	if err != nil {
		t.Fatal(err)
	}
	runID := gjson.GetBytes(out, "runId").String()
	if _, err := c.Call(ctx, "agent.wait", map[string]any{"runId": runID}); err != nil {
		t.Fatal(err)
	}
	sent := bot.sent()
	if len(sent) != 1 || sent[0].Get("chat_id").String() != "777" || sent[0].Get("text").String() != "Reply: hi" {
		t.Fatalf("Bot API calls %v", sent)
	}
}

// A cron job with delivery announce posts the run's summary through the
// same path and records delivered; a refused post records the error, and
// fails the run (summary kept) unless bestEffort.
func TestCronAnnounceDelivers(t *testing.T) {
	url, bot := deliverGatewayURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Token: token, Scopes: []string{protocol.ScopeAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := func(name string, delivery map[string]any) gjson.Result {
		add, err := c.Call(ctx, "cron.add", map[string]any{"name": name, "schedule": map[string]any{"kind": "every", "everyMs": 3_600_000},
			"sessionTarget": "isolated", "payload": map[string]any{"kind": "agentTurn", "message": "report " + name}, "delivery": delivery})
		if err != nil {
			t.Fatal(err)
		}
		id := gjson.GetBytes(add, "id").String()
		if _, err := c.Call(ctx, "cron.run", map[string]any{"id": id, "mode": "force"}); err != nil {
			t.Fatal(err)
		}
		var entry gjson.Result
		waitFor(t, "the cron run of "+name, func() (bool, string) {
			r, err := c.Call(ctx, "cron.runs", map[string]any{"id": id})
			if err != nil {
				return false, err.Error()
			}
			entry = gjson.GetBytes(r, `entries.#(action=="finished")`)
			return entry.Exists(), string(r)
		})
		return entry
	}
	e := run("ok", map[string]any{"mode": "announce", "channel": "telegram", "to": "4242"})
	if e.Get("status").String() != "ok" || e.Get("deliveryStatus").String() != "delivered" || !e.Get("delivered").Bool() ||
		!strings.Contains(e.Get("summary").String(), "report ok") {
		t.Fatalf("run entry %s", e.Raw)
	}
	sent := bot.sent()
	if len(sent) != 1 || sent[0].Get("chat_id").String() != "4242" || sent[0].Get("text").String() != e.Get("summary").String() {
		t.Fatalf("Bot API calls %v", sent)
	}

	e = run("soft", map[string]any{"mode": "announce", "channel": "telegram", "to": "-999", "bestEffort": true})
	if e.Get("status").String() != "ok" || e.Get("deliveryStatus").String() != "not-delivered" ||
		!strings.Contains(e.Get("deliveryError").String(), "chat not found") || !strings.Contains(e.Get("summary").String(), "report soft") {
		t.Fatalf("best-effort run entry %s", e.Raw)
	}
	e = run("hard", map[string]any{"mode": "announce", "channel": "telegram", "to": "-999"})
	if e.Get("status").String() != "error" || e.Get("deliveryStatus").String() != "not-delivered" ||
		!strings.Contains(e.Get("error").String(), "chat not found") || !strings.Contains(e.Get("summary").String(), "report hard") {
		t.Fatalf("failed-announce run entry %s", e.Raw)
	}
	if n := len(bot.sent()); n != 3 {
		t.Fatalf("%d Bot API calls, want 3", n)
	}
}

// A sub-agent's announce, when the requester session is bound to a chat
// (its key names a Telegram DM), is posted there as well as recorded in
// the requester's transcript.
func TestSubagentAnnouncePostsToTheRequestersChat(t *testing.T) {
	bot := &botAPI{}
	tg := httptest.NewServer(bot)
	t.Cleanup(tg.Close)
	m := &scripted{}
	m.script = func(req gjson.Result) reply {
		u, tr := lastUser(req), toolResults(req)
		switch {
		case strings.HasPrefix(u, "A subagent task"):
			return reply{text: "Announced: the check is done"}
		case strings.Contains(system(req), "sub-agent"):
			return reply{text: "child: all good"}
		case len(tr) == 0:
			return reply{calls: [][2]string{{"sessions_spawn", `{"task":"Check it","label":"checker"}`}}}
		}
		return reply{text: "spawned"}
	}
	url, _ := flowGateway(t, m, map[string]any{"channels": map[string]any{"telegram": map[string]any{"botToken": "1:T", "apiBaseUrl": tg.URL}}})
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key := "agent:main:telegram:direct:555"
	if _, err := c.CallWith(ctx, "agent", map[string]any{"message": "Spawn a checker", "idempotencyKey": "sa1", "sessionKey": key},
		client.CallOptions{ExpectFinal: true}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the announce posted to the requester's chat", func() (bool, string) {
		s := bot.sent()
		return len(s) > 0, fmt.Sprint(s)
	})
	sent := bot.sent()
	if len(sent) != 1 || sent[0].Get("chat_id").String() != "555" || sent[0].Get("text").String() != "Announced: the check is done" {
		t.Fatalf("Bot API calls %v", sent)
	}
	waitFor(t, "the announce in the requester's transcript", func() (bool, string) {
		h := history(t, c, key)
		return strings.Contains(h.Raw, "Announced: the check is done"), h.Raw
	})
}

// The sessions_send announce step's reply is posted to the target
// session's chat when the target is bound to one.
func TestSessionsSendAnnouncePostsToTheTargetsChat(t *testing.T) {
	bot := &botAPI{}
	tg := httptest.NewServer(bot)
	t.Cleanup(tg.Close)
	target := "agent:ops:telegram:direct:666"
	m := &scripted{}
	m.script = func(req gjson.Result) reply {
		u, sys, tr := lastUser(req), system(req), toolResults(req)
		switch {
		case strings.Contains(sys, "Agent-to-agent announce step"):
			return reply{text: "ops announces: status is green"}
		case strings.Contains(sys, "Agent 2 (target) session: "+target):
			return reply{text: "ops got: " + u}
		case u == "hello ops":
			return reply{text: "ops is here"}
		case len(tr) == 0 && u == "ask ops":
			return reply{calls: [][2]string{{"sessions_send", `{"sessionKey":"` + target + `","message":"status?","timeoutSeconds":20}`}}}
		}
		return reply{text: "main saw the reply"}
	}
	url, _ := flowGateway(t, m, map[string]any{
		"tools":    map[string]any{"agentToAgent": map[string]any{"enabled": true}, "sessions": map[string]any{"visibility": "all"}},
		"session":  map[string]any{"agentToAgent": map[string]any{"maxPingPongTurns": 0}},
		"channels": map[string]any{"telegram": map[string]any{"botToken": "1:T", "apiBaseUrl": tg.URL}},
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1"},
			"list": []any{map[string]any{"id": "main", "default": true}, map[string]any{"id": "ops"}}},
	})
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, p := range []map[string]any{{"message": "hello ops", "sessionKey": target}, {"message": "ask ops"}} {
		p["idempotencyKey"] = fmt.Sprint("ss", i)
		out, err := c.CallWith(ctx, "agent", p, client.CallOptions{ExpectFinal: true})
		if err != nil || gjson.GetBytes(out, "status").String() != "ok" {
			t.Fatalf("agent %v: %s %v", p, out, err)
		}
	}
	waitFor(t, "the announce posted to the target's chat", func() (bool, string) {
		s := bot.sent()
		return len(s) > 0, fmt.Sprint(s) + history(t, c, target).Raw
	})
	sent := bot.sent()
	if len(sent) != 1 || sent[0].Get("chat_id").String() != "666" || sent[0].Get("text").String() != "ops announces: status is green" {
		t.Fatalf("Bot API calls %v", sent)
	}
}

// The CLI: `openclaw agent --deliver --channel --to` and `openclaw cron
// add --announce --channel --to` post through the same path.
func TestDeliverCLI(t *testing.T) {
	url, bot := deliverGatewayURL(t)
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("OPENCLAW_STATE_DIR", dir+"/cli-state")
	t.Setenv("OPENCLAW_GATEWAY_URL", url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", token)
	run := func(args ...string) gjson.Result {
		t.Helper()
		var out, errb bytes.Buffer
		if code := commands.Main(append([]string{"openclaw"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("openclaw %s: exit %d: %s %s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return gjson.Parse(out.String())
	}
	// The README's commands.
	r := run("agent", "--message", "status?", "--deliver", "--channel", "telegram", "--to", "-1001234567890")
	if r.Get("result.meta.deliveryStatus").String() != "delivered" {
		t.Fatalf("agent --deliver: %s", r.Raw)
	}
	r = run("agent", "--message", "and now?", "--deliver")
	if r.Get("result.meta.deliveryStatus").String() != "delivered" {
		t.Fatalf("agent --deliver to the last target: %s", r.Raw)
	}
	s := bot.sent()
	if len(s) != 2 || s[0].Get("chat_id").String() != "-1001234567890" || s[0].Get("text").String() != "Reply: status?" ||
		s[1].Get("chat_id").String() != "-1001234567890" || s[1].Get("text").String() != "Reply: and now?" {
		t.Fatalf("Bot API calls %v", s)
	}
	add := run("cron", "add", "--name", "digest", "--every", "1h", "--message", "digest please", "--announce", "--channel", "telegram", "--to", "5150")
	id := add.Get("id").String()
	if id == "" || add.Get("delivery.mode").String() != "announce" || add.Get("delivery.to").String() != "5150" {
		t.Fatalf("cron add: %s", add.Raw)
	}
	run("cron", "run", id)
	var entry gjson.Result
	waitFor(t, "the cron run", func() (bool, string) {
		r := run("cron", "runs", "--id", id)
		entry = r.Get(`entries.#(action=="finished")`)
		return entry.Exists(), r.Raw
	})
	if entry.Get("deliveryStatus").String() != "delivered" || entry.Get("summary").String() != "Reply: digest please" {
		t.Fatalf("cron run entry %s", entry.Raw)
	}
	if s := bot.sent(); len(s) != 3 || s[2].Get("chat_id").String() != "5150" || s[2].Get("text").String() != "Reply: digest please" {
		t.Fatalf("Bot API calls %v", s)
	}
}

// BenchmarkAgentTurnDeliver is one agent turn over the gateway with a
// local model answering at once, without and with deliver:true (the
// difference is the route check plus the post through the message family
// to a local Bot API stand-in).
func BenchmarkAgentTurnDeliver(b *testing.B) {
	for _, deliver := range []bool{false, true} {
		b.Run(fmt.Sprintf("deliver=%v", deliver), func(b *testing.B) {
			url, bot := deliverGatewayURL(b)
			c, err := client.Dial(context.Background(), client.Options{URL: url, Token: token,
				Scopes: []string{protocol.ScopeRead, protocol.ScopeWrite}})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := map[string]any{"message": "hi", "idempotencyKey": fmt.Sprint("b", i), "sessionKey": fmt.Sprint("agent:main:b", i)}
				if deliver {
					p["deliver"], p["channel"], p["to"] = true, "telegram", "12345"
				}
				out, err := c.CallWith(context.Background(), "agent", p, client.CallOptions{ExpectFinal: true})
				if err != nil || gjson.GetBytes(out, "status").String() != "ok" {
					b.Fatalf("%s %v", out, err)
				}
			}
			b.StopTimer()
			if deliver && len(bot.sent()) != b.N {
				b.Fatalf("%d posts for %d turns", len(bot.sent()), b.N)
			}
		})
	}
}
