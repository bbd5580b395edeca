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
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

const token = "agent-test-token"

// modelServer speaks OpenAI chat completions. Its script: a user turn
// gets a tool call of `read` on notes.txt (streamed as SSE); a tool
// result gets the answer "The file says: <result>" (a plain JSON answer,
// as servers that ignore stream:true send). It records every request.
type modelServer struct {
	mu       sync.Mutex
	requests []gjson.Result
}

func (m *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	req := gjson.ParseBytes(b)
	m.mu.Lock()
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	msgs := req.Get("messages").Array()
	last := msgs[len(msgs)-1]
	looping := strings.Contains(msgs[1].Get("content").String(), "LOOP")
	if last.Get("role").String() == "tool" && !looping {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"model":"m1","choices":[{"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":7}}`,
			"The file says: "+last.Get("content").String())
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunks := []string{
		`{"model":"m1","choices":[{"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":""}}]}}]}`,
		`{"model":"m1","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"notes.txt\"}"}}]}}]}`,
		`{"model":"m1","choices":[{"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":40,"completion_tokens":5}}`,
		`[DONE]`,
	}
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
	}
}

func (m *modelServer) calls() []gjson.Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]gjson.Result(nil), m.requests...)
}

func startGateway(t testing.TB, dir string, cfg map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return gatewaytest.Start(t, dir, token, 0).URL
}

// setup is a gateway whose default model is the scripted server, with a
// workspace holding notes.txt, and an agent "locked" whose policy denies
// read.
func setup(t testing.TB) (url string, model *modelServer, dir string) {
	dir = t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Be brief."), 0o600); err != nil {
		t.Fatal(err)
	}
	model = &modelServer{}
	srv := httptest.NewServer(model)
	t.Cleanup(srv.Close)
	url = startGateway(t, dir, map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": srv.URL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1", "name": "m1"}}}}},
		"agents": map[string]any{
			"defaults": map[string]any{"model": "loc/m1", "workspace": ws},
			"list": []any{map[string]any{"id": "main", "default": true}, map[string]any{"id": "locked", "tools": map[string]any{"deny": []any{"read"}}},
				map[string]any{"id": "looper", "tools": map[string]any{"loopDetection": map[string]any{"enabled": true, "warningThreshold": 2, "criticalThreshold": 3}}}},
		},
	})
	return url, model, dir
}

func dial(t *testing.T, url string, onEvent func(protocol.Event)) *client.Conn {
	t.Helper()
	c, err := client.Dial(context.Background(), client.Options{URL: url, Token: token,
		Scopes: []string{protocol.ScopeRead, protocol.ScopeWrite}, OnEvent: onEvent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// One turn end to end: `agent` answers accepted at once and the final on
// the same request; the model was offered the registry's agent schemas
// (read among them) and the workspace's AGENTS.md, called read through the
// one door, and its answer carries the file; the transcript holds the
// user message, the tool call, the result and the answer; agent.wait
// reports the ended run; agent events streamed the tool call.
func TestAgentTurnReadsAFile(t *testing.T) {
	url, model, _ := setup(t)
	var mu sync.Mutex
	var streams []string
	c := dial(t, url, func(ev protocol.Event) {
		if ev.Event == "agent" {
			mu.Lock()
			streams = append(streams, gjson.GetBytes(ev.Payload, "stream").String()+":"+gjson.GetBytes(ev.Payload, "data.phase").String())
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var accepted json.RawMessage
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "What is in notes.txt?", "idempotencyKey": "k1"},
		client.CallOptions{ExpectFinal: true, OnAccepted: func(p json.RawMessage) { accepted = p }})
	if err != nil {
		t.Fatal(err)
	}
	a := gjson.ParseBytes(accepted)
	if a.Get("status").String() != "accepted" || a.Get("runId").String() == "" || a.Get("sessionKey").String() != "agent:main:main" {
		t.Fatalf("accepted %s", accepted)
	}
	r := gjson.ParseBytes(out)
	if r.Get("status").String() != "ok" || r.Get("summary").String() != "completed" || r.Get("runId").String() != a.Get("runId").String() ||
		r.Get("result.payloads.0.text").String() != "The file says: remember the milk" ||
		r.Get("toolCalls.0.name").String() != "read" || r.Get("toolCalls.0.isError").Bool() ||
		r.Get("result.meta.agentMeta.provider").String() != "loc" || r.Get("result.meta.agentMeta.usage.inputTokens").Int() != 90 {
		t.Fatalf("final %s", out)
	}
	reqs := model.calls()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	first := reqs[0]
	if first.Get("model").String() != "m1" || !strings.Contains(first.Get("messages.0.content").String(), "Be brief.") ||
		!first.Get(`tools.#(function.name=="read")`).Exists() || !first.Get(`tools.#(function.name=="read").function.parameters.properties.path`).Exists() ||
		!first.Get(`tools.#(function.name=="sessions_list")`).Exists() {
		t.Fatalf("first model request: %s", first.Raw)
	}
	if reqs[1].Get("messages.#(role==\"tool\").tool_call_id").String() != "call_1" {
		t.Fatalf("second request lacks the tool result: %s", reqs[1].Raw)
	}

	h, err := c.Call(ctx, "tools.invoke", map[string]any{"name": "sessions_history",
		"args": map[string]any{"sessionKey": "agent:main:main", "includeTools": true}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := gjson.GetBytes(h, "output.details.messages").Array()
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Get("role").String())
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,assistant" || msgs[1].Get("content.0.type").String() != "toolCall" ||
		msgs[2].Get("content.0.text").String() != "remember the milk" {
		t.Fatalf("transcript %s", h)
	}
	w, err := c.Call(ctx, "agent.wait", map[string]any{"runId": a.Get("runId").String(), "timeoutMs": 1000})
	if err != nil || gjson.GetBytes(w, "status").String() != "ok" || gjson.GetBytes(w, "endedAt").Int() == 0 {
		t.Fatalf("agent.wait %s %v", w, err)
	}
	l, err := c.Call(ctx, "sessions.list", map[string]any{})
	if err != nil || gjson.GetBytes(l, "sessions.0.key").String() != "agent:main:main" || gjson.GetBytes(l, "sessions.0.model").String() != "m1" {
		t.Fatalf("sessions.list %s %v", l, err)
	}
	mu.Lock()
	got := strings.Join(streams, " ")
	mu.Unlock()
	for _, want := range []string{"lifecycle:start", "tool:start", "tool:result", "lifecycle:end"} {
		if !strings.Contains(got, want) {
			t.Errorf("agent events %q lack %s", got, want)
		}
	}

	// A second turn on the same session sends the first turn as history.
	if _, err := c.CallWith(ctx, "agent", map[string]any{"message": "again", "idempotencyKey": "k2"}, client.CallOptions{ExpectFinal: true}); err != nil {
		t.Fatal(err)
	}
	third := model.calls()[2]
	if third.Get("messages.#").Int() != 6 || third.Get("messages.1.content").String() != "What is in notes.txt?" {
		t.Fatalf("history not sent: %s", third.Get("messages").Raw)
	}
}

// An agent whose policy denies read is not offered read, and when its
// model calls it anyway the model sees the denial as the tool result.
func TestPolicyDenialReachesTheModel(t *testing.T) {
	url, model, _ := setup(t)
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "read it", "agentId": "locked", "idempotencyKey": "k3"},
		client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(out)
	text := r.Get("result.payloads.0.text").String()
	if r.Get("sessionKey").String() != "agent:locked:main" || !r.Get("toolCalls.0.isError").Bool() ||
		!strings.Contains(text, "The file says: error:") || strings.Contains(text, "milk") {
		t.Fatalf("final %s", out)
	}
	if model.calls()[0].Get(`tools.#(function.name=="read")`).Exists() {
		t.Fatal("a denied tool was offered to the model")
	}
}

