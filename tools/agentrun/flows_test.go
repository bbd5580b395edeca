package agentrun_test

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
	"github.com/openclaw-go/openclaw/protocol"
)

// reply is what the scripted model answers: text, or tool calls.
type reply struct {
	text  string
	calls [][2]string // name, JSON arguments
}

// scripted is a chat-completions server whose answers come from a script
// over the request; every other answer is streamed (SSE, the text in
// several chunks), the rest are plain JSON. hold, when it returns a
// channel, blocks that request until the channel closes or the caller
// goes away.
type scripted struct {
	mu     sync.Mutex
	n      int
	reqs   []gjson.Result
	script func(req gjson.Result) reply
	hold   func(req gjson.Result) chan struct{}
	seen   chan gjson.Result
	// pieces, when set, streams the text in that many deltas (else two).
	pieces int
}

func (m *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	req := gjson.ParseBytes(b)
	m.mu.Lock()
	m.n++
	stream := m.n%2 == 1
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if m.seen != nil {
		select {
		case m.seen <- req:
		default:
		}
	}
	if m.hold != nil {
		if ch := m.hold(req); ch != nil {
			select {
			case <-ch:
			case <-r.Context().Done():
				return
			}
		}
	}
	rep := m.script(req)
	if !stream {
		msg := map[string]any{"role": "assistant", "content": rep.text}
		finish := "stop"
		if len(rep.calls) > 0 {
			var tc []map[string]any
			for i, c := range rep.calls {
				tc = append(tc, map[string]any{"id": fmt.Sprintf("call_%d_%d", m.n, i), "type": "function",
					"function": map[string]any{"name": c[0], "arguments": c[1]}})
			}
			msg["tool_calls"], finish = tc, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"model": "m1", "choices": []any{map[string]any{"message": msg, "finish_reason": finish}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 3}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	if rep.text != "" {
		n := max(m.pieces, 2)
		for i := 0; i < n; i++ {
			part := rep.text[i*len(rep.text)/n : (i+1)*len(rep.text)/n]
			send(map[string]any{"model": "m1", "choices": []any{map[string]any{"delta": map[string]any{"content": part}}}})
		}
	}
	for i, c := range rep.calls {
		send(map[string]any{"model": "m1", "choices": []any{map[string]any{"delta": map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": fmt.Sprintf("call_%d_%d", m.n, i), "type": "function", "function": map[string]any{"name": c[0], "arguments": c[1]}}}}}}})
	}
	finish := "stop"
	if len(rep.calls) > 0 {
		finish = "tool_calls"
	}
	send(map[string]any{"model": "m1", "choices": []any{map[string]any{"delta": map[string]any{}, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 3}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (m *scripted) requests() []gjson.Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]gjson.Result(nil), m.reqs...)
}

// lastUser is the request's last user message; lastTool its last tool
// result ("" when the last message is not one).
func lastUser(req gjson.Result) string {
	msgs := req.Get("messages").Array()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Get("role").String() == "user" {
			return msgs[i].Get("content").String()
		}
	}
	return ""
}

func toolResults(req gjson.Result) []string {
	var out []string
	msgs := req.Get("messages").Array()
	for i := len(msgs) - 1; i >= 0 && msgs[i].Get("role").String() == "tool"; i-- {
		out = append([]string{msgs[i].Get("content").String()}, out...)
	}
	return out
}

func system(req gjson.Result) string { return req.Get("messages.0.content").String() }

// flowGateway is a gateway over the scripted model with a workspace
// holding notes.txt; extra config merges into agents.
func flowGateway(t *testing.T, m *scripted, cfg map[string]any) (url, dir string) {
	dir = t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	base := map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": srv.URL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1", "name": "m1"}, map[string]any{"id": "m2", "name": "m2"}}}}},
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1", "workspace": ws}},
	}
	for k, v := range cfg {
		base[k] = v
	}
	return startGateway(t, dir, base), dir
}

