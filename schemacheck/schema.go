// Package schemacheck validates JSON values against the subset of JSON Schema
// (draft 2020-12) that openclaw's own schemas use: tool action params and the
// openclaw.json config schema.
//
// It exists because a general-purpose validator compiles every metaschema in
// its package init, which the CLI would pay on every start. This package does
// no work until Compile is called, and Compile only parses the one schema it
// is given into a tree of structs (regular expressions compiled once).
//
// Supported keywords: type (string or array; "integer" is a number with a
// zero fraction), const, enum, properties, required, additionalProperties
// (boolean or schema), patternProperties, minProperties, maxProperties,
// items (schema), prefixItems, minItems, maxItems, uniqueItems, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minLength and
// maxLength (counted in runes), pattern (Go regexp syntax, unanchored),
// allOf, anyOf, oneOf, not, and local $ref ("#", "#/$defs/…",
// "#/definitions/…" or any JSON pointer into the document). Annotations
// (title, description, default, examples, format, $comment, deprecated, …),
// $schema, $id and keywords this package does not know are ignored.
// Standard assertion keywords it does not implement (if/then/else,
// contains, dependentRequired, propertyNames, unevaluatedProperties, …) are
// a compile error rather than being silently skipped.
//
// The test suite checks every behaviour against
// github.com/santhosh-tekuri/jsonschema/v6, which stays a test-only
// dependency.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Schema is a compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	root *node
}

// typeSet is a bit set of JSON types, in the canonical order used for
// messages.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeNames = [...]struct {
	t    typeSet
	name string
}{
	{tNull, "null"}, {tBoolean, "boolean"}, {tNumber, "number"}, {tInteger, "integer"},
	{tString, "string"}, {tArray, "array"}, {tObject, "object"},
}

func (ts typeSet) names() []string {
	var out []string
	for _, tn := range typeNames {
		if ts&tn.t != 0 {
			out = append(out, tn.name)
		}
	}
	return out
}

func typeByName(s string) typeSet {
	for _, tn := range typeNames {
		if tn.name == s {
			return tn.t
		}
	}
	return 0
}

// limit is a numeric bound, kept exactly.
type limit struct {
	dec   decimal
	rat   *big.Rat // for multipleOf
	i     int64    // valid when small
	small bool     // an integer that fits an int64
	text  string   // for messages: "65535", "0.5"
}

type patternProp struct {
	re   *regexp.Regexp
	node *node
}

// node is one compiled (sub)schema.
type node struct {
	ptr     string // JSON pointer of this schema inside the document
	boolean *bool  // true/false schema

	types    typeSet
	constVal any
	hasConst bool
	enum     []any // nil when absent
	ref      *node
	refText  string

	// objects
	props      map[string]*node
	required   []string
	additional *node // nil when absent
	patterns   []patternProp
	minProps   int // -1 when absent
	maxProps   int

	// arrays
	prefixItems []*node
	items       *node
	minItems    int
	maxItems    int
	unique      bool

	// strings
	minLen  int
	maxLen  int
	pattern *regexp.Regexp

	// numbers
	minimum, maximum, exMinimum, exMaximum *limit
	multipleOf                             *limit

	// composition
	allOf, anyOf, oneOf []*node
	not                 *node
}

// CompileError reports a schema this package cannot use.
type CompileError struct {
	Pointer string // where in the schema document ("" is the root)
	Msg     string
}

func (e *CompileError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "(root)"
	}
	return "schema " + p + ": " + e.Msg
}

// unsupported reports standard assertion keywords this package does not
// implement; accepting them silently would accept values the schema
// rejects. (A switch, not a map: package init stays free.)
func unsupported(kw string) bool {
	switch kw {
	case "if", "then", "else", "contains", "minContains", "maxContains",
		"dependentRequired", "dependentSchemas", "dependencies", "propertyNames",
		"unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef":
		return true
	}
	return false
}

// Compile parses a schema document (JSON text).
func Compile(schema []byte) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("schema is not valid JSON: data after the top-level value")
	}
	return CompileValue(doc)
}

