package mcpservers_test

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
	"github.com/openclaw-go/openclaw/mcpclient/mcptest"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

const token = "mcp-servers-test-token"

// modelServer speaks OpenAI chat completions: a user turn gets a call of
// the tool named in the user's message ("call <tool> <json args>"); a tool
// result gets the answer "Tool said: <result>". It records each request.
type modelServer struct {
	mu       sync.Mutex
	requests []gjson.Result
}

func (m *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	req := gjson.ParseBytes(b)
	m.mu.Lock()
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	msgs := req.Get("messages").Array()
	last := msgs[len(msgs)-1]
	w.Header().Set("Content-Type", "application/json")
	if last.Get("role").String() == "tool" {
		fmt.Fprintf(w, `{"model":"m1","choices":[{"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`,
			"Tool said: "+last.Get("content").String())
		return
	}
	var tool, args string
	fmt.Sscanf(last.Get("content").String(), "call %s %s", &tool, &args)
	call, _ := json.Marshal(map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": tool, "arguments": args}})
	fmt.Fprintf(w, `{"model":"m1","choices":[{"message":{"role":"assistant","content":"","tool_calls":[%s]},"finish_reason":"tool_calls"}]}`, call)
}

func (m *modelServer) calls() []gjson.Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]gjson.Result(nil), m.requests...)
}

