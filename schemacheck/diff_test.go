package schemacheck_test

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// gen builds instances guided by a schema: mostly plausible values, with
// boundary numbers and strings, missing and extra keys, and now and then
// something of the wrong type, so that both valid and invalid documents
// reach deep into the schema.
type gen struct {
	r    *rand.Rand
	root any
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) resolve(m map[string]any) map[string]any {
	for i := 0; i < 8; i++ {
		ref, ok := m["$ref"].(string)
		if !ok || !g.chance(0.9) {
			return m
		}
		cur := g.root
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
			cur = asMap(cur)[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
		}
		next := asMap(cur)
		if next == nil {
			return m
		}
		m = next
	}
	return m
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func (g *gen) value(schema any, depth int) any {
	m := asMap(schema)
	if m == nil || depth > 7 || g.chance(0.06) {
		return g.random(depth)
	}
	m = g.resolve(m)
	if c, ok := m["const"]; ok && g.chance(0.7) {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 && g.chance(0.8) {
		return e[g.r.IntN(len(e))]
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := m[kw].([]any); ok && len(alts) > 0 && g.chance(0.7) {
			return g.value(alts[g.r.IntN(len(alts))], depth)
		}
	}
	if n, ok := m["not"]; ok && g.chance(0.3) {
		return g.value(n, depth)
	}
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			types = append(types, e.(string))
		}
	}
	if len(types) == 0 {
		switch {
		case m["properties"] != nil || m["required"] != nil || m["additionalProperties"] != nil || m["patternProperties"] != nil:
			types = []string{"object"}
		case m["items"] != nil || m["prefixItems"] != nil:
			types = []string{"array"}
		case m["pattern"] != nil || m["minLength"] != nil:
			types = []string{"string"}
		case m["minimum"] != nil || m["maximum"] != nil || m["multipleOf"] != nil:
			types = []string{"number"}
		default:
			return g.random(depth)
		}
	}
	switch types[g.r.IntN(len(types))] {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, depth)
	case "string":
		return g.str(m)
	case "integer":
		return g.number(m, true)
	case "number":
		return g.number(m, false)
	case "boolean":
		return g.chance(0.5)
	}
	return nil
}

func (g *gen) object(m map[string]any, depth int) any {
	out := map[string]any{}
	props := asMap(m["properties"])
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			required[r.(string)] = true
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	density := 0.15 + 0.6*g.r.Float64()
	if len(keys) > 40 {
		density /= 4
	}
	for _, k := range keys {
		if (required[k] && g.chance(0.93)) || g.chance(density) {
			out[k] = g.value(props[k], depth+1)
		}
	}
	for k := range required {
		if _, ok := out[k]; !ok && g.chance(0.9) {
			out[k] = g.value(props[k], depth+1)
		}
	}
	for pat, ps := range asMap(m["patternProperties"]) {
		if g.chance(0.5) {
			out[g.keyFor(pat)] = g.value(ps, depth+1)
		}
	}
	if ap := asMap(m["additionalProperties"]); ap != nil && g.chance(0.6) {
		for i := g.r.IntN(3); i >= 0; i-- {
			out[g.word()] = g.value(ap, depth+1)
		}
	}
	if g.chance(0.1) {
		out[g.word()] = g.random(depth + 1)
	}
	return out
}

func (g *gen) keyFor(pat string) string {
	lit := regexp.MustCompile(`[A-Za-z0-9_-]+`).FindString(pat)
	return lit + g.word()
}

func (g *gen) array(m map[string]any, depth int) any {
	n := g.r.IntN(5)
	if g.chance(0.1) {
		n = 20 + g.r.IntN(10)
	}
	for _, kw := range []string{"minItems", "maxItems"} {
		if b, ok := m[kw].(json.Number); ok && g.chance(0.4) {
			v, _ := b.Int64()
			n = max(0, int(v)+g.r.IntN(3)-1)
		}
	}
	prefix, _ := m["prefixItems"].([]any)
	out := make([]any, n)
	for i := range out {
		switch {
		case i < len(prefix):
			out[i] = g.value(prefix[i], depth+1)
		case m["items"] != nil:
			out[i] = g.value(m["items"], depth+1)
		default:
			out[i] = g.random(depth + 1)
		}
		if i > 0 && g.chance(0.1) {
			out[i] = out[g.r.IntN(i)] // a duplicate, for uniqueItems
		}
	}
	return out
}

var sampleStrings = []string{"", "a", "ab", "abc", "abcd", "abcde", "A1", "x-y", "é", "日本", "éé", "123", "foo_bar",
	"env", "file", "loopback", "lan", "token", "a b", "bcd", "zz", "-", "~/x", "a/b", "\u0000", "ab\n"}

func (g *gen) str(m map[string]any) any {
	s := sampleStrings[g.r.IntN(len(sampleStrings))]
	if g.chance(0.3) {
		for _, kw := range []string{"minLength", "maxLength"} {
			if b, ok := m[kw].(json.Number); ok {
				v, _ := b.Int64()
				s = strings.Repeat("é", max(0, int(v)+g.r.IntN(3)-1))
			}
		}
	}
	return s
}