// CompileValue compiles an already decoded schema document (numbers as
// json.Number or float64).
func CompileValue(doc any) (*Schema, error) {
	c := &compiler{doc: doc, byPtr: map[string]*node{}}
	if id, ok := mapOf(doc)["$id"].(string); ok {
		c.base, _, _ = strings.Cut(id, "#")
	}
	root, err := c.compile(doc, "")
	if err != nil {
		return nil, err
	}
	for len(c.pending) > 0 {
		n := c.pending[0]
		c.pending = c.pending[1:]
		target, err := c.resolve(n)
		if err != nil {
			return nil, err
		}
		n.ref = target
	}
	if err := checkCycles(c.byPtr); err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

// MustCompile is Compile for schemas known to be good; it panics on error.
func MustCompile(schema string) *Schema {
	s, err := Compile([]byte(schema))
	if err != nil {
		panic("schemacheck: " + err.Error())
	}
	return s
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

type compiler struct {
	doc     any
	base    string // root $id without fragment
	byPtr   map[string]*node
	pending []*node // nodes whose $ref is not resolved yet
}

func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func (c *compiler) compile(v any, ptr string) (*node, error) {
	if n, ok := c.byPtr[ptr]; ok {
		return n, nil
	}
	n := &node{ptr: ptr, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	c.byPtr[ptr] = n
	switch s := v.(type) {
	case bool:
		n.boolean = &s
		return n, nil
	case map[string]any:
		return n, c.compileObject(n, s, ptr)
	}
	return nil, &CompileError{ptr, "a schema must be an object or a boolean"}
}

func (c *compiler) compileObject(n *node, s map[string]any, ptr string) error {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic first error
	for _, kw := range keys {
		if err := c.keyword(n, kw, s[kw], ptr+"/"+escapeToken(kw)); err != nil {
			return err
		}
	}
	return nil
}

func (c *compiler) keyword(n *node, kw string, v any, at string) error {
	bad := func(msg string) error { return &CompileError{at, msg} }
	var err error
	switch kw {
	case "type":
		switch t := v.(type) {
		case string:
			if n.types = typeByName(t); n.types == 0 {
				return bad(fmt.Sprintf("unknown type %q", t))
			}
		case []any:
			if len(t) == 0 {
				return bad("must not be empty")
			}
			for _, e := range t {
				name, _ := e.(string)
				ts := typeByName(name)
				if ts == 0 {
					return bad(fmt.Sprintf("unknown type %v", e))
				}
				if n.types&ts != 0 {
					return bad("types must be unique")
				}
				n.types |= ts
			}
		default:
			return bad("must be a string or an array of strings")
		}
	case "const":
		if !validJSON(v) {
			return bad("not a JSON value")
		}
		n.constVal, n.hasConst = v, true
	case "enum":
		arr, ok := v.([]any)
		if !ok || !validJSON(v) {
			return bad("must be an array")
		}
		n.enum = append([]any{}, arr...)
	case "$ref":
		ref, ok := v.(string)
		if !ok {
			return bad("must be a string")
		}
		n.refText = ref
		c.pending = append(c.pending, n)
	case "properties", "$defs", "definitions", "patternProperties":
		m, ok := v.(map[string]any)
		if !ok {
			return bad("must be an object")
		}
		if kw == "properties" {
			n.props = make(map[string]*node, len(m))
		}
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			child, err := c.compile(m[k], at+"/"+escapeToken(k))
			if err != nil {
				return err
			}
			switch kw {
			case "properties":
				n.props[k] = child
			case "patternProperties":
				re, err := regexp.Compile(k)
				if err != nil {
					return bad(fmt.Sprintf("invalid pattern %q: %v", k, err))
				}
				n.patterns = append(n.patterns, patternProp{re, child})
			}
			// $defs/definitions are compiled so that their errors surface
			// even when nothing refers to them.
		}
	case "required":
		arr, ok := v.([]any)
		if !ok {
			return bad("must be an array of strings")
		}
		seen := map[string]bool{}
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				return bad("must be an array of strings")
			}
			if seen[s] {
				return bad(fmt.Sprintf("duplicate %q", s))
			}
			seen[s] = true
			n.required = append(n.required, s)
		}
	case "additionalProperties":
		n.additional, err = c.compile(v, at)
	case "items":
		if _, isArr := v.([]any); isArr {
			return bad("array form of items is not supported (use prefixItems)")
		}
		n.items, err = c.compile(v, at)
	case "not":
		n.not, err = c.compile(v, at)
	case "prefixItems", "allOf", "anyOf", "oneOf":
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return bad("must be a non-empty array of schemas")
		}
		list := make([]*node, len(arr))
		for i, e := range arr {
			if list[i], err = c.compile(e, at+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
		switch kw {
		case "prefixItems":
			n.prefixItems = list
		case "allOf":
			n.allOf = list
		case "anyOf":
			n.anyOf = list
		case "oneOf":
			n.oneOf = list
		}
	case "minProperties":
		n.minProps, err = count(v, at)
	case "maxProperties":
		n.maxProps, err = count(v, at)
	case "minItems":
		n.minItems, err = count(v, at)
	case "maxItems":
		n.maxItems, err = count(v, at)
	case "minLength":
		n.minLen, err = count(v, at)
	case "maxLength":
		n.maxLen, err = count(v, at)
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return bad("must be a boolean")
		}
		n.unique = b
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return bad("must be a string")
		}
		if n.pattern, err = regexp.Compile(s); err != nil {
			return bad(fmt.Sprintf("invalid pattern %q: %v", s, err))
		}
	case "minimum":
		n.minimum, err = newLimit(v, at)
	case "maximum":
		n.maximum, err = newLimit(v, at)
	case "exclusiveMinimum":
		n.exMinimum, err = newLimit(v, at)
	case "exclusiveMaximum":
		n.exMaximum, err = newLimit(v, at)
	case "multipleOf":
		if n.multipleOf, err = newLimit(v, at); err == nil && n.multipleOf.rat.Sign() <= 0 {
			return bad("must be greater than 0")
		}
	default:
		if unsupported(kw) {
			return bad(fmt.Sprintf("keyword %q is not supported by schemacheck", kw))
		}
		// Annotations ($schema, $id, title, description, default, examples,
		// format, …) and unknown keywords.
	}
	return err
}

