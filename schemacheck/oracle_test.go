package schemacheck_test

// The oracle: github.com/santhosh-tekuri/jsonschema/v6, the validator this
// package replaces at run time. It is only ever linked into tests.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/schemacheck"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// handMade exercise every supported keyword, alone and combined.
var handMade = map[string]string{
	"scalars": `{"type":"object","properties":{
		"n":{"type":"integer","minimum":1,"maximum":10},
		"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5},
		"m":{"type":"number","multipleOf":0.5},
		"s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-z]+$"},
		"u":{"type":"string","pattern":"é|日"},
		"b":{"type":"boolean"},"z":{"type":"null"},
		"e":{"enum":["a","b",1,null,{"k":[1,2]}]},
		"c":{"const":2.0},
		"big":{"type":"integer","maximum":9007199254740993},
		"t":{"type":["string","integer","null"]}
	},"required":["n","s"],"additionalProperties":false}`,
	"objects": `{"type":"object","properties":{"a":{"type":"string"}},
		"patternProperties":{"^x-":{"type":"integer"},"^x-y":{"minimum":5}},
		"additionalProperties":{"type":"boolean"},"minProperties":1,"maxProperties":4}`,
	"arrays": `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],
		"items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},
		"minItems":1,"maxItems":5,"uniqueItems":true}`,
	"unique-long": `{"type":"array","uniqueItems":true,"maxItems":64}`,
	"composition": `{"type":"object","properties":{
		"any":{"anyOf":[{"type":"string","minLength":3},{"type":"object","properties":{"source":{"enum":["env","file"]},"id":{"type":"string"}},"required":["source","id"],"additionalProperties":false}]},
		"one":{"oneOf":[{"type":"integer"},{"type":"number","minimum":0},{"type":"string"}]},
		"all":{"allOf":[{"type":"object","required":["a"]},{"properties":{"a":{"type":"integer","maximum":3}}}]},
		"not":{"not":{"type":"string"}},
		"notc":{"type":"integer","not":{"enum":[1,2,3]}},
		"untyped":{"anyOf":[{"required":["a"]},{"required":["b"]}]},
		"same":{"anyOf":[{"type":"string","pattern":"^a"},{"type":"string","pattern":"^b"}]}
	}}`,
	"refs": `{"$defs":{
		"secret":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/ref"}]},
		"ref":{"type":"object","properties":{"source":{"const":"env"},"id":{"type":"string","minLength":1}},"required":["source","id"],"additionalProperties":false},
		"tree":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/tree"}}},"additionalProperties":false}
	},"definitions":{"old":{"type":"string","maxLength":3}},
	"type":"object","properties":{
		"token":{"$ref":"#/$defs/secret"},
		"tree":{"$ref":"#/$defs/tree"},
		"old":{"$ref":"#/definitions/old","description":"sibling annotations are fine"},
		"refmin":{"$ref":"#/definitions/old","minLength":2},
		"self":{"$ref":"#"},
		"list":{"type":"array","items":{"$ref":"#/$defs/secret"}}
	}}`,
	"booleans":   `{"type":"object","properties":{"never":false,"always":true,"arr":{"type":"array","items":false},"obj":{"additionalProperties":true}}}`,
	"root-true":  `true`,
	"root-false": `false`,
	"annotations": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://schemacheck.invalid/a.json",
		"title":"T","description":"D","default":{},"examples":[1],"$comment":"c","format":"uri","x-vendor":1,
		"type":"object","properties":{"when":{"type":"string","format":"date-time"},"d":{"deprecated":true,"readOnly":true}}}`,
	"enum-only":  `{"enum":["loopback","lan","tailnet","auto","custom"]}`,
	"tools-like": `{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string"}},"required":["n"],"additionalProperties":false}`,
}