// waitFor polls fn (a read of the gateway) until it holds; the bound is
// generous and no duration is asserted.
func waitFor(t *testing.T, what string, fn func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		ok, s := fn()
		if ok {
			return
		}
		last = s
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: never happened; last seen %s", what, last)
}

func history(t *testing.T, c *client.Conn, key string) gjson.Result {
	t.Helper()
	h, err := c.Call(context.Background(), "chat.history", map[string]any{"sessionKey": key})
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(h)
}

// A sub-agent spawn end to end: the main turn calls sessions_spawn (the
// answer is accepted at once, with the child key and the attachment
// receipt); the child runs with the sub-agent policy (no sessions_spawn
// offered), calls read (of the attachment) and exec, and answers; its
// result is announced back to the main session as a new turn there, which
// the model summarises.
func TestSpawnReadsExecsAndAnnounces(t *testing.T) {
	m := &scripted{}
	m.script = func(req gjson.Result) reply {
		u, tr := lastUser(req), toolResults(req)
		switch {
		case strings.HasPrefix(u, "A subagent task"): // the announce turn on main
			i := strings.Index(u, "Result:\n")
			return reply{text: "Announced: " + strings.SplitN(u[i+8:], "\nNotes:", 2)[0]}
		case strings.Contains(system(req), "sub-agent spawned by session agent:main:main") && len(tr) == 0:
			dir := strings.SplitN(strings.SplitN(u, " are in ", 2)[1], " ", 2)[0]
			return reply{calls: [][2]string{{"read", fmt.Sprintf(`{"path":%q}`, dir+"/brief.txt")}, {"exec", `{"command":"echo exec-ok"}`}}}
		case strings.Contains(system(req), "sub-agent"):
			return reply{text: "child: " + strings.Join(tr, " | ")}
		case len(tr) == 0:
			return reply{calls: [][2]string{{"sessions_spawn", `{"task":"Check the brief","label":"checker","attachments":[{"name":"brief.txt","content":"the brief text"}]}`}}}
		}
		return reply{text: "spawned: " + tr[0]}
	}
	url, dir := flowGateway(t, m, map[string]any{"tools": map[string]any{"sessions_spawn": map[string]any{"attachments": map[string]any{"enabled": true}}}})
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "Spawn a checker", "idempotencyKey": "s1"}, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	text := gjson.GetBytes(out, "result.payloads.0.text").String()
	spawn := gjson.Parse(strings.TrimPrefix(text, "spawned: "))
	child := spawn.Get("childSessionKey").String()
	if spawn.Get("status").String() != "accepted" || !strings.HasPrefix(child, "agent:main:subagent:") ||
		spawn.Get("attachments.count").Int() != 1 || spawn.Get("attachments.files.0.bytes").Int() != 14 {
		t.Fatalf("spawn answer: %s", out)
	}
	rel := spawn.Get("attachments.relDir").String()
	manifest, err := os.ReadFile(filepath.Join(dir, "workspace", rel, ".manifest.json"))
	if err != nil || gjson.GetBytes(manifest, "files.0.name").String() != "brief.txt" {
		t.Fatalf("manifest %s %v", manifest, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "workspace", rel, "brief.txt")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("attachment file: %v %v", st, err)
	}
	want := "Announced: child: the brief text | exec-ok"
	waitFor(t, "the announce on main", func() (bool, string) {
		h := history(t, c, "agent:main:main")
		last := h.Get("messages.@reverse.0")
		return last.Get("role").String() == "assistant" && strings.HasPrefix(last.Get("content.0.text").String(), want), h.Raw
	})
	ch := history(t, c, child)
	var tools []string
	for _, msg := range ch.Get("messages").Array() {
		if msg.Get("role").String() == "toolResult" {
			if msg.Get("isError").Bool() {
				t.Fatalf("child tool failed: %s", msg.Raw)
			}
			tools = append(tools, msg.Get("toolName").String())
		}
	}
	if strings.Join(tools, ",") != "read,exec" {
		t.Fatalf("child tools %v: %s", tools, ch.Raw)
	}
	l, err := c.Call(ctx, "sessions.list", map[string]any{"spawnedBy": "agent:main:main"})
	if err != nil || gjson.GetBytes(l, "sessions.0.key").String() != child || gjson.GetBytes(l, "sessions.0.label").String() != "checker" {
		t.Fatalf("child row %s %v", l, err)
	}
	for _, req := range m.requests() {
		if strings.Contains(system(req), "sub-agent") && req.Get(`tools.#(function.name=="sessions_spawn")`).Exists() {
			t.Fatal("the child was offered sessions_spawn (sub-agent policy)")
		}
	}
}

