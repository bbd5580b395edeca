package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	_ "github.com/openclaw-go/openclaw/gateway" // registers the gateway methods' schemas
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/all"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileStrict compiles a schema with a complete JSON Schema 2020-12
// implementation (test-only dependency), which also checks it against the
// metaschema.
func compileStrict(id, schema string) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(schema)))
	if err != nil {
		return err
	}
	url := "https://openclaw.invalid/schemas/" + id + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	_, err = c.Compile(url)
	return err
}

// Every registered schema must compile, with the run-time validator and with
// a complete implementation: a broken one fails here, not at run time.
func TestEverySchemaCompiles(t *testing.T) {
	check := func(id, schema string) {
		t.Helper()
		if _, err := tools.CompileSchema(id, schema); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		if err := compileStrict(id, schema); err != nil {
			t.Errorf("%s: santhosh-tekuri/jsonschema rejects it: %v", id, err)
		}
	}
	n := 0
	for _, a := range tools.All() {
		check(a.ID(), a.Schema)
		n++
	}
	for _, name := range tools.ToolNames() {
		s, err := tools.AgentSchema(name)
		if err != nil {
			t.Fatalf("AgentSchema(%s): %v", name, err)
		}
		check("agent-"+name, string(s))
		n++
	}
	if n < 10 {
		t.Errorf("only %d schemas registered: are the gateway methods and fs tools linked?", n)
	}
}

