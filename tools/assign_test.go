package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/openclaw-go/openclaw/schemacheck"
)

type assignInner struct {
	N  int     `json:"n"`
	F  float64 `json:"f"`
	On *bool   `json:"on"`
}

type AssignEmbedded struct {
	Shared string `json:"shared"`
	Deep   uint8  `json:"deep"`
}

type assignAll struct {
	AssignEmbedded
	Name    string            `json:"name"`
	Count   int64             `json:"count,omitempty"`
	Ratio   float32           `json:"ratio"`
	Tags    []string          `json:"tags"`
	Inner   assignInner       `json:"inner"`
	PInner  *assignInner      `json:"pInner"`
	List    []assignInner     `json:"list"`
	ByKey   map[string]int    `json:"byKey"`
	Raw     []byte            `json:"raw"`
	Skip    string            `json:"-"`
	NoTag   string            // no tag: matched by field name, case-insensitively
	Strs    map[string]string `json:"strs"`
	Nullish *string           `json:"nullish"`
	hidden  string
}

// The plan fills a struct from the decoded value exactly as encoding/json
// fills it from the bytes (interface-typed fields aside: see Typed).
func TestAssignMatchesEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`,
		`{"name":"x","count":42,"ratio":0.5,"tags":["a","b"],"inner":{"n":3,"f":1.25,"on":true},
		  "pInner":{"n":-1},"list":[{"n":1},{"f":2}],"byKey":{"a":1,"b":2},"raw":"aGk=","Skip":"no",
		  "notag":"case","strs":{"k":"v"},"nullish":null,"shared":"promoted","deep":7,"hidden":"h","extra":[1,{}]}`,
		`{"NAME":"upper","Inner":{"N":9}}`,
		`{"tags":null,"inner":null,"pInner":null,"byKey":null}`,
		`{"count":1000,"ratio":-0}`,
	}
	pl, ok := compilePlan(reflect.TypeFor[assignAll]())
	if !ok {
		t.Fatal("assignAll: no plan")
	}
	for _, doc := range docs {
		var want assignAll
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		v, err := schemacheck.DecodeJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var got assignAll
		if err := pl(reflect.ValueOf(&got).Elem(), v); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", doc, got, want)
		}
	}
	// Mismatches are errors, as encoding/json's.
	for _, doc := range []string{`{"count":1.5}`, `{"name":3}`, `{"tags":"a"}`, `{"inner":{"n":"x"}}`, `{"deep":300}`, `{"count":1e3}`} {
		v, _ := schemacheck.DecodeJSON([]byte(doc))
		var got assignAll
		if json.Unmarshal([]byte(doc), new(assignAll)) == nil {
			t.Fatalf("%s: encoding/json accepts it", doc)
		}
		if err := pl(reflect.ValueOf(&got).Elem(), v); err == nil {
			t.Errorf("%s: no error", doc)
		}
	}
}

type custom struct{ v string }

func (c *custom) UnmarshalJSON(b []byte) error { c.v = string(b); return nil }

// Types with their own unmarshalers get no plan: Typed decodes the bytes.
func TestAssignLeavesCustomUnmarshalers(t *testing.T) {
	if _, ok := compilePlan(reflect.TypeFor[struct {
		C custom `json:"c"`
	}]()); ok {
		t.Error("a plan for a json.Unmarshaler field")
	}
	r := NewRegistry()
	var got string
	r.Register(&Action{Tool: "t", Run: Typed(func(ctx context.Context, env *Env, p struct {
		C custom `json:"c"`
	}) (any, error) {
		got = p.C.v
		return "ok", nil
	})})
	decodes := 0
	defer r.OnDecode(func(string) { decodes++ })()
	if _, err := r.Invoke(context.Background(), nil, Call{ID: "t", Args: json.RawMessage(`{"c":[1, 2]}`)}); err != nil {
		t.Fatal(err)
	}
	if got != "[1, 2]" || decodes != 2 {
		t.Errorf("custom field %q after %d parses, want the raw member after 2 (door, then Typed)", got, decodes)
	}
}

// Inside Invoke a typed handler is filled from the value the door decoded:
// one parse for bytes, none for a decoded value (the CLI's), and the bytes
// still reach handlers that take bytes.
func TestTypedUsesTheDoorsValue(t *testing.T) {
	r := NewRegistry()
	type p struct {
		Path  string `json:"path"`
		Limit int    `json:"limit"`
	}
	var got p
	r.Register(&Action{Tool: "typed", Schema: `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}}}`,
		Run: Typed(func(ctx context.Context, env *Env, in p) (any, error) { got = in; return "ok", nil })})
	var raw string
	r.Register(&Action{Tool: "raw", Run: func(ctx context.Context, env *Env, params json.RawMessage) (any, error) {
		raw = string(params)
		return "ok", nil
	}})
	decodes := 0
	defer r.OnDecode(func(string) { decodes++ })()
	ctx := context.Background()
	if _, err := r.Invoke(ctx, nil, Call{ID: "typed", Args: json.RawMessage(`{"path":"a","limit":3}`)}); err != nil {
		t.Fatal(err)
	}
	if got != (p{"a", 3}) || decodes != 1 {
		t.Errorf("bytes: got %+v after %d parses, want once", got, decodes)
	}
	decodes = 0
	if _, err := r.Invoke(ctx, nil, Call{ID: "typed", Value: map[string]any{"path": "b", "limit": json.Number("4")}}); err != nil {
		t.Fatal(err)
	}
	if got != (p{"b", 4}) || decodes != 0 {
		t.Errorf("value: got %+v after %d parses, want none", got, decodes)
	}
	if _, err := r.Invoke(ctx, nil, Call{ID: "typed", Value: map[string]any{"limit": "x"}}); err == nil {
		t.Error("a decoded value is not validated")
	}
	if _, err := r.Invoke(ctx, nil, Call{ID: "raw", Value: map[string]any{"k": true}}); err != nil || raw != `{"k":true}` {
		t.Errorf("a bytes handler got %q (%v)", raw, err)
	}
}
