package config

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/schemacheck"
)

//go:embed schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (2020-12) of openclaw.json as far as this
// port knows it. Objects whose keys we know are closed
// (additionalProperties:false); Validate turns keys outside them into
// warnings. Less-known sections are open objects.
func Schema() json.RawMessage {
	return append(json.RawMessage(nil), schemaJSON...)
}

// The schema is decoded on first use (SchemaLookup, Validate) and compiled
// for validation only when Validate needs it: start-up pays for neither.
var schemaState struct {
	docOnce  sync.Once
	doc      map[string]any // decoded schema.json (numbers as float64)
	docErr   error
	once     sync.Once
	compiled *schemacheck.Schema
	err      error
}

func schemaDoc() (map[string]any, error) {
	s := &schemaState
	s.docOnce.Do(func() {
		if err := json.Unmarshal(schemaJSON, &s.doc); err != nil {
			s.docErr = fmt.Errorf("config schema: %w", err)
		}
	})
	return s.doc, s.docErr
}

func loadSchema() (map[string]any, *schemacheck.Schema, error) {
	doc, err := schemaDoc()
	if err != nil {
		return nil, nil, err
	}
	s := &schemaState
	s.once.Do(func() {
		if s.compiled, err = schemacheck.Compile(schemaJSON); err != nil {
			s.err = fmt.Errorf("config schema: %w", err)
		}
	})
	return doc, s.compiled, s.err
}

// resolveRef follows local "#/$defs/name" references.
func resolveRef(root, node map[string]any) map[string]any {
	for i := 0; i < 32 && node != nil; i++ {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return node
		}
		defs, _ := root["$defs"].(map[string]any)
		next, _ := defs[name].(map[string]any)
		if next == nil {
			return node
		}
		// A description next to $ref belongs to the referring node.
		if d, ok := node["description"]; ok {
			merged := make(map[string]any, len(next)+1)
			for k, v := range next {
				merged[k] = v
			}
			merged["description"] = d
			next = merged
		}
		node = next
	}
	return node
}

// Compiled on first use: package init stays free.
var lookupPathRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_./\[\]\-*$]+$`)
})

// SchemaLookup answers config.schema.lookup: the schema node at path
// (shallow: no nested properties) and its direct children. Paths are dot
// paths; [n], [*] and [] address array items and "*" a map's values; "."
// is the root. An unknown path is an error "config schema path not found".
func SchemaLookup(path string) (map[string]any, error) {
	root, err := schemaDoc()
	if err != nil {
		return nil, err
	}
	notFound := errors.New("config schema path not found")
	trimmed := strings.TrimSpace(path)
	if trimmed == "" || len(trimmed) > 1024 || !lookupPathRe().MatchString(trimmed) {
		return nil, notFound
	}
	wantsRoot := trimmed == "."
	norm := normalizeLookupPath(trimmed)
	parts := []string{}
	if norm != "" {
		parts = strings.Split(norm, ".")
	}
	if (!wantsRoot && len(parts) == 0) || len(parts) > 32 {
		return nil, notFound
	}
	cur := root
	for _, seg := range parts {
		next := lookupChild(root, cur, seg)
		if next == nil {
			return nil, notFound
		}
		cur = next
	}
	cur = resolveRef(root, cur)
	outPath := norm
	if wantsRoot {
		outPath = "."
		norm = ""
	}
	return map[string]any{
		"path":     outPath,
		"schema":   shallowSchema(root, cur, 0),
		"children": lookupChildren(root, cur, norm),
	}, nil
}

var indexRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[(\*|\d*)\]`) })

func normalizeLookupPath(p string) string {
	p = indexRe().ReplaceAllStringFunc(p, func(m string) string {
		inner := m[1 : len(m)-1]
		if inner == "" {
			inner = "*"
		}
		return "." + inner
	})
	var parts []string
	for _, s := range strings.Split(p, ".") {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ".")
}

func isIndexSeg(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// lookupChild finds the schema of child seg below node.
func lookupChild(root, node map[string]any, seg string) map[string]any {
	node = resolveRef(root, node)
	if node == nil || seg == "__proto__" || seg == "constructor" || seg == "prototype" {
		return nil
	}
	if props, ok := node["properties"].(map[string]any); ok {
		if c, ok := props[seg].(map[string]any); ok {
			return c
		}
	}
	if items, ok := node["items"].(map[string]any); ok && (seg == "*" || isIndexSeg(seg)) {
		return items
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		alts, _ := node[kw].([]any)
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok {
				if c := lookupChild(root, am, seg); c != nil {
					return c
				}
			}
		}
	}
	if ap, ok := node["additionalProperties"].(map[string]any); ok {
		return ap
	}
	return nil
}

var shallowKeys = map[string]bool{
	"$id": true, "title": true, "description": true, "format": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"minProperties": true, "maxProperties": true, "uniqueItems": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "type": true, "enum": true, "const": true, "default": true,
}

// shallowSchema copies the scalar facts of node; composition branches are
// kept (shallow too) a few levels deep.
func shallowSchema(root, node map[string]any, depth int) map[string]any {
	node = resolveRef(root, node)
	out := map[string]any{}
	for k, v := range node {
		if shallowKeys[k] {
			out[k] = v
		}
	}
	if ap, ok := node["additionalProperties"].(bool); ok {
		out["additionalProperties"] = ap
	}
	if depth < 4 {
		for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
			alts, ok := node[kw].([]any)
			if !ok {
				continue
			}
			var list []any
			for _, a := range alts {
				if am, ok := a.(map[string]any); ok {
					list = append(list, shallowSchema(root, am, depth+1))
				}
			}
			out[kw] = list
		}
	}
	return out
}

func lookupChildren(root, node map[string]any, path string) []map[string]any {
	children := []map[string]any{}
	required := map[string]bool{}
	if req, ok := node["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	push := func(key string, child map[string]any, req bool) {
		child = resolveRef(root, child)
		p := key
		if path != "" {
			p = path + "." + key
		}
		c := map[string]any{"key": key, "path": p, "required": req, "hasChildren": schemaHasChildren(root, child)}
		if t, ok := child["type"]; ok {
			c["type"] = t
		}
		children = append(children, c)
	}
	if props, ok := node["properties"].(map[string]any); ok {
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if c, ok := props[k].(map[string]any); ok {
				push(k, c, required[k])
			}
		}
	}
	if ap, ok := node["additionalProperties"].(map[string]any); ok {
		push("*", ap, false)
	} else if items, ok := node["items"].(map[string]any); ok {
		push("*", items, false)
	}
	return children
}

func schemaHasChildren(root, node map[string]any) bool {
	node = resolveRef(root, node)
	if props, ok := node["properties"].(map[string]any); ok && len(props) > 0 {
		return true
	}
	if _, ok := node["additionalProperties"].(map[string]any); ok {
		return true
	}
	if _, ok := node["items"].(map[string]any); ok {
		return true
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		alts, _ := node[kw].([]any)
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && schemaHasChildren(root, am) {
				return true
			}
		}
	}
	return false
}
