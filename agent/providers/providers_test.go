package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
)

// cfgFor configures one provider "p" at url speaking api.
func cfgFor(api, url string) *config.Config {
	return &config.Config{Doc: map[string]any{
		"models": map[string]any{"providers": map[string]any{
			"p": map[string]any{"baseUrl": url, "apiKey": "sk-test", "api": api,
				"models": []any{map[string]any{"id": "vis", "input": []any{"text", "image"}}}},
		}},
	}}
}

func resolve(t *testing.T, api, url string) Provider {
	t.Helper()
	p, _, ref, err := Resolve(cfgFor(api, url), "p/vis")
	if err != nil {
		t.Fatal(err)
	}
	if ref.Model != "vis" {
		t.Fatalf("ref %+v", ref)
	}
	return p
}

// sse writes events one at a time, flushing each, as a real server does.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprint(w, e)
		w.(http.Flusher).Flush()
	}
}

func chatRequest() Request {
	return Request{
		Model:    "vis",
		System:   "be brief",
		Messages: []Message{{Role: "user", Parts: []Part{TextPart("what is this?"), ImagePart("image/png", []byte("PNGDATA"))}}},
		Tools: []ToolDef{{Name: "lookup", Description: "look up", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}}},
		MaxTokens: 512,
	}
}

// A streamed OpenAI answer: text and a tool call whose name and arguments
// arrive split across chunks are reassembled; deltas stream in order; the
// request carries the documented shapes.
func TestOpenAIStreamTextAndToolCall(t *testing.T) {
	var got map[string]any
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "bad path "+r.URL.Path, 404)
			return
		}
		auth = r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&got)
		sse(w,
			`data: {"id":"c1","model":"vis-2024","choices":[{"index":0,"delta":{"role":"assistant","content":"A ca"},"finish_reason":null}]}`+"\n\n",
			`data: {"id":"c1","choices":[{"index":0,"delta":{"content":"t."},"finish_reason":null}]}`+"\n\n",
			`data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"look","arguments":""}}]},"finish_reason":null}]}`+"\n\n",
			`data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"up","arguments":"{\"q\":"}}]},"finish_reason":null}]}`+"\n\n",
			`data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"cats\"}"}}]},"finish_reason":null}]}`+"\n\n",
			`data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n",
			`data: {"id":"c1","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7}}`+"\n\n",
			"data: [DONE]\n\n")
	}))
	defer srv.Close()

	req := chatRequest()
	var text strings.Builder
	var args strings.Builder
	req.OnDelta = func(d Delta) {
		text.WriteString(d.Text)
		if d.ToolCall != nil {
			args.WriteString(d.ToolCall.Arguments)
		}
	}
	resp, err := resolve(t, APIOpenAICompletions, srv.URL+"/v1").Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "A cat." || text.String() != "A cat." {
		t.Fatalf("text %q, streamed %q", resp.Text, text.String())
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != (ToolCall{ID: "call_1", Name: "lookup", Arguments: `{"q":"cats"}`}) {
		t.Fatalf("tool calls %+v", resp.ToolCalls)
	}
	if args.String() != `{"q":"cats"}` {
		t.Fatalf("streamed args %q", args.String())
	}
	if resp.StopReason != "tool_calls" || resp.Usage != (Usage{11, 7}) || resp.Model != "vis-2024" {
		t.Fatalf("resp %+v", resp)
	}
	if auth != "Bearer sk-test" {
		t.Fatalf("auth %q", auth)
	}
	if got["model"] != "vis" || got["stream"] != true || got["max_tokens"] != float64(512) {
		t.Fatalf("body %v", got)
	}
	msgs := got["messages"].([]any)
	if m := msgs[0].(map[string]any); m["role"] != "system" || m["content"] != "be brief" {
		t.Fatalf("system %v", m)
	}
	content := msgs[1].(map[string]any)["content"].([]any)
	img := content[1].(map[string]any)
	if img["type"] != "image_url" || img["image_url"].(map[string]any)["url"] != "data:image/png;base64,UE5HREFUQQ==" {
		t.Fatalf("image part %v", img)
	}
	tool := got["tools"].([]any)[0].(map[string]any)
	if tool["type"] != "function" || tool["function"].(map[string]any)["name"] != "lookup" {
		t.Fatalf("tools %v", tool)
	}
}

