package schemacheck_test

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/schemacheck"
)

func errorsOf(t *testing.T, schema, instance string) []string {
	t.Helper()
	s, err := schemacheck.Compile([]byte(schema))
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	v, err := schemacheck.DecodeJSON([]byte(instance))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range s.Validate(v) {
		out = append(out, e.Error())
	}
	return out
}

func TestMessages(t *testing.T) {
	for _, tt := range []struct{ schema, instance, want string }{
		{`{"type":"integer","minimum":1}`, `0`, "/: must be >= 1"},
		{`{"type":"integer"}`, `"1"`, "/: expected integer, got string"},
		{`{"type":["string","null","integer"]}`, `true`, "/: expected null, integer or string, got boolean"},
		{`{"required":["path"]}`, `{}`, "/: missing property 'path'"},
		{`{"additionalProperties":false}`, `{"extra":1}`, "/: additional property 'extra' not allowed"},
		{`{"enum":["a","b"]}`, `"c"`, `/: must be one of "a", "b"`},
		{`{"enum":["a"]}`, `"c"`, `/: must be "a"`},
		{`{"const":{"k":1}}`, `{}`, `/: must be {"k":1}`},
		{`{"maximum":65535}`, `70000`, "/: must be <= 65535"},
		{`{"exclusiveMinimum":0.5}`, `0.5`, "/: must be > 0.5"},
		{`{"exclusiveMaximum":2}`, `2.0`, "/: must be < 2"},
		{`{"multipleOf":0.25}`, `0.3`, "/: must be a multiple of 0.25"},
		{`{"minLength":3}`, `"éé"`, "/: must be at least 3 characters long"},
		{`{"maxLength":1}`, `"日本"`, "/: must be at most 1 character long"},
		{`{"pattern":"^a+$"}`, `"b"`, `/: must match pattern "^a+$"`},
		{`{"minItems":2}`, `[1]`, "/: must have at least 2 items"},
		{`{"maxItems":1}`, `[1,2]`, "/: must have at most 1 item"},
		{`{"uniqueItems":true}`, `[1,{"a":[2]},1.0]`, "/: items must be unique (items 0 and 2 are equal)"},
		{`{"minProperties":1}`, `{}`, "/: must have at least 1 property"},
		{`{"not":{"type":"string"}}`, `"s"`, `/: must not match the schema in "not"`},
		{`{"anyOf":[{"type":"string"},{"type":"object"}]}`, `5`, "/: must match at least one schema"},
		{`{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `5`, "/: must match exactly one schema, but matches 0 and 1"},
		{`{"oneOf":[{"type":"string"},{"type":"boolean"}]}`, `5`, "/: must match exactly one schema"},
		{`{"properties":{"a~/b":{"type":"string"}}}`, `{"a~/b":1}`, "/a~0~1b: expected string, got number"},
		{`{"items":{"properties":{"x":false}}}`, `[{},{"x":1}]`, "/1/x: no value is allowed here"},
	} {
		got := errorsOf(t, tt.schema, tt.instance)
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s with %s:\n got %q\nwant %q", tt.schema, tt.instance, got, tt.want)
		}
	}
}

func TestEveryErrorReported(t *testing.T) {
	got := errorsOf(t, `{"type":"object","required":["a","b"],"properties":{
		"n":{"type":"integer","minimum":1,"maximum":0},"l":{"type":"array","items":{"type":"string"}}},
		"additionalProperties":false}`, `{"n":0.5,"l":[1,"x",true],"z":1,"y":2}`)
	want := []string{
		"/: missing property 'a'", "/: missing property 'b'",
		"/l/0: expected string, got number", "/l/2: expected string, got boolean",
		"/n: expected integer, got number",
		"/: additional property 'y' not allowed", "/: additional property 'z' not allowed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A union whose only branch for the value's type fails reports that
// branch's errors; otherwise one error at the union.
func TestUnionDetail(t *testing.T) {
	schema := `{"$defs":{"ref":{"type":"object","required":["source","id"],"properties":{"source":{"enum":["env","file"]}}}},
		"anyOf":[{"type":"string"},{"$ref":"#/$defs/ref"}]}`
	if got := errorsOf(t, schema, `{"source":"x"}`); strings.Join(got, ";") != `/: missing property 'id';/source: must be one of "env", "file"` {
		t.Errorf("got %q", got)
	}
	if got := errorsOf(t, schema, `[]`); strings.Join(got, ";") != "/: must match at least one schema" {
		t.Errorf("got %q", got)
	}
}

func TestNumbers(t *testing.T) {
	s := schemacheck.MustCompile(`{"type":"integer","minimum":0.1,"maximum":9007199254740993}`)
	for _, tt := range []struct {
		v  any
		ok bool
	}{
		{json.Number("1"), true}, {json.Number("1.0"), true}, {json.Number("1e2"), true}, {json.Number("15e-1"), false},
		{json.Number("9007199254740993"), true}, {json.Number("9007199254740994"), false},
		{json.Number("0"), false}, {json.Number("-0"), false}, {1.0, true}, {1.5, false}, {0.0, false},
		{json.Number("1e1000000000"), false}, {json.Number("1e-1000000000"), false},
		{math.Inf(1), false}, {math.NaN(), false}, {int64(5), true}, {uint8(5), true}, {"5", false},
	} {
		if got := s.Valid(tt.v); got != tt.ok {
			t.Errorf("%T %v: valid = %v", tt.v, tt.v, got)
		}
	}
	// float64 instances stand for their shortest decimal form.
	m := schemacheck.MustCompile(`{"maximum":0.1,"minimum":0.1}`)
	if !m.Valid(0.1) || !m.Valid(json.Number("0.10")) || m.Valid(0.1+1e-17) == m.Valid(0.10000000000000002) && !m.Valid(0.1) {
		t.Error("0.1 is not within [0.1, 0.1]")
	}
	if m.Valid(0.30000000000000004 - 0.2) {
		t.Error("0.10000000000000003 accepted")
	}
	if got := s.Validate(math.Inf(1)); len(got) != 1 || got[0].Kind != schemacheck.KindInvalidValue {
		t.Errorf("Inf: %v", got)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, schema := range []string{
		`{"type":"foo"}`, `{"type":["string","string"]}`, `{"type":5}`, `{"minLength":-1}`, `{"minLength":1.5}`,
		`{"maxItems":"2"}`, `{"minimum":"1"}`, `{"pattern":"("}`, `{"patternProperties":{"(":{}}}`,
		`{"required":"a"}`, `{"required":[1]}`, `{"properties":{"a":5}}`, `{"properties":[]}`,
		`{"enum":5}`, `{"anyOf":[]}`, `{"allOf":{}}`, `{"items":[{}]}`, `{"uniqueItems":1}`,
		`{"additionalProperties":"no"}`, `{"not":[]}`, `{"multipleOf":0}`,
		`{"$ref":"#/$defs/missing"}`, `{"$ref":"other.json#/x"}`, `{"$ref":"#anchor"}`, `{"$ref":5}`,
		`{"$ref":"#"}`, `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
		`{"if":{"type":"string"},"then":{"minLength":1}}`, `{"contains":{"type":"string"}}`,
		`{"unevaluatedProperties":false}`, `{"propertyNames":{"maxLength":3}}`,
		`5`, `"x"`, `{"a":1} x`, `{`,
	} {
		if _, err := schemacheck.Compile([]byte(schema)); err == nil {
			t.Errorf("Compile(%s) succeeded", schema)
		}
	}
	for _, schema := range []string{
		`{}`, `true`, `false`, `{"$ref":"#/$defs/a~1b","$defs":{"a/b":{"type":"string"}}}`,
		`{"$ref":"#/properties/a","properties":{"a":{"type":"string"}}}`,
		`{"$id":"https://x.invalid/s.json","$ref":"https://x.invalid/s.json#/$defs/a","$defs":{"a":{}}}`,
		`{"format":"email","x-custom":{"anything":1},"deprecated":true,"contentMediaType":"text/plain"}`,
		`{"$defs":{"list":{"type":"array","items":{"$ref":"#/$defs/list"}}},"$ref":"#/$defs/list"}`,
	} {
		if _, err := schemacheck.Compile([]byte(schema)); err != nil {
			t.Errorf("Compile(%s): %v", schema, err)
		}
	}
}

// Schemas the reference implementation rejects must not compile here either
// (the reverse does not hold: unsupported keywords are rejected here only).
func TestCompileAgreesWithOracleOnBadSchemas(t *testing.T) {
	for _, schema := range []string{
		`{"type":"foo"}`, `{"minLength":-1}`, `{"pattern":"("}`, `{"required":"a"}`, `{"properties":{"a":5}}`,
		`{"enum":5}`, `{"anyOf":[]}`, `{"$ref":"#/$defs/missing"}`, `{"minimum":"1"}`, `{"uniqueItems":1}`,
	} {
		if _, err := compileOracle("bad", []byte(schema)); err == nil {
			t.Errorf("oracle accepts %s", schema)
		}
		if _, err := schemacheck.Compile([]byte(schema)); err == nil {
			t.Errorf("schemacheck accepts %s", schema)
		}
	}
}

func TestConcurrentValidate(t *testing.T) {
	s := schemacheck.MustCompile(handMade["composition"])
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				v, _ := schemacheck.DecodeJSON([]byte(`{"any":{"source":"x"},"one":1,"all":{"a":9},"not":"s"}`))
				if len(s.Validate(v)) != 5 {
					t.Error("wrong error count")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkValidateToolParams(b *testing.B) {
	s := schemacheck.MustCompile(handMade["tools-like"])
	v, _ := schemacheck.DecodeJSON([]byte(`{"n":2,"s":"hello"}`))
	b.ReportAllocs()
	for b.Loop() {
		if errs := s.Validate(v); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkCompileConfigSchema(b *testing.B) {
	src := corpusSchemas(b)["config/schema.json"]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schemacheck.Compile(src); err != nil {
			b.Fatal(err)
		}
	}
}

// The same check with the reference implementation, for comparison.
func BenchmarkOracleValidateToolParams(b *testing.B) {
	s, err := compileOracle("tools-like", []byte(handMade["tools-like"]))
	if err != nil {
		b.Fatal(err)
	}
	v, _ := schemacheck.DecodeJSON([]byte(`{"n":2,"s":"hello"}`))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}
