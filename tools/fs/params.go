// Package fs holds the Classic file tools read, write and edit: raw text
// reads with line/byte caps and continuation notices, whole-file writes, and
// exact-then-fuzzy single replacements that keep line endings and BOMs.
package fs

import (
	"encoding/json"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// args is a decoded params object (numbers as json.Number), filled by
// tools.Typed from the value the door decoded and validated.
type args map[string]any

// text returns key's value as a string, flattening structured text blocks.
func (a args) text(key string) (string, bool) {
	v, ok := a[key]
	if !ok {
		return "", false
	}
	return flattenText(v, 0)
}

// pick resolves a Claude-Code-style alias the way OpenClaw does: the alias
// is used when the primary is absent or empty. ok reports whether the
// result satisfies a required parameter (a string, non-blank unless
// allowEmpty).
func (a args) pick(primary, alias string, allowEmpty bool) (string, bool) {
	v, ok := a.text(primary)
	if v == "" {
		if av, aok := a.text(alias); aok {
			v, ok = av, aok
		}
	}
	if !ok || (!allowEmpty && strings.TrimSpace(v) == "") {
		return v, false
	}
	return v, true
}

// path returns the path (or file_path) parameter. Paths are not flattened.
func (a args) path() (string, bool) {
	p, _ := a["path"].(string)
	if p == "" {
		p, _ = a["file_path"].(string)
	}
	return p, strings.TrimSpace(p) != ""
}

// int returns an integer parameter (0 when absent).
func (a args) int(key string) int {
	switch n := a[key].(type) {
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i)
		}
		if f, err := n.Float64(); err == nil {
			return int(f)
		}
	case float64:
		return int(n)
	}
	return 0
}

// flattenText extracts text from a string or from structured blocks
// ([{type:"text",text}], {text}, {content}, {parts}) that some providers send
// instead of a plain string. Array parts are concatenated.
func flattenText(v any, depth int) (string, bool) {
	if depth > 6 {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case []any:
		var b strings.Builder
		found := false
		for _, e := range x {
			if s, ok := flattenText(e, depth+1); ok {
				b.WriteString(s)
				found = true
			}
		}
		return b.String(), found
	case map[string]any:
		if s, ok := x["text"].(string); ok {
			return s, true
		}
		if s, ok := x["content"].(string); ok {
			return s, true
		}
		if c, ok := x["content"].([]any); ok {
			return flattenText(c, depth+1)
		}
		if p, ok := x["parts"].([]any); ok {
			return flattenText(p, depth+1)
		}
		if s, ok := x["value"].(string); ok && s != "" {
			typ, _ := x["type"].(string)
			kind, _ := x["kind"].(string)
			if strings.Contains(strings.ToLower(typ), "text") || strings.ToLower(kind) == "text" {
				return s, true
			}
		}
	}
	return "", false
}

const labelPath = "path (path or file_path)"

// missingParams is the wrapper's validation error for absent required
// parameter groups.
func missingParams(labels ...string) error {
	noun := "parameter"
	if len(labels) > 1 {
		noun = "parameters"
	}
	return tools.Errorf(tools.CodeInvalidParams,
		"Missing required %s: %s. Supply correct parameters before retrying.", noun, strings.Join(labels, ", "))
}