// A streamed Anthropic answer: text_delta and input_json_delta events are
// reassembled; headers and the image block follow the Messages API.
func TestAnthropicStreamTextAndToolCall(t *testing.T) {
	var got map[string]any
	var hdr http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" {
			http.Error(w, "bad path", 404)
			return
		}
		hdr = r.Header.Clone()
		_ = json.NewDecoder(r.Body).Decode(&got)
		sse(w,
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"vis-1\",\"content\":[],\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n",
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
			"event: ping\ndata: {\"type\":\"ping\"}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"A ca\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t.\"}}\n\n",
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"lookup\",\"input\":{}}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"q\\\": \\\"ca\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"ts\\\"}\"}}\n\n",
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":15}}\n\n",
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	defer srv.Close()

	req := chatRequest()
	var text strings.Builder
	req.OnDelta = func(d Delta) { text.WriteString(d.Text) }
	resp, err := resolve(t, APIAnthropicMessages, srv.URL).Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "A cat." || text.String() != "A cat." {
		t.Fatalf("text %q streamed %q", resp.Text, text.String())
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != (ToolCall{ID: "toolu_1", Name: "lookup", Arguments: `{"q": "cats"}`}) {
		t.Fatalf("tool calls %+v", resp.ToolCalls)
	}
	if resp.StopReason != "tool_use" || resp.Usage != (Usage{25, 15}) || resp.Model != "vis-1" {
		t.Fatalf("resp %+v", resp)
	}
	if hdr.Get("x-api-key") != "sk-test" || hdr.Get("anthropic-version") != "2023-06-01" {
		t.Fatalf("headers %v", hdr)
	}
	if got["system"] != "be brief" || got["max_tokens"] != float64(512) || got["stream"] != true {
		t.Fatalf("body %v", got)
	}
	blocks := got["messages"].([]any)[0].(map[string]any)["content"].([]any)
	src := blocks[1].(map[string]any)["source"].(map[string]any)
	if src["type"] != "base64" || src["media_type"] != "image/png" || src["data"] != "UE5HREFUQQ==" {
		t.Fatalf("image block %v", blocks[1])
	}
	if tool := got["tools"].([]any)[0].(map[string]any); tool["name"] != "lookup" || tool["input_schema"] == nil {
		t.Fatalf("tools %v", tool)
	}
}

// Tool results go back in each API's shape: OpenAI role "tool" with
// tool_call_id; Anthropic one user turn of tool_result blocks.
func TestToolResultShapes(t *testing.T) {
	req := Request{Model: "m", Messages: []Message{
		{Role: "user", Parts: []Part{TextPart("hi")}},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "a", Name: "x", Arguments: `{"k":1}`}, {ID: "b", Name: "y"}}},
		{Role: "tool", ToolCallID: "a", Parts: []Part{TextPart("ra")}},
		{Role: "tool", ToolCallID: "b", Parts: []Part{TextPart("rb")}},
	}}
	s := &Settings{ID: "p", BaseURL: "http://127.0.0.1:1"}
	ob := (&openAI{s: s}).body(req)["messages"].([]map[string]any)
	if ob[2]["role"] != "tool" || ob[2]["tool_call_id"] != "a" || ob[1]["content"] != nil {
		t.Fatalf("openai %v", ob)
	}
	ab := (&anthropic{s: s}).body(req)["messages"].([]map[string]any)
	if len(ab) != 3 || ab[2]["role"] != "user" || len(ab[2]["content"].([]map[string]any)) != 2 {
		t.Fatalf("anthropic %v", ab)
	}
	if use := ab[1]["content"].([]map[string]any)[0]; use["type"] != "tool_use" || use["input"].(map[string]any)["k"] != float64(1) {
		t.Fatalf("tool_use %v", use)
	}
}