// chat.send answers started at once; chat.abort stops the run while the
// model is still answering: the run ends aborted (agent.wait), a chat
// event says aborted, and the session records the aborted run.
func TestChatAbortStopsARun(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	m := &scripted{seen: make(chan gjson.Result, 4), script: func(gjson.Result) reply { return reply{text: "too late"} },
		hold: func(gjson.Result) chan struct{} { return hold }}
	url, _ := flowGateway(t, m, nil)
	var mu sync.Mutex
	var states []string
	c := dial(t, url, func(ev protocol.Event) {
		if ev.Event == "chat" {
			mu.Lock()
			states = append(states, gjson.GetBytes(ev.Payload, "state").String())
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := c.Call(ctx, "chat.send", map[string]any{"sessionKey": "agent:main:main", "message": "take your time", "idempotencyKey": "c1"})
	if err != nil || gjson.GetBytes(r, "status").String() != "started" {
		t.Fatalf("chat.send %s %v", r, err)
	}
	runID := gjson.GetBytes(r, "runId").String()
	again, err := c.Call(ctx, "chat.send", map[string]any{"sessionKey": "agent:main:main", "message": "take your time", "idempotencyKey": "c1"})
	// A repeat of the idempotency key starts nothing: the same run.
	if err != nil || gjson.GetBytes(again, "runId").String() != runID {
		t.Fatalf("repeat %s %v", again, err)
	}
	select {
	case <-m.seen:
	case <-ctx.Done():
		t.Fatal("the model was never called")
	}
	a, err := c.Call(ctx, "chat.abort", map[string]any{"sessionKey": "main"})
	if err != nil || !gjson.GetBytes(a, "aborted").Bool() || gjson.GetBytes(a, "runIds.0").String() != runID {
		t.Fatalf("chat.abort %s %v", a, err)
	}
	w, err := c.Call(ctx, "agent.wait", map[string]any{"runId": runID, "timeoutMs": 20000})
	if err != nil || gjson.GetBytes(w, "status").String() != "error" || gjson.GetBytes(w, "stopReason").String() != "aborted" {
		t.Fatalf("agent.wait %s %v", w, err)
	}
	l, err := c.Call(ctx, "sessions.list", map[string]any{})
	if err != nil || gjson.GetBytes(l, `sessions.#(key=="agent:main:main").status`).String() != "killed" {
		t.Fatalf("sessions.list %s %v", l, err)
	}
	waitFor(t, "the aborted chat event", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return len(states) > 0 && states[len(states)-1] == "aborted", strings.Join(states, ",")
	})
	nothing, err := c.Call(ctx, "chat.abort", map[string]any{"sessionKey": "main"})
	if err != nil || gjson.GetBytes(nothing, "aborted").Bool() {
		t.Fatalf("second abort %s %v", nothing, err)
	}
}

// sessions_send with the reply ping-pong: main sends to the ops agent's
// main session and gets its reply; then the two take turns until the
// requester answers REPLY_SKIP (maxPingPongTurns 3), and the target's
// announce step answers ANNOUNCE_SKIP. Cross-agent needs agentToAgent.
func TestSessionsSendPingPong(t *testing.T) {
	m := &scripted{}
	m.script = func(req gjson.Result) reply {
		u, sys, tr := lastUser(req), system(req), toolResults(req)
		switch {
		case strings.Contains(sys, "Agent-to-agent announce step"):
			return reply{text: "ANNOUNCE_SKIP"}
		case strings.Contains(sys, "Current agent: Agent 2 (target)"):
			return reply{text: "ops again: " + u}
		case strings.Contains(sys, "Current agent: Agent 1 (requester)") && strings.HasPrefix(u, "ops again"):
			return reply{text: "REPLY_SKIP"}
		case strings.Contains(sys, "Current agent: Agent 1 (requester)"):
			return reply{text: "main replies to: " + u}
		case strings.Contains(sys, "Agent 2 (target) session: agent:ops:main"):
			return reply{text: "ops got: " + u}
		case len(tr) == 0 && u == "ask ops":
			return reply{calls: [][2]string{{"sessions_send", `{"sessionKey":"agent:ops:main","message":"status?","timeoutSeconds":20}`}}}
		case len(tr) == 0 && u == "ask ops quietly":
			return reply{calls: [][2]string{{"sessions_send", `{"agentId":"ops","message":"fyi","timeoutSeconds":0}`}}}
		}
		return reply{text: "main saw: " + tr[0]}
	}
	url, _ := flowGateway(t, m, map[string]any{
		"tools":   map[string]any{"agentToAgent": map[string]any{"enabled": true}},
		"session": map[string]any{"agentToAgent": map[string]any{"maxPingPongTurns": 3}},
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1"},
			"list": []any{map[string]any{"id": "main", "default": true}, map[string]any{"id": "ops"}}},
	})
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "ask ops", "idempotencyKey": "p1"}, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	sent := gjson.Parse(strings.TrimPrefix(gjson.GetBytes(out, "result.payloads.0.text").String(), "main saw: "))
	if sent.Get("status").String() != "ok" || sent.Get("reply").String() != "ops got: status?" || sent.Get("sessionKey").String() != "agent:ops:main" {
		t.Fatalf("sessions_send answer: %s", out)
	}
	// The ping-pong: turn 1 main (requester) replies, turn 2 ops
	// replies, turn 3 main says REPLY_SKIP; then the announce on ops.
	waitFor(t, "the announce step on ops", func() (bool, string) {
		h := history(t, c, "agent:ops:main")
		return h.Get("messages.@reverse.0.content.0.text").String() == "ANNOUNCE_SKIP", h.Raw
	})
	mainH := history(t, c, "agent:main:main")
	var mainTexts []string
	for _, msg := range mainH.Get("messages").Array() {
		if msg.Get("role").String() == "assistant" && msg.Get("content.0.text").String() != "" {
			mainTexts = append(mainTexts, msg.Get("content.0.text").String())
		}
	}
	if got := strings.Join(mainTexts, " / "); !strings.Contains(got, "main replies to: ops got: status?") || !strings.HasSuffix(got, "REPLY_SKIP") {
		t.Fatalf("main's turns: %s", got)
	}
	opsH := history(t, c, "agent:ops:main")
	if !strings.Contains(opsH.Raw, "ops again: main replies to: ops got: status?") {
		t.Fatalf("ops turns: %s", opsH.Raw)
	}

	// Fire and forget: accepted at once with the run id.
	out, err = c.CallWith(ctx, "agent", map[string]any{"message": "ask ops quietly", "idempotencyKey": "p2"}, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	ff := gjson.Parse(strings.TrimPrefix(gjson.GetBytes(out, "result.payloads.0.text").String(), "main saw: "))
	if ff.Get("status").String() != "accepted" || ff.Get("runId").String() == "" {
		t.Fatalf("fire and forget: %s", out)
	}
}

// Without tools.agentToAgent a cross-agent send is forbidden with the
// original's words; session_status sets and clears a model override that
// the next turn uses; agents_list honours subagents.allowAgents.
func TestSendForbiddenStatusOverrideAgentsList(t *testing.T) {
	m := &scripted{script: func(req gjson.Result) reply {
		switch tr := toolResults(req); {
		case len(tr) > 0:
			return reply{text: "main saw: " + tr[0]}
		case lastUser(req) == "ask ops":
			return reply{calls: [][2]string{{"sessions_send", `{"sessionKey":"agent:ops:main","message":"status?"}`}}}
		}
		return reply{text: "model " + req.Get("model").String()}
	}}
	url, _ := flowGateway(t, m, map[string]any{
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1"},
			"list": []any{map[string]any{"id": "main", "default": true, "subagents": map[string]any{"allowAgents": []any{"ops", "gone"}}},
				map[string]any{"id": "ops", "model": "loc/m2"}, map[string]any{"id": "zed"}}},
	})
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	invoke := func(name, key string, args map[string]any) gjson.Result {
		t.Helper()
		params := map[string]any{"name": name, "args": args}
		if key != "" {
			params["sessionKey"] = key
		}
		r, err := c.Call(ctx, "tools.invoke", params)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return gjson.ParseBytes(r).Get("output.details")
	}
	r, err := c.Call(ctx, "tools.invoke", map[string]any{"name": "agents_list", "args": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	al := gjson.GetBytes(r, "output.details")
	if al.Get("requester").String() != "main" || al.Get("agents.#").Int() != 2 || al.Get("agents.1.id").String() != "ops" ||
		al.Get("agents.1.model").String() != "loc/m2" || al.Get("allowAny").Bool() {
		t.Fatalf("agents_list %s", r)
	}
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "ask ops"}, client.CallOptions{ExpectFinal: true})
	seen := gjson.Parse(strings.TrimPrefix(gjson.GetBytes(out, "result.payloads.0.text").String(), "main saw: "))
	if err != nil || seen.Get("status").String() != "forbidden" || !strings.HasPrefix(seen.Get("error").String(), "Agent-to-agent messaging is disabled.") {
		t.Fatalf("cross-agent send without agentToAgent: %s %v", out, err)
	}
	if _, err := c.Call(ctx, "sessions.patch", map[string]any{"key": "agent:main:work", "label": "work"}); err != nil {
		t.Fatal(err)
	}
	st := invoke("session_status", "", map[string]any{"sessionKey": "agent:main:work", "model": "loc/m2"})
	if st.Get("modelOverride").String() != "loc/m2" {
		t.Fatalf("session_status %s", st.Raw)
	}
	out, err = c.CallWith(ctx, "agent", map[string]any{"message": "hi", "sessionKey": "agent:main:work"}, client.CallOptions{ExpectFinal: true})
	if err != nil || gjson.GetBytes(out, "result.payloads.0.text").String() != "model m2" {
		t.Fatalf("turn with override %s %v", out, err)
	}
	st = invoke("session_status", "", map[string]any{"sessionKey": "agent:main:work", "model": "default"})
	if st.Get("modelOverride").Exists() && st.Get("modelOverride").Type != gjson.Null {
		t.Fatalf("cleared %s", st.Raw)
	}
	out, err = c.CallWith(ctx, "agent", map[string]any{"message": "hi", "sessionKey": "agent:main:work"}, client.CallOptions{ExpectFinal: true})
	if err != nil || gjson.GetBytes(out, "result.payloads.0.text").String() != "model m1" {
		t.Fatalf("turn after clearing %s %v", out, err)
	}
	if r, err := c.Call(ctx, "tools.invoke", map[string]any{"name": "session_status", "args": map[string]any{"sessionKey": "agent:main:work", "model": "nope/x"}}); err != nil ||
		gjson.GetBytes(r, "ok").Bool() || gjson.GetBytes(r, "error.code").String() != "INVALID_PARAMS" {
		t.Fatalf("an unknown model: %s %v", r, err)
	}
}
