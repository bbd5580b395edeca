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
	_ "github.com/openclaw-go/openclaw/tools/fs"
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
	tools.Register(echoAction("zz_dup_test", ""))
	defer func() {
		if recover() == nil {
			t.Fatal("second Register of the same id did not panic")
		}
	}()
	tools.Register(echoAction("zz_dup_test", ""))
}

func TestInvokeListsEverySchemaError(t *testing.T) {
	tools.Register(echoAction("zz_validate_test", ""))
	env := &tools.Env{Config: config.Empty(), StateDir: t.TempDir()}
	_, err := tools.Invoke(context.Background(), env, "zz_validate_test", json.RawMessage(`{"n":0,"s":5,"extra":true}`))
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
	out, err := tools.Invoke(context.Background(), env, "zz_validate_test", json.RawMessage(`{"n":2}`))
	if err != nil || string(out) != `{"n":2}` {
		t.Fatalf("valid call: %s %v", out, err)
	}
}

func TestInvokeUnknownSuggests(t *testing.T) {
	_, err := tools.Invoke(context.Background(), &tools.Env{Config: config.Empty()}, "raed", nil)
	var te *tools.Error
	if !errors.As(err, &te) || te.Code != tools.CodeUnknownTool || !strings.Contains(te.Message, `"read"`) {
		t.Fatalf("got %v", err)
	}
}

func TestPolicyDenyWinsForEveryCaller(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Empty()
	cfg.Doc = map[string]any{"tools": map[string]any{"allow": []any{"read", "write"}, "deny": []any{"WRITE"}}}
	env := &tools.Env{Config: cfg, StateDir: dir, Workspace: dir}
	_, err := tools.Invoke(context.Background(), env, "write", json.RawMessage(`{"path":"x.txt","content":"hi"}`))
	var te *tools.Error
	if !errors.As(err, &te) || te.Code != tools.CodeDenied || te.ExitCode() != 3 {
		t.Fatalf("want DENIED, got %v", err)
	}
	if !strings.Contains(te.Message, "tools.deny") {
		t.Errorf("message should name the step: %q", te.Message)
	}
	if _, err := tools.Invoke(context.Background(), env, "edit", json.RawMessage(`{"path":"x.txt","oldText":"a","newText":"b"}`)); !errors.As(err, &te) || te.Code != tools.CodeDenied {
		t.Fatalf("edit is outside the allow list: want DENIED, got %v", err)
	}
}

func TestAgentSchemaMultiAction(t *testing.T) {
	tools.Register(echoAction("zz_multi_test", "b"))
	tools.Register(echoAction("zz_multi_test", "a"))
	s, err := tools.AgentSchema("zz_multi_test")
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
	if doc.Type != "object" || strings.Join(doc.Properties["action"].Enum, ",") != "a,b" || doc.Required[0] != "action" {
		t.Fatalf("flat schema wrong: %s", s)
	}
	a, p, err := tools.ResolveAgentCall("zz_multi_test", json.RawMessage(`{"action":"b","n":3}`))
	if err != nil || a.Verb != "b" || string(p) != `{"n":3}` {
		t.Fatalf("resolve: %v %s %v", a, p, err)
	}
	if _, _, err := tools.ResolveAgentCall("zz_multi_test", json.RawMessage(`{"action":"c"}`)); err == nil {
		t.Fatal("unknown action accepted")
	}
}

func BenchmarkInvokePolicy(b *testing.B) {
	if tools.Lookup("zz_bench_test") == nil { // the benchmark function runs several times
		tools.Register(echoAction("zz_bench_test", ""))
	}
	env := &tools.Env{Config: config.Empty()}
	p := json.RawMessage(`{"n":1}`)
	for i := 0; i < b.N; i++ {
		if _, err := tools.Invoke(context.Background(), env, "zz_bench_test", p); err != nil {
			b.Fatal(err)
		}
	}
}