// The messages users see for the common failures.
func TestValidateMessages(t *testing.T) {
	a := &tools.Action{Tool: "zz_messages", Schema: `{"type":"object","required":["path","mode"],
		"properties":{"path":{"type":"string","minLength":1},"mode":{"enum":["a","b"]},"n":{"type":"integer","minimum":1},
		"tags":{"type":"array","items":{"type":"string"},"maxItems":2}},"additionalProperties":false}`}
	issues, err := a.Validate(json.RawMessage(`{"path":"","mode":"c","n":"5","tags":["x",2,"y"],"extra":1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []tools.SchemaIssue{
		{"/", "additional property 'extra' not allowed"},
		{"/mode", `must be one of "a", "b"`},
		{"/n", "expected integer, got string"},
		{"/path", "must be at least 1 character long"},
		{"/tags", "must have at most 2 items"},
		{"/tags/1", "expected string, got number"},
	}
	if len(issues) != len(want) {
		t.Fatalf("got %+v", issues)
	}
	for i := range want {
		if issues[i] != want[i] {
			t.Errorf("issue %d = %+v, want %+v", i, issues[i], want[i])
		}
	}
	issues, _ = a.Validate(json.RawMessage(`{"n":0.5}`))
	if tools.FormatIssues(issues) != "/: missing property 'path'; /: missing property 'mode'; /n: expected integer, got number" {
		t.Errorf("got %q", tools.FormatIssues(issues))
	}
	issues, _ = a.Validate(json.RawMessage(`{"n":1} x`))
	if len(issues) != 1 || !strings.HasPrefix(issues[0].Message, "params are not valid JSON") {
		t.Errorf("trailing data: %+v", issues)
	}
}

func echoAction(tool, verb string) *tools.Action {
	return &tools.Action{
		Tool: tool, Verb: verb, Summary: "echo",
		Schema: `{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string"}},"required":["n"],"additionalProperties":false}`,
		Run: func(ctx context.Context, env *tools.Env, p json.RawMessage) (any, error) {
			return json.RawMessage(p), nil
		},
	}
}

func TestRegisterPanicsOnDuplicate(t *testing.T) {
	r := tools.NewRegistry()
	r.Register(echoAction("zz_dup_test", ""))
	defer func() {
		if recover() == nil {
			t.Fatal("second Register of the same id did not panic")
		}
	}()
	r.Register(echoAction("zz_dup_test", ""))
}

func TestInvokeListsEverySchemaError(t *testing.T) {
	r := tools.NewRegistry()
	r.Register(echoAction("zz_validate_test", ""))
	env := &tools.Env{Config: config.Empty(), StateDir: t.TempDir()}
	_, err := r.Invoke(context.Background(), env, tools.Call{ID: "zz_validate_test", Args: json.RawMessage(`{"n":0,"s":5,"extra":true}`)})
	var te *tools.Error
	if !errors.As(err, &te) {
		t.Fatalf("want *tools.Error, got %v", err)
	}
	if te.Code != tools.CodeInvalidParams || te.ExitCode() != 2 {
		t.Fatalf("code %s exit %d", te.Code, te.ExitCode())
	}
	for _, want := range []string{"/n", "/s", "extra"} {
		if !strings.Contains(te.Message, want) {
			t.Errorf("message %q lacks %q", te.Message, want)
		}
	}
	issues := te.Details.(map[string]any)["issues"].([]tools.SchemaIssue)
	if len(issues) != 3 {
		t.Errorf("want 3 issues, got %d: %+v", len(issues), issues)
	}
	out, err := r.Invoke(context.Background(), env, tools.Call{ID: "zz_validate_test", Args: json.RawMessage(`{"n":2}`)})
	if err != nil || string(out) != `{"n":2}` {
		t.Fatalf("valid call: %s %v", out, err)
	}
}

func TestInvokeUnknownSuggests(t *testing.T) {
	_, err := tools.Invoke(context.Background(), &tools.Env{Config: config.Empty()}, tools.Call{ID: "raed"})
	var te *tools.Error
	if !errors.As(err, &te) || te.Code != tools.CodeUnknownTool || !strings.Contains(te.Message, `"read"`) {
		t.Fatalf("got %v", err)
	}
}

// A method nobody serves is "unknown method: X" whatever the caller's
// role and scopes (the original CLI's fallbacks key on it).
func TestInvokeUnknownMethodBeforeAccess(t *testing.T) {
	r := tools.NewRegistry()
	for _, sub := range []tools.Subject{{}, {Role: "operator", Scopes: []string{"operator.read"}}, {Role: "node"}} {
		_, err := r.Invoke(context.Background(), &tools.Env{Subject: sub}, tools.Call{Method: "cron.list"})
		var te *tools.Error
		if !errors.As(err, &te) || te.Code != "UNKNOWN_METHOD" || te.Message != "unknown method: cron.list" || te.ExitCode() != 2 {
			t.Errorf("%+v: got %v", sub, err)
		}
	}
}

// Roles, Scope and Open on the Action decide access; no separate table.
func TestInvokeAccessFromActionFields(t *testing.T) {
	r := tools.NewRegistry()
	ok := func(ctx context.Context, env *tools.Env, p json.RawMessage) (any, error) { return "ok", nil }
	r.Register(&tools.Action{Method: "m.admin", Run: ok})
	r.Register(&tools.Action{Method: "m.read", Scope: "operator.read", Run: ok})
	r.Register(&tools.Action{Method: "m.node", Roles: []string{"node"}, Run: ok})
	r.Register(&tools.Action{Method: "m.open", Scope: "operator.read", Open: true, Run: ok})
	r.Register(&tools.Action{Tool: "zz_tool", Run: ok})
	reader := tools.Subject{Role: "operator", Scopes: []string{"operator.read"}}
	writer := tools.Subject{Role: "operator", Scopes: []string{"operator.write"}}
	node := tools.Subject{Role: "node"}
	cases := []struct {
		sub  tools.Subject
		call tools.Call
		code string // "" = allowed
	}{
		{reader, tools.Call{Method: "m.admin"}, "MISSING_SCOPE"},
		{reader, tools.Call{Method: "m.read"}, ""},
		{writer, tools.Call{Method: "m.read"}, ""},
		{reader, tools.Call{Method: "m.node"}, "UNAUTHORIZED_ROLE"},
		{node, tools.Call{Method: "m.node"}, ""},
		{node, tools.Call{Method: "m.read"}, "UNAUTHORIZED_ROLE"},
		{node, tools.Call{Method: "m.open"}, ""},
		{tools.Subject{Role: "operator"}, tools.Call{Method: "m.open"}, ""},
		{reader, tools.Call{Tool: "zz_tool"}, "MISSING_SCOPE"}, // agent tools default to write
		{writer, tools.Call{Tool: "zz_tool"}, ""},
		{tools.Subject{}, tools.Call{Method: "m.admin"}, ""}, // in-process caller (CLI)
	}
	for _, c := range cases {
		_, err := r.Invoke(context.Background(), &tools.Env{Config: config.Empty(), Subject: c.sub}, c.call)
		got := ""
		if err != nil {
			got = tools.AsError(err).Code
		}
		if got != c.code {
			t.Errorf("%+v %+v: got %q (%v), want %q", c.sub, c.call, got, err, c.code)
		}
	}
	_, err := r.Invoke(context.Background(), &tools.Env{Subject: reader}, tools.Call{Method: "m.admin"})
	if te := tools.AsError(err); te.Message != "missing scope: operator.admin" || te.ExitCode() != 3 {
		t.Errorf("missing scope: %q exit %d", te.Message, te.ExitCode())
	}
}

func TestPolicyDenyWinsForEveryCaller(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Empty()
	cfg.Doc = map[string]any{"tools": map[string]any{"allow": []any{"read", "write"}, "deny": []any{"WRITE"}}}
	env := &tools.Env{Config: cfg, StateDir: dir, Workspace: dir}
	_, err := tools.Invoke(context.Background(), env, tools.Call{ID: "write", Args: json.RawMessage(`{"path":"x.txt","content":"hi"}`)})
	var te *tools.Error
	if !errors.As(err, &te) || te.Code != tools.CodeDenied || te.ExitCode() != 3 {
		t.Fatalf("want DENIED, got %v", err)
	}
	if !strings.Contains(te.Message, "tools.deny") {
		t.Errorf("message should name the step: %q", te.Message)
	}
	if _, err := tools.Invoke(context.Background(), env, tools.Call{Tool: "edit", Args: json.RawMessage(`{"path":"x.txt","oldText":"a","newText":"b"}`)}); !errors.As(err, &te) || te.Code != tools.CodeDenied {
		t.Fatalf("edit is outside the allow list: want DENIED, got %v", err)
	}
}

func TestAgentCallMultiAction(t *testing.T) {
	r := tools.NewRegistry()
	r.Register(echoAction("zz_multi_test", "b"))
	r.Register(echoAction("zz_multi_test", "a"))
	env := &tools.Env{Config: config.Empty()}
	for _, c := range []struct{ args, want string }{
		{`{"action":"b","n":3}`, `{"n":3}`},
		{`{"n":3,"action":"b"}`, `{"n":3}`},
		{` { "s" : "x" , "action" : "b" , "n" : 3 } `, ` { "s" : "x" , "n" : 3 } `},
		{`{"action":"a","n":1,"s":"{\"action\":1}"}`, `{"n":1,"s":"{\"action\":1}"}`},
	} {
		out, err := r.Invoke(context.Background(), env, tools.Call{Tool: "zz_multi_test", Args: json.RawMessage(c.args)})
		if err != nil || string(out) != c.want {
			t.Errorf("%s: got %s %v, want %s", c.args, out, err, c.want)
		}
	}
	out, err := r.Invoke(context.Background(), env, tools.Call{Tool: "zz_multi_test", Verb: "a", Args: json.RawMessage(`{"n":5}`)})
	if err != nil || string(out) != `{"n":5}` {
		t.Errorf("explicit verb: %s %v", out, err)
	}
	for _, bad := range []string{`{"action":"c"}`, `{"n":1}`, `[1]`, `{"action":1}`, `{"action":"a","n":1`, `{"action":"a","n":1}}`, ``} {
		if _, err := r.Invoke(context.Background(), env, tools.Call{Tool: "zz_multi_test", Args: json.RawMessage(bad)}); tools.AsError(err).Code != tools.CodeInvalidParams {
			t.Errorf("%s: want INVALID_PARAMS, got %v", bad, err)
		}
	}
	if _, err := r.Invoke(context.Background(), env, tools.Call{Tool: "zz_nope"}); tools.AsError(err).Code != tools.CodeUnknownTool {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestAgentSchemaMultiAction(t *testing.T) {
	s, err := tools.AgentSchema("gateway")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(s, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Type != "object" || !strings.Contains(strings.Join(doc.Properties["action"].Enum, ","), "config.get,config.patch") || doc.Required[0] != "action" {
		t.Fatalf("flat schema wrong: %s", s)
	}
}

// Deferred: Invoke waits for the final result; InvokeDeferred hands back
// the accepted payload and the final step.
func TestInvokeDeferred(t *testing.T) {
	r := tools.NewRegistry()
	release := make(chan struct{})
	r.Register(&tools.Action{Method: "zz.defer", Run: func(ctx context.Context, env *tools.Env, p json.RawMessage) (any, error) {
		return &tools.Deferred{
			Accepted: map[string]any{"runId": "r1", "status": "accepted"},
			Final: func(ctx context.Context) (any, error) {
				<-release
				return map[string]any{"runId": "r1", "status": "ok"}, nil
			},
		}, nil
	}})
	r.Register(&tools.Action{Method: "zz.badDefer", Run: func(ctx context.Context, env *tools.Env, p json.RawMessage) (any, error) {
		return &tools.Deferred{Accepted: map[string]any{"runId": "r1"}, Final: func(context.Context) (any, error) { return nil, nil }}, nil
	}})
	acc, final, err := r.InvokeDeferred(context.Background(), nil, tools.Call{Method: "zz.defer"})
	if err != nil || final == nil || string(acc) != `{"runId":"r1","status":"accepted"}` {
		t.Fatalf("accepted: %s %v", acc, err)
	}
	close(release)
	out, err := final(context.Background())
	if err != nil || string(out) != `{"runId":"r1","status":"ok"}` {
		t.Fatalf("final: %s %v", out, err)
	}
	out, err = r.Invoke(context.Background(), nil, tools.Call{Method: "zz.defer"})
	if err != nil || string(out) != `{"runId":"r1","status":"ok"}` {
		t.Fatalf("Invoke waits for the final: %s %v", out, err)
	}
	if _, _, err := r.InvokeDeferred(context.Background(), nil, tools.Call{Method: "zz.badDefer"}); err == nil {
		t.Fatal("a deferred result without status accepted must fail")
	}
}

// A registry of its own: the test registers freely under -count=2.
func TestOwnRegistryIsolated(t *testing.T) {
	r := tools.NewRegistry()
	r.Register(echoAction("zz_isolated", ""))
	if tools.Lookup("zz_isolated") != nil {
		t.Fatal("a private registry leaked into Default")
	}
	if r.Lookup("zz_isolated") == nil || len(r.ToolNames()) != 1 {
		t.Fatalf("private registry: %v", r.ToolNames())
	}
}

func TestTyped(t *testing.T) {
	r := tools.NewRegistry()
	type P struct {
		N int    `json:"n"`
		S string `json:"s"`
	}
	r.Register(&tools.Action{Tool: "zz_typed", Schema: `{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}}}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p P) (any, error) { return p, nil })})
	out, err := r.Invoke(context.Background(), nil, tools.Call{ID: "zz_typed", Args: json.RawMessage(`{"n":2,"s":"x"}`)})
	if err != nil || string(out) != `{"n":2,"s":"x"}` {
		t.Fatalf("%s %v", out, err)
	}
}

func TestAgentFromSessionKey(t *testing.T) {
	for k, want := range map[string]string{"agent:ops:main": "ops", "agent:x:telegram:1": "x", "main": "", "agent:": "", "agent:abc": ""} {
		if got := tools.AgentFromSessionKey(k); got != want {
			t.Errorf("%q: got %q want %q", k, got, want)
		}
	}
}

func BenchmarkInvokePolicy(b *testing.B) {
	r := tools.NewRegistry()
	r.Register(echoAction("zz_bench_test", ""))
	env := &tools.Env{Config: config.Empty()}
	p := json.RawMessage(`{"n":1}`)
	for i := 0; i < b.N; i++ {
		if _, err := r.Invoke(context.Background(), env, tools.Call{ID: "zz_bench_test", Args: p}); err != nil {
			b.Fatal(err)
		}
	}
}