// 401 from either API says which key to check, with the auth code.
func TestUnauthorizedNamesTheKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided"}}`)
	}))
	defer srv.Close()
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		_, err := resolve(t, api, srv.URL).Chat(context.Background(), chatRequest())
		fe := failure.AsError(err)
		if fe == nil || fe.Code != failure.CodeAuth || !strings.Contains(err.Error(), "check models.providers.p.apiKey") ||
			!strings.Contains(err.Error(), "Incorrect API key") {
			t.Fatalf("%s: %v", api, err)
		}
	}
}

// Cancelling ctx mid-stream stops the call with INTERRUPTED, while the
// server is still holding the stream open.
func TestCancelMidStream(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			sse(w, `data: {"choices":[{"index":0,"delta":{"content":"partial"}}]}`+"\n\n")
		} else {
			sse(w, "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"partial\"}}\n\n")
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		ctx, cancel := context.WithCancel(context.Background())
		req := chatRequest()
		req.OnDelta = func(d Delta) {
			if d.Text == "partial" {
				cancel()
			}
		}
		_, err := resolve(t, api, srv.URL).Chat(ctx, req)
		cancel()
		fe := failure.AsError(err)
		if fe == nil || fe.Code != failure.CodeInterrupted || !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", api, err)
		}
	}
}

// A stream cut off before its end marker is an error, not a short answer.
func TestTruncatedStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w, `data: {"choices":[{"index":0,"delta":{"content":"half"}}]}`+"\n\n",
			"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"half\"}}\n\n")
	}))
	defer srv.Close()
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		_, err := resolve(t, api, srv.URL).Chat(context.Background(), chatRequest())
		if err == nil || !strings.Contains(err.Error(), "stream ended before") {
			t.Fatalf("%s: %v", api, err)
		}
	}
}

// An unreachable baseUrl is an error (exit 1: exit 5 is an unreachable
// gateway) and names the key to fix.
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := resolve(t, APIOpenAICompletions, url).Chat(context.Background(), chatRequest())
	if fe := failure.AsError(err); fe == nil || fe.Code != failure.CodeFailed || !strings.Contains(err.Error(), "models.providers.p.baseUrl") {
		t.Fatalf("%v", err)
	}
}

func TestRefsAndImageModels(t *testing.T) {
	if _, err := ParseRef("gpt-4o"); err == nil || !strings.Contains(err.Error(), "provider/model") {
		t.Fatalf("bare model: %v", err)
	}
	if r, _ := ParseRef("or/meta-llama/llama-3"); r.Provider != "or" || r.Model != "meta-llama/llama-3" {
		t.Fatalf("%+v", r)
	}
	cfg := cfgFor(APIOpenAICompletions, "http://127.0.0.1:1")
	if _, _, _, err := Resolve(cfg, "nope/x"); err == nil || !strings.Contains(err.Error(), "models.providers.nope") {
		t.Fatalf("unknown provider: %v", err)
	}
	// Inferred from the catalog's image input when nothing is set.
	if got := ImageModels(cfg); len(got) != 1 || got[0] != "p/vis" {
		t.Fatalf("inferred %v", got)
	}
	cfg.Doc["agents"] = map[string]any{"defaults": map[string]any{
		"model":      "p/text",
		"imageModel": map[string]any{"primary": "p/vis", "fallbacks": []any{"q/other"}},
	}}
	if got := ImageModels(cfg); strings.Join(got, ",") != "p/vis,q/other" {
		t.Fatalf("configured %v", got)
	}
	if DefaultModel(cfg) != "p/text" {
		t.Fatal(DefaultModel(cfg))
	}
	empty := &config.Config{Doc: map[string]any{}}
	if got := ImageModels(empty); len(got) != 0 {
		t.Fatalf("none %v", got)
	}
	s, err := Lookup(cfg, "p")
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := s.Model("vis"); !ok || !m.SupportsImages() {
		t.Fatalf("%+v", m)
	}
	bad := &config.Config{Doc: map[string]any{"models": map[string]any{"providers": map[string]any{
		"z": map[string]any{"baseUrl": "http://x", "api": "openai-responses"}}}}}
	if _, _, _, err := Resolve(bad, "z/m"); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("%v", err)
	}
}

