package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

func providedAction(name, schema string) *Action {
	return &Action{Tool: name, Summary: "provided " + name, Schema: schema,
		Run: func(ctx context.Context, env *Env, p json.RawMessage) (any, error) {
			return TextResult("ran "+name+" "+string(p), nil), nil
		}}
}

// A provider's tools join the registry at run time, are replaced as a
// set, withdrawn by providing nothing, and never displace a declared
// action or another owner's.
func TestProvideReplacesAndWithdraws(t *testing.T) {
	r := NewRegistry()
	r.Register(&Action{Tool: "read", Run: func(context.Context, *Env, json.RawMessage) (any, error) { return nil, nil }})
	if err := r.Provide("a", "bundle-mcp", []*Action{providedAction("srv__one", ""), providedAction("srv__two", "")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.ToolNames(), ","); got != "read,srv__one,srv__two" {
		t.Fatalf("tools = %s", got)
	}
	if err := r.Provide("a", "bundle-mcp", []*Action{providedAction("srv__two", "")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.ToolNames(), ","); got != "read,srv__two" {
		t.Fatalf("after replace: %s", got)
	}
	err := r.Provide("b", "bundle-mcp", []*Action{providedAction("srv__two", ""), providedAction("read", ""), providedAction("b__x", "")})
	if err == nil || !strings.Contains(err.Error(), "read, srv__two") {
		t.Fatalf("clash: %v", err)
	}
	if got := strings.Join(r.Provided("b"), ","); got != "b__x" {
		t.Fatalf("b provides %s", got)
	}
	if err := r.Provide("a", "bundle-mcp", nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.ToolNames(), ","); got != "b__x,read" {
		t.Fatalf("after withdraw: %s", got)
	}
	if pt := r.PluginTools(); len(pt) != 1 || pt["b__x"] != "bundle-mcp" {
		t.Fatalf("plugin tools = %v", pt)
	}
	if err := r.Provide("c", "", []*Action{{Tool: "x"}}); err == nil {
		t.Fatal("an action without Run was provided")
	}
}

// A provided tool goes through the one door: its schema is checked, and
// tools.deny naming its plugin id refuses it (deny wins).
func TestProvidedToolsGoThroughInvoke(t *testing.T) {
	r := NewRegistry()
	schema := `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`
	// A schema our validator cannot compile (array-form items) still runs,
	// validated as any object.
	odd := `{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"}]}}}`
	if err := r.Provide("o", "bundle-mcp", []*Action{providedAction("srv__num", schema), providedAction("srv__odd", odd)}); err != nil {
		t.Fatal(err)
	}
	env := &Env{Config: config.Empty()}
	if _, err := r.Invoke(context.Background(), env, Call{Tool: "srv__num", Args: json.RawMessage(`{"n":"x"}`)}); err == nil ||
		AsError(err).Code != CodeInvalidParams {
		t.Fatalf("bad params: %v", err)
	}
	out, err := r.Invoke(context.Background(), env, Call{Tool: "srv__num", Args: json.RawMessage(`{"n":1}`)})
	if err != nil || !strings.Contains(string(out), "ran srv__num") {
		t.Fatalf("call: %s %v", out, err)
	}
	if _, err := r.Invoke(context.Background(), env, Call{Tool: "srv__odd", Args: json.RawMessage(`{"t":["a"]}`)}); err != nil {
		t.Fatalf("odd schema: %v", err)
	}
	for _, deny := range []string{"bundle-mcp", "srv__*", "group:plugins"} {
		cfg := config.Empty()
		cfg.Doc = map[string]any{"tools": map[string]any{"deny": []any{deny}}}
		_, err := r.Invoke(context.Background(), &Env{Config: cfg}, Call{Tool: "srv__num", Args: json.RawMessage(`{"n":1}`)})
		if err == nil || AsError(err).Code != CodeDenied {
			t.Errorf("deny %s: %v", deny, err)
		}
	}
}
