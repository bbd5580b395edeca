package heartbeat_test

import (
	"context"
	"encoding/json"
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
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all"
	"github.com/openclaw-go/openclaw/tools/heartbeat"
)

const token = "heartbeat-test-token"

// model is a local OpenAI-compatible chat completions server: answer
// gives each request's reply (text, or one tool call when call is set);
// hold, when it returns a channel, blocks the request until it closes.
type model struct {
	mu     sync.Mutex
	reqs   []gjson.Result
	answer func(n int, req gjson.Result) (text string, call [2]string)
	hold   func(req gjson.Result) chan struct{}
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	req := gjson.ParseBytes(b)
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	n := len(m.reqs)
	m.mu.Unlock()
	if m.hold != nil {
		if ch := m.hold(req); ch != nil {
			select {
			case <-ch:
			case <-r.Context().Done():
				return
			}
		}
	}
	text, call := m.answer(n, req)
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if call[0] != "" {
		msg["tool_calls"] = []any{map[string]any{"id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": call[0], "arguments": call[1]}}}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"model": "m1", "choices": []any{map[string]any{"message": msg, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 3}})
}

func (m *model) requests() []gjson.Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]gjson.Result(nil), m.reqs...)
}

// lastUser is the request's last user message.
func lastUser(req gjson.Result) string {
	msgs := req.Get("messages").Array()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Get("role").String() == "user" {
			return msgs[i].Get("content").String()
		}
	}
	return ""
}

func lastTool(req gjson.Result) (string, bool) {
	msgs := req.Get("messages").Array()
	if n := len(msgs); n > 0 && msgs[n-1].Get("role").String() == "tool" {
		return msgs[n-1].Get("content").String(), true
	}
	return "", false
}

