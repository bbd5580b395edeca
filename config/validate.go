package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/schemacheck"
)

// Issue is one validation finding. Path is a dot path ("gateway.bind",
// "agents.list[0].id"); "" is the document root.
type Issue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Validate checks doc against Schema(). Wrong types, bad enum values,
// out-of-range numbers and missing required keys are issues. Keys that a
// closed object does not know are warnings ("Unrecognized key: \"x\"" at
// the object's path), never issues: the document is validated with them
// stripped. Both lists are sorted by path.
func Validate(doc map[string]any) (issues []Issue, warnings []Issue) {
	root, compiled, err := loadSchema()
	if err != nil {
		return []Issue{{Path: "", Message: err.Error()}}, nil
	}
	w := &keyWalker{root: root}
	var stripped any = map[string]any{}
	if doc != nil {
		stripped = w.walk(doc, root, "")
	}
	warnings = w.warnings
	c := &issueCollector{doc: stripped, seen: map[string]bool{}}
	if p, bad := findNonFinite(doc, ""); bad {
		c.add(p, "Invalid input: Infinity and NaN are not allowed")
	}
	c.collect(compiled.Validate(stripped))
	issues = c.issues
	sortIssues(issues)
	sortIssues(warnings)
	return issues, warnings
}

func sortIssues(list []Issue) {
	sort.SliceStable(list, func(i, j int) bool { return list[i].Path < list[j].Path })
}

// FormatIssues renders issues the way OpenClaw prints an invalid config:
//
//	Invalid config at <path>:
//	- gateway.bind: Invalid option: expected one of "loopback"|"lan"
func FormatIssues(path string, issues []Issue) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Invalid config at %s:\n", path)
	for _, is := range issues {
		fmt.Fprintf(&b, "- %s: %s\n", displayPath(is.Path), is.Message)
	}
	return b.String()
}

// FormatWarning renders a warning as Config.Warnings lists it
// ("tools: Unrecognized key: \"x\"").
func FormatWarning(w Issue) string { return displayPath(w.Path) + ": " + w.Message }

// keyWalker copies a document, dropping keys that closed schema objects do
// not declare and recording them as warnings.
type keyWalker struct {
	root     map[string]any
	warnings []Issue
}

// objectShape merges the object-accepting branches of node: the declared
// properties, the schema for other keys (additionalProperties), and
// whether other keys are forbidden.
type objectShape struct {
	props  map[string]any
	extra  map[string]any
	closed bool
}

func (w *keyWalker) shapes(node map[string]any, want string) []map[string]any {
	node = resolveRef(w.root, node)
	if node == nil {
		return nil
	}
	var out []map[string]any
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		alts, _ := node[kw].([]any)
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok {
				out = append(out, w.shapes(am, want)...)
			}
		}
	}
	if typeAllows(node["type"], want) {
		out = append(out, node)
	}
	return out
}

func typeAllows(t any, want string) bool {
	switch tt := t.(type) {
	case nil:
		return false
	case string:
		return tt == want
	case []any:
		for _, e := range tt {
			if e == want {
				return true
			}
		}
	}
	return false
}

func (w *keyWalker) objectShape(node map[string]any) (objectShape, bool) {
	branches := w.shapes(node, "object")
	if len(branches) == 0 {
		return objectShape{}, false
	}
	sh := objectShape{props: map[string]any{}, closed: true}
	for _, b := range branches {
		if props, ok := b["properties"].(map[string]any); ok {
			for k, v := range props {
				if _, dup := sh.props[k]; !dup {
					sh.props[k] = v
				}
			}
		}
		switch ap := b["additionalProperties"].(type) {
		case bool:
			if ap {
				sh.closed = false
			}
		case map[string]any:
			if sh.extra == nil {
				sh.extra = ap
			}
			sh.closed = false
		default:
			sh.closed = false
		}
	}
	return sh, true
}

func (w *keyWalker) walk(v any, node map[string]any, path string) any {
	switch t := v.(type) {
	case map[string]any:
		sh, ok := w.objectShape(node)
		if !ok {
			return deepCopy(t)
		}
		out := make(map[string]any, len(t))
		var unknown []string
		for _, k := range sortedKeys(t) {
			if ps, ok := sh.props[k].(map[string]any); ok {
				out[k] = w.walk(t[k], ps, joinKey(path, k))
				continue
			}
			if sh.extra != nil {
				out[k] = w.walk(t[k], sh.extra, joinKey(path, k))
				continue
			}
			if sh.closed {
				unknown = append(unknown, k)
				continue
			}
			out[k] = deepCopy(t[k])
		}
		if len(unknown) > 0 {
			w.warnings = append(w.warnings, Issue{Path: path, Message: unrecognized(unknown)})
		}
		return out
	case []any:
		var items map[string]any
		for _, b := range w.shapes(node, "array") {
			if it, ok := b["items"].(map[string]any); ok {
				items = it
				break
			}
		}
		out := make([]any, len(t))
		for i, e := range t {
			if items != nil {
				out[i] = w.walk(e, items, joinIndex(path, i))
			} else {
				out[i] = deepCopy(e)
			}
		}
		return out
	}
	return v
}