func count(v any, at string) (int, error) {
	d, ok := decimalOf(v)
	if !ok || !d.isInteger() || d.neg && !d.isZero() || d.exp > 10 {
		return 0, &CompileError{at, "must be a non-negative integer"}
	}
	r, _ := d.rat()
	if !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 0, &CompileError{at, "too large"}
	}
	return int(r.Num().Int64()), nil
}

func newLimit(v any, at string) (*limit, error) {
	d, ok := decimalOf(v)
	if !ok {
		return nil, &CompileError{at, "must be a number"}
	}
	r, ok := d.rat()
	if !ok {
		return nil, &CompileError{at, "number out of range"}
	}
	l := &limit{dec: d, rat: r}
	if r.IsInt() {
		l.text = r.Num().String()
		if r.Num().IsInt64() {
			l.i, l.small = r.Num().Int64(), true
		}
	} else {
		f, _ := r.Float64()
		l.text = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return l, nil
}

// resolve finds the target of a local $ref.
func (c *compiler) resolve(n *node) (*node, error) {
	ref := n.refText
	bad := func(msg string) error { return &CompileError{n.ptr + "/$ref", msg} }
	if c.base != "" && strings.HasPrefix(ref, c.base+"#") {
		ref = ref[len(c.base):]
	}
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, bad(fmt.Sprintf("only local references (#...) are supported, got %q", n.refText))
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, bad(fmt.Sprintf("bad reference %q", n.refText))
	}
	if frag != "" && frag[0] != '/' {
		return nil, bad(fmt.Sprintf("anchors are not supported, got %q", n.refText))
	}
	cur := c.doc
	ptr := ""
	if frag != "" {
		for _, tok := range strings.Split(frag[1:], "/") {
			if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(tok, "~0", ""), "~1", ""), "~") {
				return nil, bad(fmt.Sprintf("bad JSON pointer in %q", n.refText))
			}
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch t := cur.(type) {
			case map[string]any:
				v, ok := t[tok]
				if !ok {
					return nil, bad(fmt.Sprintf("%q not found", n.refText))
				}
				cur = v
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(t) || strconv.Itoa(i) != tok {
					return nil, bad(fmt.Sprintf("%q not found", n.refText))
				}
				cur = t[i]
			default:
				return nil, bad(fmt.Sprintf("%q not found", n.refText))
			}
			ptr += "/" + escapeToken(tok)
		}
	}
	return c.compile(cur, ptr)
}

// checkCycles rejects schemas that would recurse without consuming any of
// the instance ({"$ref":"#"} at the root, $defs that refer to each other).
func checkCycles(byPtr map[string]*node) error {
	ptrs := make([]string, 0, len(byPtr))
	for p := range byPtr {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	// A cycle through edges that stay on the same instance value.
	const (
		visiting = 1
		done     = 2
	)
	state := map[*node]int{}
	var visit func(n *node) error
	visit = func(n *node) error {
		switch state[n] {
		case visiting:
			return &CompileError{n.ptr, "$ref cycle that never descends into the value"}
		case done:
			return nil
		}
		state[n] = visiting
		for _, m := range sameInstance(n) {
			if err := visit(m); err != nil {
				return err
			}
		}
		state[n] = done
		return nil
	}
	for _, p := range ptrs {
		if err := visit(byPtr[p]); err != nil {
			return err
		}
	}
	return nil
}

// sameInstance lists the subschemas applied to the same value as n.
func sameInstance(n *node) []*node {
	var out []*node
	if n.ref != nil {
		out = append(out, n.ref)
	}
	if n.not != nil {
		out = append(out, n.not)
	}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	return append(out, n.oneOf...)
}

// validJSON reports whether v is made of JSON values only.
func validJSON(v any) bool {
	switch t := v.(type) {
	case nil, bool, string, json.Number, float64:
		return true
	case []any:
		for _, e := range t {
			if !validJSON(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range t {
			if !validJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}