// botAPI is a Telegram Bot API stand-in recording what is sent.
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
	n := len(b.calls)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"ok":true,"result":{"message_id":%d,"chat":{"id":%s}}}`, 100+n, j.Get("chat_id").Raw)
}

func (b *botAPI) sent() []gjson.Result {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]gjson.Result(nil), b.calls...)
}

// hbGateway is a real gateway over the model, with heartbeat settings hb
// under agents.defaults.heartbeat and a Telegram account whose API is bot.
// It returns a connection (read, write and admin) and the heartbeat events
// as they arrive.
type hbGateway struct {
	c      *client.Conn
	events chan gjson.Result
	ws     string
}

func start(t *testing.T, m *model, hb map[string]any, bot *botAPI, files map[string]string) *hbGateway {
	return startWith(t, m, hb, bot, files, nil)
}

// startWith is start with more top-level config (commands, ...).
func startWith(t *testing.T, m *model, hb map[string]any, bot *botAPI, files map[string]string, extra map[string]any) *hbGateway {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	cfg := map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": srv.URL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1", "name": "m1"}}}}},
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1", "workspace": ws, "heartbeat": hb}},
	}
	if bot != nil {
		tg := httptest.NewServer(bot)
		t.Cleanup(tg.Close)
		cfg["channels"] = map[string]any{"telegram": map[string]any{"botToken": "1:T", "apiBaseUrl": tg.URL}}
	}
	for k, v := range extra {
		cfg[k] = v
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	g := gatewaytest.Start(t, dir, token, 0)
	h := &hbGateway{events: make(chan gjson.Result, 64), ws: ws}
	c, err := client.Dial(context.Background(), client.Options{URL: g.URL, Token: token,
		Scopes: []string{protocol.ScopeRead, protocol.ScopeWrite, protocol.ScopeAdmin},
		OnEvent: func(ev protocol.Event) {
			if ev.Event == "heartbeat" {
				select {
				case h.events <- gjson.ParseBytes(ev.Payload):
				default:
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	h.c = c
	return h
}

// next waits (generously; nothing about durations is asserted) for the
// next heartbeat event.
func (h *hbGateway) next(t *testing.T) gjson.Result {
	t.Helper()
	select {
	case ev := <-h.events:
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no heartbeat event arrived")
	}
	return gjson.Result{}
}

func (h *hbGateway) call(t *testing.T, method string, params any) gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := h.c.CallWith(ctx, method, params, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return gjson.ParseBytes(out)
}

// A heartbeat with a short interval runs on its own, in the main session,
// with the heartbeat prompt: its first reply (HEARTBEAT_OK) is dropped (no
// message sent, status ok-token); its second (an alert) goes out through
// the Telegram adapter to the configured chat (status sent), and
// last-heartbeat reports it.
func TestScheduledHeartbeatDropsAckAndDeliversAlert(t *testing.T) {
	var beats int
	var mu sync.Mutex
	m := &model{answer: func(n int, req gjson.Result) (string, [2]string) {
		mu.Lock()
		defer mu.Unlock()
		beats++
		if beats == 1 {
			return heartbeat.Token, [2]string{}
		}
		return "The disk is 95% full.", [2]string{}
	}}
	bot := &botAPI{}
	h := start(t, m, map[string]any{"every": "1s", "target": "telegram", "to": "4242"}, bot,
		map[string]string{"HEARTBEAT.md": "- check the disk"})
	first := h.next(t)
	if first.Get("status").String() != heartbeat.StatusOKToken || first.Get("sessionKey").String() != "agent:main:main" {
		t.Fatalf("first heartbeat %s", first.Raw)
	}
	if got := len(bot.sent()); got != 0 {
		t.Fatalf("an acknowledgement was sent: %v", bot.sent())
	}
	second := h.next(t)
	if second.Get("status").String() != heartbeat.StatusSent || second.Get("channel").String() != "telegram" || second.Get("to").String() != "4242" {
		t.Fatalf("second heartbeat %s", second.Raw)
	}
	sent := bot.sent()
	if len(sent) != 1 || sent[0].Get("chat_id").String() != "4242" || !strings.Contains(sent[0].Get("text").String(), "95% full") {
		t.Fatalf("telegram got %v", sent)
	}
	reqs := m.requests()
	if lastUser(reqs[0]) != heartbeat.DefaultPrompt || !strings.Contains(reqs[0].Get("messages.0.content").String(), "check the disk") {
		t.Fatalf("heartbeat request: user %q", lastUser(reqs[0]))
	}
	// set-heartbeats off: what runs next is skipped as disabled, without
	// a model call, and last-heartbeat reports it.
	if r := h.call(t, "set-heartbeats", map[string]any{"enabled": false}); r.Raw != `{"enabled":false,"ok":true}` {
		t.Fatalf("set-heartbeats %s", r.Raw)
	}
	for ev := h.next(t); ev.Get("reason").String() != "disabled"; ev = h.next(t) {
	}
	before := len(m.requests())
	ev := h.next(t)
	if ev.Get("status").String() != heartbeat.StatusSkipped || ev.Get("reason").String() != "disabled" || len(m.requests()) != before {
		t.Fatalf("a disabled heartbeat ran: %s (%d model calls, %d before)", ev.Raw, len(m.requests()), before)
	}
	if last := h.call(t, "last-heartbeat", map[string]any{}); last.Get("reason").String() != "disabled" || last.Get("agentId").String() != "main" {
		t.Fatalf("last-heartbeat %s", last.Raw)
	}
	if st := h.call(t, "status", map[string]any{}).Get("heartbeat"); st.Get("enabled").Bool() || st.Get("agents.0.everyMs").Int() != 1000 ||
		!st.Get("agents.0.enabled").Bool() {
		t.Fatalf("status.heartbeat %s", st.Raw)
	}
}

// A heartbeat due while the main session is busy with a turn is skipped
// (requests-in-flight) and never reaches the model.
func TestBusySessionSkipsHeartbeat(t *testing.T) {
	release, began := make(chan struct{}), make(chan struct{})
	var once, beganOnce sync.Once
	m := &model{answer: func(int, gjson.Result) (string, [2]string) { return heartbeat.Token, [2]string{} },
		hold: func(req gjson.Result) chan struct{} {
			if lastUser(req) == "a long job" {
				beganOnce.Do(func() { close(began) })
				return release
			}
			return nil
		}}
	h := start(t, m, map[string]any{"every": "1s", "target": "none"}, nil, nil)
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = h.c.CallWith(context.Background(), "agent", map[string]any{"message": "a long job", "sessionKey": "main"},
			client.CallOptions{ExpectFinal: true})
	}()
	select {
	case <-began:
	case <-time.After(30 * time.Second):
		t.Fatal("the turn never reached the model")
	}
	busySince := time.Now().UnixMilli()
	calls := len(m.requests())
	// Heartbeats that started before the turn held the session may still
	// report; the first one started after it is the one under test.
	ev := h.next(t)
	for ev.Get("ts").Int() < busySince {
		ev = h.next(t)
	}
	if ev.Get("status").String() != heartbeat.StatusSkipped || ev.Get("reason").String() != "requests-in-flight" {
		t.Fatalf("heartbeat during a busy turn: %s", ev.Raw)
	}
	if n := len(m.requests()); n != calls {
		t.Fatalf("the model was called %d more times while the session was busy", n-calls)
	}
	once.Do(func() { close(release) })
	<-done
	// Once the session is free, heartbeats (target none) run again.
	for ev = h.next(t); ev.Get("status").String() != heartbeat.StatusOKToken; ev = h.next(t) {
		if ev.Get("reason").String() != "requests-in-flight" {
			t.Fatalf("heartbeat after the turn: %s", ev.Raw)
		}
	}
}

// Outside activeHours every heartbeat is skipped (quiet-hours) and the
// model is never called. The window is the two hours starting two hours
// from now in UTC, so now is outside it whenever the test runs.
func TestActiveHoursOutsideSkips(t *testing.T) {
	m := &model{answer: func(int, gjson.Result) (string, [2]string) { return heartbeat.Token, [2]string{} }}
	now := time.Now().UTC()
	h := start(t, m, map[string]any{"every": "1s", "target": "none", "activeHours": map[string]any{
		"start": now.Add(2 * time.Hour).Format("15:04"), "end": now.Add(4 * time.Hour).Format("15:04"), "timezone": "UTC"}}, nil, nil)
	for i := 0; i < 2; i++ {
		ev := h.next(t)
		if ev.Get("status").String() != heartbeat.StatusSkipped || ev.Get("reason").String() != "quiet-hours" {
			t.Fatalf("heartbeat outside active hours: %s", ev.Raw)
		}
	}
	if n := len(m.requests()); n != 0 {
		t.Fatalf("the model was called %d times outside active hours", n)
	}
}

// wake --mode now queues the text and runs a heartbeat at once (the
// schedule is off): the model sees the event as a System line before the
// heartbeat prompt; the event is consumed, so the next turn does not see
// it again. wake --mode next-heartbeat leaves its text for the session's
// next turn, whoever starts it.
func TestWakeNowFeedsTheEventToAHeartbeat(t *testing.T) {
	m := &model{answer: func(int, gjson.Result) (string, [2]string) { return heartbeat.Token, [2]string{} }}
	h := start(t, m, map[string]any{"every": "0m", "target": "none"}, nil, nil)
	if r := h.call(t, "wake", map[string]any{"mode": "now", "text": "The oven timer rang"}); !r.Get("ok").Bool() {
		t.Fatalf("wake %s", r.Raw)
	}
	ev := h.next(t)
	if ev.Get("status").String() != heartbeat.StatusOKToken || ev.Get("trigger").String() != "wake" {
		t.Fatalf("woken heartbeat %s", ev.Raw)
	}
	reqs := m.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls", len(reqs))
	}
	msg := lastUser(reqs[0])
	if !strings.HasPrefix(msg, "System: [") || !strings.Contains(msg, "] The oven timer rang\n\n"+heartbeat.DefaultPrompt) {
		t.Fatalf("the heartbeat prompt: %q", msg)
	}
	if r := h.call(t, "wake", map[string]any{"mode": "next-heartbeat", "text": "Mail from Ann"}); !r.Get("ok").Bool() {
		t.Fatalf("wake %s", r.Raw)
	}
	st := h.call(t, "status", map[string]any{})
	if st.Get("queuedSystemEvents").Raw != `["Mail from Ann"]` || st.Get("heartbeat.agents.0.enabled").Bool() || st.Get("heartbeat.agents.0.every").String() != "disabled" {
		t.Fatalf("status: queued %s heartbeat %s", st.Get("queuedSystemEvents").Raw, st.Get("heartbeat").Raw)
	}
	out := h.call(t, "agent", map[string]any{"message": "hello", "sessionKey": "main"})
	if out.Get("status").String() != "ok" {
		t.Fatalf("turn %s", out.Raw)
	}
	reqs = m.requests()
	msg = lastUser(reqs[len(reqs)-1])
	if !strings.Contains(msg, "] Mail from Ann\n\nhello") || strings.Contains(msg, "oven") {
		t.Fatalf("the next turn's message: %q", msg)
	}
}

// A cron main job's systemEvent text reaches the main session: with
// wakeMode now it runs a heartbeat whose prompt carries it; with
// next-heartbeat the session's next turn carries it.
func TestCronSystemEventReachesTheNextTurn(t *testing.T) {
	m := &model{answer: func(int, gjson.Result) (string, [2]string) { return heartbeat.Token, [2]string{} }}
	h := start(t, m, map[string]any{"every": "0m", "target": "none"}, nil, nil)
	add := func(text, wake string) string {
		j := h.call(t, "cron.add", map[string]any{"name": text, "schedule": map[string]any{"kind": "every", "everyMs": 3_600_000},
			"sessionTarget": "main", "wakeMode": wake, "payload": map[string]any{"kind": "systemEvent", "text": text}})
		id := j.Get("id").String()
		h.call(t, "cron.run", map[string]any{"id": id, "mode": "force"})
		return id
	}
	id := add("Stand-up in five minutes", "now")
	ev := h.next(t)
	if ev.Get("trigger").String() != "cron:"+id || ev.Get("status").String() != heartbeat.StatusOKToken {
		t.Fatalf("cron-woken heartbeat %s", ev.Raw)
	}
	if msg := lastUser(m.requests()[0]); !strings.Contains(msg, "] Stand-up in five minutes\n\n"+heartbeat.DefaultPrompt) {
		t.Fatalf("heartbeat prompt %q", msg)
	}
	id2 := add("Water the plants", "next-heartbeat")
	// The run has finished once cron.runs lists it; then a turn reads it.
	deadline := time.Now().Add(30 * time.Second)
	for !h.call(t, "cron.runs", map[string]any{"id": id2}).Get(`entries.#(action=="finished")`).Exists() {
		if time.Now().After(deadline) {
			t.Fatal("the cron run never finished")
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.call(t, "agent", map[string]any{"message": "what's up?"})
	reqs := m.requests()
	if msg := lastUser(reqs[len(reqs)-1]); !strings.Contains(msg, "] Water the plants\n\nwhat's up?") {
		t.Fatalf("next turn %q", msg)
	}
}