// corpusSchemas are the schemas the differential tests run: the hand-made
// ones, the config schema and the tools/fs action schemas.
func corpusSchemas(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range handMade {
		out[k] = []byte(v)
	}
	files, _ := filepath.Glob(filepath.Join("..", "tools", "fs", "schema", "*.json"))
	files = append(files, filepath.Join("..", "config", "schema.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(filepath.ToSlash(f), "../")] = b
	}
	return out
}

type pair struct {
	name   string
	mine   *schemacheck.Schema
	oracle *jsonschema.Schema
	raw    any // decoded with UseNumber, for the generator
}

func compilePairs(t testing.TB) []pair {
	schemas := corpusSchemas(t)
	names := make([]string, 0, len(schemas))
	for k := range schemas {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []pair
	for _, name := range names {
		src := schemas[name]
		mine, err := schemacheck.Compile(src)
		if err != nil {
			t.Fatalf("%s: schemacheck: %v", name, err)
		}
		or, err := compileOracle(name, src)
		if err != nil {
			t.Fatalf("%s: oracle: %v", name, err)
		}
		raw, err := schemacheck.DecodeJSON(src)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pair{name, mine, or, raw})
	}
	return out
}

func compileOracle(name string, src []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	url := "https://schemacheck.invalid/" + strings.ReplaceAll(name, "/", "_")
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// mineLeaves renders schemacheck's errors as a sorted multiset of
// "pointer kind [property]".
func mineLeaves(errs []schemacheck.Error) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		s := fmt.Sprintf("%q %s", e.Pointer(), kindName(e.Kind))
		if e.Kind == schemacheck.KindRequired || e.Kind == schemacheck.KindAdditional {
			s += " " + e.Property
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func kindName(k schemacheck.Kind) string {
	return [...]string{"?", "invalid-value", "false", "type", "const", "enum", "required", "additional",
		"minProperties", "maxProperties", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength",
		"pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "not",
		"anyOf", "oneOf", "oneOfMany"}[k]
}

// oracleLeaves flattens a santhosh-tekuri error tree the way schemacheck
// reports errors: leaves only; a failed anyOf/oneOf is one error at its
// location unless exactly one branch did not fail on the value's type, in
// which case that branch's leaves stand for it.
func oracleLeaves(err error) []string {
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{"error " + err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		loc := pointer(e.InstanceLocation)
		add := func(kind string) { out = append(out, fmt.Sprintf("%q %s", loc, kind)) }
		switch k := e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
			for _, c := range e.Causes {
				walk(c)
			}
		case *kind.AnyOf, *kind.OneOf:
			name := "anyOf"
			if o, isOne := k.(*kind.OneOf); isOne {
				if len(o.Subschemas) > 0 {
					add("oneOfMany")
					return
				}
				name = "oneOf"
			}
			var compatible []*jsonschema.ValidationError
			for _, c := range e.Causes {
				if !typeFailureAt(c, loc) {
					compatible = append(compatible, c)
				}
			}
			if len(compatible) == 1 {
				walk(compatible[0])
			} else {
				add(name)
			}
		case *kind.Required:
			for _, m := range k.Missing {
				add("required " + m)
			}
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				add("additional " + p)
			}
		case *kind.InvalidJsonValue:
			add("invalid-value")
		case *kind.FalseSchema:
			add("false")
		case *kind.Type:
			add("type")
		case *kind.Const:
			add("const")
		case *kind.Enum:
			add("enum")
		case *kind.MinProperties:
			add("minProperties")
		case *kind.MaxProperties:
			add("maxProperties")
		case *kind.MinItems:
			add("minItems")
		case *kind.MaxItems:
			add("maxItems")
		case *kind.UniqueItems:
			add("uniqueItems")
		case *kind.MinLength:
			add("minLength")
		case *kind.MaxLength:
			add("maxLength")
		case *kind.Pattern:
			add("pattern")
		case *kind.Minimum:
			add("minimum")
		case *kind.Maximum:
			add("maximum")
		case *kind.ExclusiveMinimum:
			add("exclusiveMinimum")
		case *kind.ExclusiveMaximum:
			add("exclusiveMaximum")
		case *kind.MultipleOf:
			add("multipleOf")
		case *kind.Not:
			add("not")
		default:
			add(fmt.Sprintf("unmapped %T", k))
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

// typeFailureAt: the branch failed only because of its type keyword (its
// own, or through a $ref chain) at loc.
func typeFailureAt(e *jsonschema.ValidationError, loc string) bool {
	switch e.ErrorKind.(type) {
	case *kind.Type:
		return pointer(e.InstanceLocation) == loc
	case *kind.Reference, *kind.Schema:
		return len(e.Causes) == 1 && typeFailureAt(e.Causes[0], loc)
	}
	return false
}

func pointer(tokens []string) string { return schemacheck.Pointer(tokens) }

// outOfScope: numbers with huge exponents make the oracle slow (it builds
// 10^exp as a big.Rat) and, beyond ±1e6, panic; no real config or params
// has them. schemacheck still validates them (see compare).
func outOfScope(v any) bool {
	switch t := v.(type) {
	case json.Number:
		s := strings.ToLower(string(t))
		if i := strings.IndexByte(s, 'e'); i >= 0 {
			e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
			return err != nil || e > 1000 || e < -1000
		}
		return len(s) > 1000
	case []any:
		for _, e := range t {
			if outOfScope(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range t {
			if outOfScope(e) {
				return true
			}
		}
	}
	return false
}

// compare validates one JSON document with both validators, decoded both
// ways (json.Number and float64), and reports any disagreement.
func compare(t testing.TB, p pair, doc []byte) {
	t.Helper()
	withNumber, err := schemacheck.DecodeJSON(doc)
	if err != nil {
		return
	}
	if outOfScope(withNumber) {
		if errs := p.mine.Validate(withNumber); p.mine.Valid(withNumber) != (len(errs) == 0) {
			t.Fatalf("%s: Valid() disagrees with Validate() = %v for %s", p.name, errs, doc)
		}
		return
	}
	var withFloat any
	if err := json.Unmarshal(doc, &withFloat); err != nil {
		return // a number out of float64 range
	}
	for _, inst := range []struct {
		how string
		v   any
	}{{"json.Number", withNumber}, {"float64", withFloat}} {
		var oerr error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: oracle panicked on %s: %v", p.name, doc, r)
				}
			}()
			oerr = p.oracle.Validate(inst.v)
		}()
		errs := p.mine.Validate(inst.v)
		valid := p.mine.Valid(inst.v)
		if valid != (len(errs) == 0) {
			t.Fatalf("%s (%s): Valid()=%v but Validate() returned %v for %s", p.name, inst.how, valid, errs, doc)
		}
		if (oerr == nil) != valid {
			t.Fatalf("%s (%s): schemacheck valid=%v, oracle valid=%v\ninstance: %s\nschemacheck: %v\noracle: %v",
				p.name, inst.how, valid, oerr == nil, doc, errs, oerr)
		}
		got, want := mineLeaves(errs), oracleLeaves(oerr)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s (%s): leaf errors differ\ninstance: %s\nschemacheck:\n  %s\noracle:\n  %s\noracle tree: %#v",
				p.name, inst.how, doc, strings.Join(got, "\n  "), strings.Join(want, "\n  "), oerr)
		}
	}
}