// setup starts a gateway whose config saves the reference MCP server
// (npm server-everything, stdio) as "ev", with agents main (default
// policy), nomcp (tools.deny ["bundle-mcp"]) and minimal (the minimal
// profile), and a scripted model.
func setup(t *testing.T) (*client.Conn, *modelServer) {
	t.Helper()
	bin := mcptest.Everything(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	model := &modelServer{}
	srv := httptest.NewServer(model)
	t.Cleanup(srv.Close)
	cfg := map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": srv.URL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1", "name": "m1"}}}}},
		"agents": map[string]any{
			"defaults": map[string]any{"model": "loc/m1", "workspace": ws},
			"list": []any{
				map[string]any{"id": "main", "default": true},
				map[string]any{"id": "nomcp", "tools": map[string]any{"deny": []any{"bundle-mcp"}}},
				map[string]any{"id": "minimal", "tools": map[string]any{"profile": "minimal"}},
				map[string]any{"id": "coder", "tools": map[string]any{"profile": "coding", "deny": []any{"ev__get-env"}}},
				map[string]any{"id": "looper", "tools": map[string]any{"loopDetection": map[string]any{"enabled": true, "warningThreshold": 2, "criticalThreshold": 3}}},
			},
		},
		"mcp": map[string]any{"servers": map[string]any{
			"ev":       map[string]any{"command": bin, "args": []any{"stdio"}},
			"off":      map[string]any{"command": bin, "args": []any{"stdio"}, "enabled": false},
			"broken":   map[string]any{"command": "openclaw-no-such-mcp-server"},
			"filtered": map[string]any{"command": bin, "args": []any{"stdio"}, "toolFilter": map[string]any{"include": []any{"echo"}}},
		}},
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	g := gatewaytest.Start(t, dir, token, 0)
	c, err := client.Dial(context.Background(), client.Options{URL: g.URL, Token: token,
		Scopes: []string{protocol.ScopeRead, protocol.ScopeWrite, protocol.ScopeAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// The gateway connects in the background: wait until the tools answer.
	deadline := time.Now().Add(60 * time.Second)
	for _, name := range []string{"ev__echo", "filtered__echo"} {
		for {
			out, err := c.Call(context.Background(), "tools.invoke", map[string]any{"name": name, "args": map[string]any{"message": "up?"}})
			if err == nil && gjson.GetBytes(out, "ok").Bool() && strings.Contains(string(out), "Echo: up?") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never answered: %s %v", name, out, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return c, model
}

func runAgent(t *testing.T, c *client.Conn, agent, message string) gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": message, "agentId": agent, "idempotencyKey": agent + message},
		client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(out)
}

// A saved server's tools reach an agent turn through the one door: the
// model is offered ev__get-sum with the server's schema, its call runs on
// the real server and the result reaches the model. Disabled, broken and
// filtered servers behave as configured.
func TestAgentTurnCallsASavedServerTool(t *testing.T) {
	c, model := setup(t)
	r := runAgent(t, c, "main", `call ev__get-sum {"a":2,"b":40}`)
	text := r.Get("result.payloads.0.text").String()
	if r.Get("toolCalls.0.name").String() != "ev__get-sum" || r.Get("toolCalls.0.isError").Bool() || !strings.Contains(text, "42") {
		t.Fatalf("final: %s", r.Raw)
	}
	first := model.calls()[0]
	sum := first.Get(`tools.#(function.name=="ev__get-sum").function`)
	if !sum.Exists() || !sum.Get("parameters.properties.a").Exists() || sum.Get("parameters.$schema").Exists() ||
		!strings.Contains(sum.Get("description").String(), "sum") {
		t.Fatalf("ev__get-sum offered as %s", sum.Raw)
	}
	names := first.Get("tools.#.function.name").String()
	for _, absent := range []string{"off__", "broken__", "filtered__get-sum"} {
		if strings.Contains(names, absent) {
			t.Errorf("offered %s: %s", absent, names)
		}
	}
	if !strings.Contains(names, "filtered__echo") || !strings.Contains(names, `"read"`) {
		t.Errorf("tools offered: %s", names)
	}
	// The tools are in the catalog the gateway serves too.
	cat, err := c.Call(context.Background(), "tools.effective", map[string]any{})
	if err != nil || !strings.Contains(string(cat), "ev__get-sum") {
		t.Fatalf("tools.effective: %s %v", cat, err)
	}
}

// The tool policy holds for saved-server tools: tools.deny ["bundle-mcp"]
// and the minimal profile hide them from the model and refuse a call; the
// coding profile offers them, less a denied one.
func TestPolicyAppliesToSavedServerTools(t *testing.T) {
	c, model := setup(t)
	for _, agent := range []string{"nomcp", "minimal"} {
		before := len(model.calls())
		r := runAgent(t, c, agent, `call ev__echo {"message":"secret"}`)
		text := r.Get("result.payloads.0.text").String()
		if !r.Get("toolCalls.0.isError").Bool() || !strings.Contains(text, "denied") || strings.Contains(text, "Echo: secret") {
			t.Errorf("%s: final %s", agent, r.Raw)
		}
		if offered := model.calls()[before].Get("tools.#.function.name").String(); strings.Contains(offered, "ev__") {
			t.Errorf("%s was offered %s", agent, offered)
		}
	}
	before := len(model.calls())
	r := runAgent(t, c, "coder", `call ev__get-env {}`)
	if !r.Get("toolCalls.0.isError").Bool() {
		t.Errorf("coder called a denied tool: %s", r.Raw)
	}
	offered := model.calls()[before].Get("tools.#.function.name").String()
	if !strings.Contains(offered, "ev__echo") || strings.Contains(offered, "ev__get-env") {
		t.Errorf("coder offered %s", offered)
	}
}

// A config change reaches the running gateway: a removed server's tools
// are withdrawn, a new server's tools appear, an unchanged server keeps
// its connection.
func TestConfigChangeResyncsServers(t *testing.T) {
	c, _ := setup(t)
	bin := mcptest.Everything(t)
	patch, _ := json.Marshal(map[string]any{"mcp": map[string]any{"servers": map[string]any{
		"ev":  nil,
		"ev3": map[string]any{"command": bin, "args": []any{"stdio"}, "toolFilter": map[string]any{"include": []any{"get-sum"}}},
	}}})
	got, err := c.Call(context.Background(), "config.get", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(context.Background(), "config.patch", map[string]any{"raw": string(patch), "baseHash": gjson.GetBytes(got, "hash").String()}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		old, errOld := c.Call(context.Background(), "tools.invoke", map[string]any{"name": "ev__echo", "args": map[string]any{"message": "x"}})
		out, errNew := c.Call(context.Background(), "tools.invoke", map[string]any{"name": "ev3__get-sum", "args": map[string]any{"a": 1, "b": 2}})
		gone := errOld != nil && strings.Contains(errOld.Error(), "ev__echo") || errOld == nil && !gjson.GetBytes(old, "ok").Bool()
		if gone && errNew == nil && gjson.GetBytes(out, "ok").Bool() && strings.Contains(string(out), "is 3") {
			break
		}
		if time.Now().After(deadline) {
			now, _ := c.Call(context.Background(), "config.get", map[string]any{})
			t.Fatalf("not resynced: old %s %v; new %s %v\nconfig: %s", old, errOld, out, errNew, gjson.GetBytes(now, "config.mcp").Raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The filter holds: ev3 offers get-sum only.
	if out, err := c.Call(context.Background(), "tools.invoke", map[string]any{"name": "ev3__echo", "args": map[string]any{"message": "x"}}); err == nil && gjson.GetBytes(out, "ok").Bool() {
		t.Fatal("ev3__echo passed the toolFilter")
	}
	out, err := c.Call(context.Background(), "tools.invoke", map[string]any{"name": "filtered__echo", "args": map[string]any{"message": "still"}})
	if err != nil || !gjson.GetBytes(out, "ok").Bool() || !strings.Contains(string(out), "Echo: still") {
		t.Fatalf("an unchanged server stopped answering: %s %v", out, err)
	}
}

// Loop detection applies to saved-server tools as to every tool: the same
// call with the same result, repeated by an agent's turn, is blocked.
func TestLoopDetectionCoversSavedServerTools(t *testing.T) {
	c, _ := setup(t)
	var blocked gjson.Result
	for i := 0; i < 8 && !blocked.Exists(); i++ {
		out, err := c.Call(context.Background(), "tools.invoke", map[string]any{"name": "ev__echo", "args": map[string]any{"message": "again"},
			"agentId": "looper", "sessionKey": "agent:looper:main"})
		if err != nil {
			t.Fatal(err)
		}
		if r := gjson.ParseBytes(out); !r.Get("ok").Bool() {
			blocked = r
		}
	}
	if blocked.Get("error.code").String() != "DENIED" || blocked.Get("error.details.deniedReason").String() != "tool-loop" {
		t.Fatalf("never blocked, or blocked otherwise: %s", blocked.Raw)
	}
}