// A heartbeat turn holds the least a run can hold (operator.write): the
// model's cron add (operator.admin) is refused, though the gateway's
// owner configured the heartbeat.
func TestHeartbeatTurnHoldsTheLeastScopes(t *testing.T) {
	m := &model{answer: func(n int, req gjson.Result) (string, [2]string) {
		if _, ok := lastTool(req); ok {
			return heartbeat.Token, [2]string{}
		}
		return "", [2]string{"cron", `{"action":"add","job":{"name":"x","schedule":{"kind":"every","everyMs":60000},"sessionTarget":"main","payload":{"kind":"systemEvent","text":"x"}}}`}
	}}
	h := start(t, m, map[string]any{"every": "0m", "target": "none"}, nil, nil)
	h.call(t, "wake", map[string]any{"mode": "now", "text": "go"})
	ev := h.next(t)
	if ev.Get("status").String() != heartbeat.StatusOKToken {
		t.Fatalf("heartbeat %s", ev.Raw)
	}
	var result string
	for _, r := range m.requests() {
		if s, ok := lastTool(r); ok {
			result = s
		}
	}
	if !strings.Contains(result, "operator.admin") {
		t.Fatalf("the heartbeat's cron add was not refused for want of operator.admin: %q", result)
	}
	if jobs := h.call(t, "cron.list", map[string]any{}); jobs.Get("jobs.#").Int() != 0 {
		t.Fatalf("the heartbeat added a job: %s", jobs.Raw)
	}
}