// A whole (non-streamed) answer with two tool calls: they stay two calls
// (the message's tool_calls carry no index), in order.
func TestOpenAIWholeAnswerTwoToolCalls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"model":"m","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[`+
			`{"id":"a","type":"function","function":{"name":"read","arguments":"{\"path\":\"x\"}"}},`+
			`{"id":"b","type":"function","function":{"name":"exec","arguments":"{\"command\":\"ls\"}"}}]},"finish_reason":"tool_calls"}]}`)
	}))
	defer srv.Close()
	resp, err := resolve(t, APIOpenAICompletions, srv.URL).Chat(context.Background(), chatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0] != (ToolCall{ID: "a", Name: "read", Arguments: `{"path":"x"}`}) ||
		resp.ToolCalls[1] != (ToolCall{ID: "b", Name: "exec", Arguments: `{"command":"ls"}`}) {
		t.Fatalf("tool calls %+v", resp.ToolCalls)
	}
}

// An event line longer than the 4 MiB cap, or an event whose data lines
// together pass it, fails with an error that names the provider and the
// cap (not bufio's "token too long"), for both APIs.
func TestOversizedEventNamesTheCap(t *testing.T) {
	long := strings.Repeat("x", maxEventBytes+10)
	many := strings.Repeat("data: "+strings.Repeat("y", 1<<20)+"\n", 5) + "\n"
	for name, body := range map[string]string{"one line": "data: " + long + "\n\n", "data lines": many} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sse(w, body) }))
		for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
			_, err := resolve(t, api, srv.URL).Chat(context.Background(), chatRequest())
			if err == nil || !strings.Contains(err.Error(), "model provider p: ") || !strings.Contains(err.Error(), "longer than 4 MiB (the cap on one event)") ||
				strings.Contains(err.Error(), "token too long") {
				t.Errorf("%s, %s: %v", name, api, err)
			}
		}
		srv.Close()
	}
	// A whole JSON answer past the cap says so too.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"message":{"content":%q}}]}`, long)
	}))
	defer srv.Close()
	_, err := resolve(t, APIOpenAICompletions, srv.URL).Chat(context.Background(), chatRequest())
	if err == nil || !strings.Contains(err.Error(), "longer than 4 MiB") {
		t.Errorf("json answer: %v", err)
	}
}

// An answer streamed past MaxAnswerBytes (in small deltas, each event
// legal) stops with an error naming the cap, and no more than the cap
// reached the caller's OnDelta: text and tool arguments alike.
func TestAnswerCap(t *testing.T) {
	chunk := strings.Repeat("z", 4096)
	server := func(args bool) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			openai := strings.HasSuffix(r.URL.Path, "/chat/completions")
			if !openai && args {
				fmt.Fprint(w, `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"lookup"}}`+"\n\n")
			}
			for i := 0; i < MaxAnswerBytes/len(chunk)+10 && r.Context().Err() == nil; i++ {
				switch {
				case openai && args:
					fmt.Fprintf(w, `data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"","arguments":%q}}]}}]}`+"\n\n", chunk)
				case openai:
					fmt.Fprintf(w, `data: {"choices":[{"delta":{"content":%q}}]}`+"\n\n", chunk)
				case args:
					fmt.Fprintf(w, `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":%q}}`+"\n\n", chunk)
				default:
					fmt.Fprintf(w, `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`+"\n\n", chunk)
				}
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
		}))
	}
	for _, args := range []bool{false, true} {
		srv := server(args)
		for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
			got := 0
			req := chatRequest()
			req.OnDelta = func(d Delta) {
				got += len(d.Text)
				if d.ToolCall != nil {
					got += len(d.ToolCall.Arguments)
				}
			}
			_, err := resolve(t, api, srv.URL).Chat(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), "model provider p: the answer passed 1 MiB (the cap on one model answer)") {
				t.Errorf("%s args=%v: %v", api, args, err)
			}
			if got > MaxAnswerBytes {
				t.Errorf("%s args=%v: %d bytes reached OnDelta, over the cap", api, args, got)
			}
		}
		srv.Close()
	}
}