// number returns a json.Number around the schema's bounds, in varied
// spellings (1, 1.0, 1e0, -0, 0.1).
func (g *gen) number(m map[string]any, integer bool) any {
	var bounds []float64
	for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if b, ok := m[kw].(json.Number); ok {
			f, _ := b.Float64()
			bounds = append(bounds, f)
		}
	}
	var f float64
	switch {
	case len(bounds) > 0 && g.chance(0.7):
		f = bounds[g.r.IntN(len(bounds))] + []float64{0, 0, -1, 1, -0.5, 0.5, 1e-9, 2}[g.r.IntN(8)]
	default:
		f = []float64{0, 1, -1, 2, 3, 0.1, 0.5, 1.5, 100, 65535, 65536, 1e21, 9007199254740993, -7}[g.r.IntN(14)]
	}
	if integer && g.chance(0.8) {
		f = float64(int64(f))
	}
	switch g.r.IntN(5) {
	case 0:
		if f == float64(int64(f)) {
			return json.Number(strconv.FormatInt(int64(f), 10) + ".0")
		}
	case 1:
		return json.Number(strconv.FormatFloat(f, 'e', -1, 64))
	case 2:
		if f == 0 {
			return json.Number("-0")
		}
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

func (g *gen) word() string {
	const letters = "abcxyz_-"
	b := make([]byte, 1+g.r.IntN(5))
	for i := range b {
		b[i] = letters[g.r.IntN(len(letters))]
	}
	return string(b)
}

func (g *gen) random(depth int) any {
	k := g.r.IntN(7)
	if depth > 5 && k >= 5 {
		k = g.r.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return g.chance(0.5)
	case 2:
		return g.number(nil, g.chance(0.5))
	case 3:
		return sampleStrings[g.r.IntN(len(sampleStrings))]
	case 4:
		return g.word()
	case 5:
		out := make([]any, g.r.IntN(4))
		for i := range out {
			out[i] = g.random(depth + 1)
		}
		return out
	}
	out := map[string]any{}
	for i := g.r.IntN(4); i > 0; i-- {
		out[g.word()] = g.random(depth + 1)
	}
	return out
}

// TestDifferential validates schema-guided random documents with
// schemacheck and with santhosh-tekuri/jsonschema and requires the same
// verdict and the same leaf errors (location, keyword, property).
func TestDifferential(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	pairs := compilePairs(t)
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			g := &gen{r: rand.New(rand.NewPCG(1, uint64(len(p.name)))), root: p.raw}
			valid := 0
			for i := 0; i < n; i++ {
				doc, err := json.Marshal(g.value(p.raw, 0))
				if err != nil {
					t.Fatal(err)
				}
				compare(t, p, doc)
				if p.mine.Valid(mustDecode(t, doc)) {
					valid++
				}
			}
			t.Logf("%d documents, %d valid", n, valid)
		})
	}
}

func mustDecode(t testing.TB, doc []byte) any {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// FuzzDifferential feeds arbitrary JSON documents to both validators for
// every corpus schema.
func FuzzDifferential(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"n":1,"s":"ab"}`, `{"n":0,"s":5,"extra":true}`, `{"n":1.0,"s":"abcde","x":1.5}`,
		`{"gateway":{"port":"18789","bind":"everywhere","auth":{"token":5}}}`,
		`{"gateway":{"auth":{"token":{"source":"env"}}},"agents":{"list":[{"id":"a"},{"name":"b"}]}}`,
		`{"env":{"FOO":"bar","N":1},"tools":{"profile":"coding","byProvider":{"x":{"profile":"no"}}}}`,
		`{"token":{"source":"env","id":""},"tree":{"v":1,"kids":[{"v":"x"}]},"list":["a",{"source":"file"}]}`,
		`{"any":5,"one":1,"all":{"a":9},"not":"s","notc":2,"untyped":{},"same":"c"}`,
		`["a",1,{"id":"x"},{"id":"x"}]`, `[1,1.0,1e0]`, `{"x-a":1,"x-yy":2,"zzz":"no","a":3}`,
		`{"path":"a.txt","offset":0,"limit":1e2}`, `{"content":5,"oldText":[1],"edits":[{"oldText":1}]}`,
		`{"m":0.30000000000000004,"x":1e-400,"big":9007199254740993}`,
	} {
		f.Add([]byte(s))
	}
	pairs := compilePairs(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > 4096 {
			return
		}
		for _, p := range pairs {
			compare(t, p, doc)
		}
	})
}

// FuzzGenerated drives the schema-guided generator from fuzzed seeds.
func FuzzGenerated(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	pairs := compilePairs(f)
	f.Fuzz(func(t *testing.T, a, b uint64) {
		for _, p := range pairs {
			g := &gen{r: rand.New(rand.NewPCG(a, b)), root: p.raw}
			doc, err := json.Marshal(g.value(p.raw, 0))
			if err != nil {
				t.Fatal(err)
			}
			compare(t, p, doc)
		}
	})
}