func unrecognized(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = quoteJSON(k)
	}
	if len(keys) == 1 {
		return "Unrecognized key: " + q[0]
	}
	return "Unrecognized keys: " + strings.Join(q, ", ")
}

func quoteJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// issueCollector turns validation errors into at most one Issue per path,
// worded like OpenClaw's (zod) messages.
type issueCollector struct {
	doc    any
	issues []Issue
	seen   map[string]bool
}

func (c *issueCollector) add(path, msg string) {
	if c.seen[path] {
		return
	}
	c.seen[path] = true
	c.issues = append(c.issues, Issue{Path: path, Message: msg})
}

func (c *issueCollector) collect(errs []schemacheck.Error) {
	for i := range errs {
		e := &errs[i]
		path := c.instancePath(e.Location)
		switch e.Kind {
		case schemacheck.KindAnyOf, schemacheck.KindOneOf, schemacheck.KindOneOfMany:
			c.add(path, "Invalid input")
		case schemacheck.KindRequired:
			c.add(joinKey(path, e.Property), "Invalid input: expected a value, received undefined")
		case schemacheck.KindType:
			c.add(path, fmt.Sprintf("Invalid input: expected %s, received %s", strings.Join(e.Want, " | "), e.Got))
		case schemacheck.KindEnum:
			want := make([]string, len(e.Values))
			for i, v := range e.Values {
				want[i] = quoteJSON(v)
			}
			c.add(path, "Invalid option: expected one of "+strings.Join(want, "|"))
		case schemacheck.KindConst:
			c.add(path, "Invalid input: expected "+quoteJSON(e.Values[0]))
		case schemacheck.KindMinimum:
			c.add(path, "Too small: expected number to be >="+e.Bound)
		case schemacheck.KindExclusiveMinimum:
			c.add(path, "Too small: expected number to be >"+e.Bound)
		case schemacheck.KindMaximum:
			c.add(path, "Too big: expected number to be <="+e.Bound)
		case schemacheck.KindExclusiveMaximum:
			c.add(path, "Too big: expected number to be <"+e.Bound)
		case schemacheck.KindMultipleOf:
			c.add(path, "Invalid number: expected a multiple of "+e.Bound)
		case schemacheck.KindMinLength:
			c.add(path, fmt.Sprintf("Too small: expected string to have >=%d characters", e.Limit))
		case schemacheck.KindMaxLength:
			c.add(path, fmt.Sprintf("Too big: expected string to have <=%d characters", e.Limit))
		case schemacheck.KindMinItems:
			c.add(path, fmt.Sprintf("Too small: expected array to have >=%d items", e.Limit))
		case schemacheck.KindMaxItems:
			c.add(path, fmt.Sprintf("Too big: expected array to have <=%d items", e.Limit))
		case schemacheck.KindMinProperties:
			c.add(path, fmt.Sprintf("Too small: expected object to have >=%d keys", e.Limit))
		case schemacheck.KindMaxProperties:
			c.add(path, fmt.Sprintf("Too big: expected object to have <=%d keys", e.Limit))
		case schemacheck.KindPattern:
			c.add(path, "Invalid string: must match pattern /"+e.Pattern+"/")
		case schemacheck.KindInvalidValue:
			c.add(path, "Invalid input: Infinity and NaN are not allowed")
		case schemacheck.KindAdditional:
			// One issue per object, naming every extra key.
			var keys []string
			for j := range errs {
				if errs[j].Kind == schemacheck.KindAdditional && slices.Equal(errs[j].Location, e.Location) {
					keys = append(keys, errs[j].Property)
				}
			}
			c.add(path, unrecognized(keys))
		default:
			c.add(path, "Invalid input: "+e.Message())
		}
	}
}

// instancePath turns JSON-pointer tokens into a dot path, using the
// document to tell array indexes from object keys.
func (c *issueCollector) instancePath(tokens []string) string {
	path := ""
	cur := c.doc
	for _, tok := range tokens {
		switch t := cur.(type) {
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err == nil && i >= 0 && i < len(t) {
				path = joinIndex(path, i)
				cur = t[i]
				continue
			}
			path = joinKey(path, tok)
			cur = nil
		case map[string]any:
			path = joinKey(path, tok)
			cur = t[tok]
		default:
			path = joinKey(path, tok)
			cur = nil
		}
	}
	return path
}