// Without a configured model the run ends as an error, recorded, not a
// pretended answer.
func TestNoModelIsAnError(t *testing.T) {
	dir := t.TempDir()
	url := startGateway(t, dir, map[string]any{})
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "hi", "idempotencyKey": "k4"}, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(out, "status").String() != "error" || !strings.Contains(gjson.GetBytes(out, "error").String(), "agents.defaults.model") {
		t.Fatalf("final %s", out)
	}
}

// A model that calls the same tool forever meets loop detection (the
// calls after the critical threshold are refused and it sees why), then
// the step limit ends the run as an error.
func TestLoopDetectionAndStepLimit(t *testing.T) {
	url, model, _ := setup(t)
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "LOOP please", "agentId": "looper", "idempotencyKey": "k5"},
		client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(out)
	if r.Get("status").String() != "error" || r.Get("stopReason").String() != "max_steps" || r.Get("steps").Int() != 32 ||
		len(model.calls()) != 32 || r.Get("toolCalls.0.isError").Bool() || !r.Get("toolCalls.5.isError").Bool() {
		t.Fatalf("final %s", out)
	}
	h, err := c.Call(ctx, "tools.invoke", map[string]any{"name": "sessions_history",
		"args": map[string]any{"sessionKey": "agent:looper:main", "includeTools": true, "limit": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := gjson.GetBytes(h, "output.details.messages.0.content.0.text").String(); !strings.Contains(txt, "DENIED") {
		t.Fatalf("the model did not see the loop refusal: %s", h)
	}
}

// BenchmarkAgentTurnWithRead is one whole `agent` request over a real
// WebSocket (accepted, then final) whose turn is two model calls to a
// local server answering at once and one `read` through the one door, with
// five transcript appends: the runtime's overhead around the model.
func BenchmarkAgentTurnWithRead(b *testing.B) {
	url, _, _ := setup(b)
	c, err := client.Dial(context.Background(), client.Options{URL: url, Token: token, Scopes: []string{protocol.ScopeWrite}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		out, err := c.CallWith(ctx, "agent", map[string]any{"message": "What is in notes.txt?", "sessionKey": fmt.Sprintf("bench-%d", i)},
			client.CallOptions{ExpectFinal: true})
		if err != nil || gjson.GetBytes(out, "status").String() != "ok" {
			b.Fatalf("%s %v", out, err)
		}
	}
}

// A caller that disconnects mid-run loses the answer, not the run: the
// model is held until the connection is gone, then released; agent.wait
// on a new connection reports the run ended ok and sessions_history shows
// the finished turn.
func TestRunOutlivesItsCaller(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	held := make(chan struct{})
	inner := &modelServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(held); <-release })
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("still here"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startGateway(t, dir, map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{"baseUrl": srv.URL + "/v1", "apiKey": "k"}}},
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1", "workspace": ws}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Token: token, Scopes: []string{protocol.ScopeWrite}})
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan json.RawMessage, 1)
	go func() {
		_, _ = c.CallWith(ctx, "agent", map[string]any{"message": "What is in notes.txt?", "sessionKey": "gone"},
			client.CallOptions{ExpectFinal: true, OnAccepted: func(p json.RawMessage) { accepted <- p }})
	}()
	var runID string
	select {
	case p := <-accepted:
		runID = gjson.GetBytes(p, "runId").String()
	case <-ctx.Done():
		t.Fatal("no accepted answer")
	}
	<-held
	c.Close()
	close(release)

	c2 := dial(t, url, nil)
	w, err := c2.Call(ctx, "agent.wait", map[string]any{"runId": runID, "timeoutMs": 20000})
	if err != nil || gjson.GetBytes(w, "status").String() != "ok" {
		t.Fatalf("agent.wait %s %v", w, err)
	}
	h, err := c2.Call(ctx, "tools.invoke", map[string]any{"name": "sessions_history", "args": map[string]any{"sessionKey": "agent:main:gone"}})
	if err != nil {
		t.Fatal(err)
	}
	if last := gjson.GetBytes(h, "output.details.messages.@reverse.0.content.0.text").String(); last != "The file says: still here" {
		t.Fatalf("history after the caller left: %s", h)
	}
}
