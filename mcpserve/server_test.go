package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/mcpserve"
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

// envWith is a tool env over a config file holding body.
func envWith(t *testing.T, body string) *tools.Env {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "openclaw.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return &tools.Env{Config: cfg, StateDir: dir, Workspace: dir, Subject: mcpserve.Subject("")}
}

func selected(t *testing.T, env *tools.Env, o mcpserve.Options) []string {
	t.Helper()
	list, err := mcpserve.Select(env, o)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range list {
		out = append(out, tl.Name)
	}
	return out
}

// The policy layers each only remove; the table names what each keeps.
func TestSelectLayers(t *testing.T) {
	stdio := mcpserve.Options{DefaultDeny: mcpserve.StdioDeny}
	with := func(f func(*mcpserve.Options)) mcpserve.Options { o := stdio; f(&o); return o }
	cases := []struct {
		name   string
		config string
		opts   mcpserve.Options
		has    []string
		hasnt  []string
	}{
		{"default", `{}`, stdio, []string{"cron", "web_fetch", "memory_search", "nodes"}, []string{"gateway", "read", "exec"}},
		{"all", `{}`, with(func(o *mcpserve.Options) { o.Toolsets = []string{"all"} }), []string{"read", "exec", "browser"}, []string{"gateway"}},
		{"+fs -web", `{}`, with(func(o *mcpserve.Options) { o.Toolsets = []string{"+fs", "-web"} }), []string{"read", "cron"}, []string{"web_fetch", "web_search", "exec"}},
		{"--tools", `{}`, with(func(o *mcpserve.Options) { o.Tools = []string{"exec"} }), []string{"exec", "cron"}, []string{"read"}},
		{"--tools cannot lift the door's deny", `{}`, with(func(o *mcpserve.Options) { o.Tools = []string{"gateway"} }), nil, []string{"gateway"}},
		{"tools.deny", `{tools: {deny: ["cron"]}}`, stdio, []string{"web_fetch"}, []string{"cron"}},
		{"byProvider.mcp", `{tools: {byProvider: {mcp: {deny: ["group:web"]}}}}`, stdio, []string{"cron"}, []string{"web_fetch", "web_search"}},
		{"another provider", `{tools: {byProvider: {openai: {deny: ["cron"]}}}}`, stdio, []string{"cron"}, nil},
		{"--deny", `{}`, with(func(o *mcpserve.Options) { o.Deny = []string{"memory_*"} }), []string{"cron"}, []string{"memory_get", "memory_search"}},
		{"--profile coding", `{}`, with(func(o *mcpserve.Options) { o.Toolsets = []string{"all"}; o.Profile = "coding" }), []string{"read", "exec", "memory_get"}, []string{"cron", "browser", "web_fetch"}},
		{"HTTP deny list", `{}`, mcpserve.Options{DefaultDeny: mcpserve.HTTPDeny}, []string{"web_fetch"}, []string{"cron", "gateway"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := selected(t, envWith(t, c.config), c.opts)
			for _, h := range c.has {
				if !slices.Contains(got, h) {
					t.Errorf("lacks %s: %v", h, got)
				}
			}
			for _, h := range c.hasnt {
				if slices.Contains(got, h) {
					t.Errorf("has %s: %v", h, got)
				}
			}
		})
	}
}