// The default target is the owner: commands.ownerAllowFrom's
// telegram:<id> gets the alert in that chat. Without an owner a
// scheduled heartbeat with nothing queued is skipped (no-route) before
// any model call.
func TestOwnerTarget(t *testing.T) {
	m := &model{answer: func(int, gjson.Result) (string, [2]string) { return "Backup failed at 03:00.", [2]string{} }}
	bot := &botAPI{}
	h := startWith(t, m, map[string]any{"every": "1s"}, bot, nil,
		map[string]any{"commands": map[string]any{"ownerAllowFrom": []any{"telegram:777"}}})
	ev := h.next(t)
	if ev.Get("status").String() != heartbeat.StatusSent || ev.Get("to").String() != "777" {
		t.Fatalf("owner heartbeat %s", ev.Raw)
	}
	if sent := bot.sent(); len(sent) == 0 || sent[0].Get("chat_id").String() != "777" || sent[0].Get("text").String() != "Backup failed at 03:00." {
		t.Fatalf("telegram got %v", sent)
	}

	m2 := &model{answer: func(int, gjson.Result) (string, [2]string) { return "should not be asked", [2]string{} }}
	h2 := start(t, m2, map[string]any{"every": "1s"}, &botAPI{}, nil)
	for i := 0; i < 2; i++ {
		if ev := h2.next(t); ev.Get("status").String() != heartbeat.StatusSkipped || ev.Get("reason").String() != "no-route" {
			t.Fatalf("ownerless heartbeat %s", ev.Raw)
		}
	}
	if n := len(m2.requests()); n != 0 {
		t.Fatalf("the model was called %d times with nowhere to deliver", n)
	}
}