func TestSelectUsageErrors(t *testing.T) {
	env := envWith(t, `{}`)
	for _, o := range []mcpserve.Options{
		{Toolsets: []string{"webb"}}, {Tools: []string{"exce"}}, {Profile: "huge"},
	} {
		_, err := mcpserve.Select(env, o)
		if te := tools.AsError(err); err == nil || te.Code != tools.CodeUsage {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}

// Unnarrowed tools carry the bytes `openclaw tools schema` prints.
func TestSchemasAreTheAgentSchemas(t *testing.T) {
	list, err := mcpserve.Select(envWith(t, `{}`), mcpserve.Options{Toolsets: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 10 {
		t.Fatalf("only %d tools", len(list))
	}
	for _, tl := range list {
		want, err := tools.AgentSchema(tl.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tl.InputSchema, want) {
			t.Errorf("%s: schema differs from tools.AgentSchema", tl.Name)
		}
		if gjson.GetBytes(tl.InputSchema, "type").String() != "object" {
			t.Errorf("%s: root not an object", tl.Name)
		}
	}
}

func TestReadOnlyNarrows(t *testing.T) {
	list, err := mcpserve.Select(envWith(t, `{}`), mcpserve.Options{Toolsets: []string{"all"}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcpserve.Tool{}
	for _, tl := range list {
		byName[tl.Name] = tl
		if !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s listed under --read-only without readOnlyHint", tl.Name)
		}
	}
	for _, gone := range []string{"exec", "write", "edit", "apply_patch", "cron"} {
		if _, ok := byName[gone]; ok {
			t.Errorf("%s served read-only", gone)
		}
	}
	if _, ok := byName["read"]; !ok {
		t.Errorf("read missing: %v", list)
	}
	p := byName["process"]
	enum := gjson.GetBytes(p.InputSchema, "properties.action.enum").String()
	if enum != `["list","log","poll"]` {
		t.Errorf("process enum %s", enum)
	}
	if gjson.GetBytes(p.InputSchema, "properties.data").Exists() {
		t.Errorf("process keeps write's data property")
	}
	n := gjson.GetBytes(byName["nodes"].InputSchema, "properties.action.enum").Array()
	for _, v := range n {
		if v.String() == "invoke" || v.String() == "remove" {
			t.Errorf("nodes read-only enum has %s", v)
		}
	}
}

func TestAnnotations(t *testing.T) {
	list, err := mcpserve.Select(envWith(t, `{}`), mcpserve.Options{Toolsets: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	ann := map[string]*mcp.ToolAnnotations{}
	for _, tl := range list {
		ann[tl.Name] = tl.Annotations
	}
	if a := ann["read"]; !a.ReadOnlyHint || !a.IdempotentHint || *a.OpenWorldHint {
		t.Errorf("read %+v", a)
	}
	if a := ann["exec"]; a.ReadOnlyHint || !*a.DestructiveHint || !*a.OpenWorldHint {
		t.Errorf("exec %+v", a)
	}
	if a := ann["web_fetch"]; !a.ReadOnlyHint || !*a.OpenWorldHint {
		t.Errorf("web_fetch %+v", a)
	}
	if a := ann["process"]; a.ReadOnlyHint || !*a.DestructiveHint || *a.OpenWorldHint {
		t.Errorf("process %+v", a)
	}
}

// mutableEnv lets a test change the config under a running server
// without a Refresh: the call-time policy check must catch it.
type mutableEnv struct {
	mu  sync.Mutex
	env *tools.Env
}

func (m *mutableEnv) get() (*tools.Env, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.env, nil
}

func (m *mutableEnv) set(e *tools.Env) {
	m.mu.Lock()
	m.env = e
	m.mu.Unlock()
}

func inMemory(t *testing.T, cfg mcpserve.Config) (*mcpserve.Server, *mcp.ClientSession) {
	t.Helper()
	s, err := mcpserve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go s.MCP().Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return s, cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestDeniedAtCallTime(t *testing.T) {
	me := &mutableEnv{env: envWith(t, `{}`)}
	_, cs := inMemory(t, mcpserve.Config{Options: mcpserve.Options{Toolsets: []string{"runtime"}}, Env: me.get})
	res := call(t, cs, "exec", map[string]any{"command": "echo ok"})
	if res.IsError || !strings.Contains(text(res), "ok") {
		t.Fatalf("exec before: %+v", res)
	}
	me.set(envWith(t, `{tools: {deny: ["exec"]}}`))
	res = call(t, cs, "exec", map[string]any{"command": "echo ok"})
	line, env, _ := strings.Cut(text(res), "\n")
	if !res.IsError || line != "Tool not available: exec (denied by tools.deny)" {
		t.Errorf("denied at call time: %v %q", res.IsError, text(res))
	}
	if gjson.Get(env, "error.code").String() != "DENIED" || gjson.Get(env, "ok").Bool() {
		t.Errorf("error JSON %s", env)
	}
}

func TestCallErrorsAndPanics(t *testing.T) {
	panicky := func(ctx context.Context, env *tools.Env, tool string, a *tools.Action, args json.RawMessage) (json.RawMessage, error) {
		if tool == "process" {
			panic("boom")
		}
		return mcpserve.Invoke(ctx, env, tool, a, args)
	}
	me := &mutableEnv{env: envWith(t, `{}`)}
	_, cs := inMemory(t, mcpserve.Config{Options: mcpserve.Options{Toolsets: []string{"runtime", "fs"}, ReadOnly: true}, Env: me.get, Run: panicky})
	res := call(t, cs, "process", map[string]any{"action": "list"})
	if !res.IsError || !strings.Contains(text(res), "boom") {
		t.Errorf("panic: %+v", text(res))
	}
	// The session survives; an invalid argument is an isError result with
	// a JSON pointer.
	res = call(t, cs, "read", map[string]any{"path": 3})
	if !res.IsError || !strings.Contains(text(res), "/path") || !strings.Contains(text(res), `"INVALID_PARAMS"`) {
		t.Errorf("invalid params: %q", text(res))
	}
	// --read-only refuses an action it does not serve.
	res = call(t, cs, "process", map[string]any{"action": "kill", "sessionId": "x"})
	if !res.IsError || !strings.Contains(text(res), "not served read-only") {
		t.Errorf("read-only kill: %q", text(res))
	}
	// A tool never listed is a JSON-RPC error (the SDK's -32602).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unlisted exec: %v", err)
	}
}

// A refusal that is not the tool policy's keeps its own reason: web_fetch
// of a loopback URL is refused by the network guard, and the MCP result
// says so (and how to allow it), not "denied by tool policy".
func TestRefusalGivesTheRealReason(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "private") }))
	t.Cleanup(srv.Close)
	me := &mutableEnv{env: envWith(t, `{}`)}
	_, cs := inMemory(t, mcpserve.Config{Options: mcpserve.Options{Toolsets: []string{"web"}}, Env: me.get})
	res := call(t, cs, "web_fetch", map[string]any{"url": srv.URL + "/x"})
	line, env, _ := strings.Cut(text(res), "\n")
	if !res.IsError || strings.Contains(line, "Tool not available") || strings.Contains(line, "tool policy") ||
		!strings.Contains(line, "ssrfPolicy") || line != gjson.Get(env, "error.message").String() {
		t.Errorf("network guard refusal: %q", text(res))
	}
	if gjson.Get(env, "error.code").String() != "DENIED" {
		t.Errorf("error JSON %s", env)
	}
	// The tool policy's own refusal still reads as the original's.
	me.set(envWith(t, `{tools: {deny: ["web_fetch"]}}`))
	res = call(t, cs, "web_fetch", map[string]any{"url": srv.URL + "/x"})
	if line, _, _ := strings.Cut(text(res), "\n"); line != "Tool not available: web_fetch (denied by tools.deny)" {
		t.Errorf("policy refusal: %q", text(res))
	}
}

// gateway.tools.allow names tools, which HTTPOptions serves; an entry that
// is no tool here is reported once, naming the key to use instead.
func TestHTTPOptionsWarnsOnce(t *testing.T) {
	var got []string
	warn := func(m string) { got = append(got, m) }
	for range 2 {
		o := mcpserve.HTTPOptions(nil, []string{"read", "reed"}, nil, warn)
		if !slices.Equal(o.Tools, []string{"read"}) {
			t.Fatalf("Tools %v", o.Tools)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `"reed"`) || !strings.Contains(got[0], mcpserve.ToolsetsKey) {
		t.Fatalf("warnings %q", got)
	}
}

// gateway.mcp.toolsets is validated by the config schema: every toolset
// name (with + or - and group:) passes, an unknown one is an issue at its
// path.
func TestToolsetsKeyInSchema(t *testing.T) {
	for _, n := range mcpserve.ToolsetNames() {
		for _, v := range []string{n, "+" + n, "-" + n, "group:" + n} {
			if env := envWith(t, `{gateway: {mcp: {toolsets: ["`+v+`"]}}}`); !env.Config.Valid() {
				t.Errorf("toolset %q refused: %v", v, env.Config.Issues())
			}
		}
	}
	env := envWith(t, `{gateway: {mcp: {toolsets: ["fss"]}}}`)
	if iss := env.Config.Issues(); len(iss) != 1 || config.FormatWarning(iss[0]) != "gateway.mcp.toolsets[0]: "+iss[0].Message {
		t.Fatalf("unknown toolset: %v", iss)
	}
}