// A HEARTBEAT.md with nothing to act on (headings, empty checklist items)
// skips scheduled heartbeats without a model call.
func TestEmptyHeartbeatFileSkips(t *testing.T) {
	m := &model{answer: func(int, gjson.Result) (string, [2]string) { return heartbeat.Token, [2]string{} }}
	h := start(t, m, map[string]any{"every": "1s", "target": "none"}, nil, map[string]string{"HEARTBEAT.md": "# Heartbeat\n\n- [ ]\n"})
	if ev := h.next(t); ev.Get("status").String() != heartbeat.StatusSkipped || ev.Get("reason").String() != "empty-heartbeat-file" {
		t.Fatalf("heartbeat with an empty HEARTBEAT.md: %s", ev.Raw)
	}
	if n := len(m.requests()); n != 0 {
		t.Fatalf("the model was called %d times", n)
	}
}

// target last follows the main session's last conversation: after a turn
// delivered to Telegram chat 99, the heartbeat's alert goes there.
func TestLastTarget(t *testing.T) {
	m := &model{answer: func(n int, req gjson.Result) (string, [2]string) {
		if strings.HasSuffix(lastUser(req), heartbeat.DefaultPrompt) {
			return "Reminder: pay the invoice.", [2]string{}
		}
		return "hi there", [2]string{}
	}}
	bot := &botAPI{}
	h := start(t, m, map[string]any{"every": "0m", "target": "last"}, bot, nil)
	out := h.call(t, "agent", map[string]any{"message": "hello", "sessionKey": "main", "deliver": true, "channel": "telegram", "to": "99"})
	if out.Get("result.meta.deliveryStatus").String() != "delivered" {
		t.Fatalf("turn %s", out.Raw)
	}
	h.call(t, "wake", map[string]any{"mode": "now", "text": "invoice due"})
	ev := h.next(t)
	if ev.Get("status").String() != heartbeat.StatusSent || ev.Get("to").String() != "99" {
		t.Fatalf("heartbeat to the last conversation %s", ev.Raw)
	}
	sent := bot.sent()
	if len(sent) != 2 || sent[1].Get("chat_id").String() != "99" || sent[1].Get("text").String() != "Reminder: pay the invoice." {
		t.Fatalf("telegram got %v", sent)
	}
}

// A flood of queued events does not flood the prompt: the next turn shows
// the newest 20, each on one line and capped, and says how many it left
// out; all of them are consumed.
func TestQueuedEventsAreBounded(t *testing.T) {
	m := &model{answer: func(int, gjson.Result) (string, [2]string) { return "ok", [2]string{} }}
	h := start(t, m, map[string]any{"every": "0m", "target": "none"}, nil, nil)
	for i := 1; i <= 25; i++ {
		h.call(t, "wake", map[string]any{"mode": "next-heartbeat", "text": fmt.Sprintf("event %d\nsecond line %s", i, strings.Repeat("x", 3000))})
	}
	h.call(t, "agent", map[string]any{"message": "hello"})
	msg := lastUser(m.requests()[0])
	lines := strings.Split(msg, "\n")
	if len(lines) != 1+20+2 || lines[0] != "System: (5 earlier events dropped)" || !strings.Contains(lines[1], "] event 6 second line xxx") ||
		len([]rune(lines[20])) > 2100 || lines[len(lines)-1] != "hello" {
		t.Fatalf("the turn's message (%d lines): %.300q", len(lines), msg)
	}
	h.call(t, "agent", map[string]any{"message": "again"})
	if msg := lastUser(m.requests()[1]); msg != "again" {
		t.Fatalf("events seen twice: %.200q", msg)
	}
}
