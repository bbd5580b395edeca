// Package a2ui checks A2UI JSONL (Google's agent-to-UI protocol) the way
// OpenClaw's canvas accepts it: v0.8 server-to-client messages, one JSON
// object per line, each with exactly one action key (surfaceUpdate,
// dataModelUpdate, beginRendering, deleteSurface). v0.9 is recognised
// (createSurface, or an explicit "version":"v0.9") so it can be refused
// with a clear message instead of rendering nothing. It is a leaf: it
// imports nothing of this module.
package a2ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Versions a file can be detected as.
const (
	V08 = "v0.8"
	V09 = "v0.9"
)

// ActionKeys are the keys a line is recognised by, in the original's order
// (createSurface marks the line as v0.9).
var ActionKeys = []string{"beginRendering", "surfaceUpdate", "dataModelUpdate", "deleteSurface", "createSurface"}

// v09Keys are the action keys of a line that says "version":"v0.9".
var v09Keys = []string{"createSurface", "updateComponents", "updateDataModel", "deleteSurface"}

// UnsupportedV09 is the original's refusal of a v0.9 file.
const UnsupportedV09 = "Detected A2UI v0.9 JSONL (createSurface). OpenClaw currently supports v0.8 only."

// maxIssues bounds the errors collected from one file: past it one line
// says how many more there were (a 1 MiB file of garbage must not make a
// 1 MiB error message).
const maxIssues = 50

// Result is a file that passed.
type Result struct {
	Version      string            `json:"version"`
	MessageCount int               `json:"messageCount"`
	Messages     []json.RawMessage `json:"-"`
	// V09Lines are the line numbers that made the file v0.9.
	V09Lines []int `json:"-"`
}

// Error lists what is wrong with a file, line by line.
type Error struct {
	// Head is the first line of the message ("Invalid A2UI JSONL:").
	Head   string
	Issues []string
}

func (e *Error) Error() string {
	if len(e.Issues) == 0 {
		return e.Head
	}
	return e.Head + "\n- " + strings.Join(e.Issues, "\n- ")
}

// Example is a small valid v0.8 file, offered beside errors so a caller
// (often a model) sees the expected shape.
var Example = TextJSONL("Hello")

// Validate checks a JSONL file line by line (blank lines are skipped; line
// numbers count them) and reports every problem at once, as
// "Invalid A2UI JSONL:\n- line N: ...". A valid file may be v0.8 or v0.9;
// ValidateSupported also refuses v0.9.
func Validate(jsonl string) (*Result, error) {
	res := &Result{}
	var issues []string
	more := 0
	add := func(format string, args ...any) {
		if len(issues) < maxIssues {
			issues = append(issues, fmt.Sprintf(format, args...))
		} else {
			more++
		}
	}
	sawV08, sawV09 := false, false
	lineNo := 0
	for rest := jsonl; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		lineNo++
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimFunc(line, isJSSpace)
		if trimmed == "" {
			continue
		}
		res.MessageCount++
		v, problem := checkLine([]byte(trimmed))
		if problem != "" {
			add("line %d: %s", lineNo, problem)
			continue
		}
		if v == V09 {
			sawV09 = true
			res.V09Lines = append(res.V09Lines, lineNo)
		} else {
			sawV08 = true
		}
		res.Messages = append(res.Messages, json.RawMessage(trimmed))
	}
	if res.MessageCount == 0 {
		add("no JSONL messages found")
	}
	if sawV08 && sawV09 {
		add("mixed A2UI v0.8 and v0.9 messages in one file")
	}
	if more > 0 {
		issues = append(issues, fmt.Sprintf("... and %d more", more))
	}
	if len(issues) > 0 {
		return nil, &Error{Head: "Invalid A2UI JSONL:", Issues: issues}
	}
	res.Version = V08
	if sawV09 {
		res.Version = V09
	}
	return res, nil
}

// ValidateSupported is Validate that also refuses a v0.9 file with the
// original's message, naming the lines that are v0.9.
func ValidateSupported(jsonl string) (*Result, error) {
	res, err := Validate(jsonl)
	if err != nil {
		return nil, err
	}
	if res.Version != V08 {
		e := &Error{Head: UnsupportedV09}
		for i, n := range res.V09Lines {
			if i == maxIssues {
				e.Issues = append(e.Issues, fmt.Sprintf("... and %d more", len(res.V09Lines)-i))
				break
			}
			e.Issues = append(e.Issues, fmt.Sprintf("line %d: A2UI v0.9 message (v0.8 has surfaceUpdate, dataModelUpdate, beginRendering, deleteSurface)", n))
		}
		return nil, e
	}
	return res, nil
}

// checkLine checks one non-blank line: its version (V08 or V09) or what
// is wrong with it. gjson reads the line in place (no maps are built).
func checkLine(b []byte) (string, string) {
	if !gjson.ValidBytes(b) {
		var probe any
		err := json.Unmarshal(b, &probe) // for the message (and its offset)
		if err == nil {
			return "", "invalid JSON"
		}
		return "", "invalid JSON: " + err.Error()
	}
	obj := gjson.ParseBytes(b)
	if !obj.IsObject() {
		return "", "expected JSON object"
	}
	if ver := obj.Get("version"); ver.Exists() {
		if ver.Type != gjson.String || (ver.Str != V08 && ver.Str != V09 && ver.Str != "v0.9.1") {
			return "", "unsupported A2UI version: " + compact(json.RawMessage(ver.Raw))
		}
		if ver.Str == V08 {
			return "", "A2UI v0.8 messages must not include a version field"
		}
		keys := present(obj, v09Keys)
		if len(keys) != 1 {
			return "", "expected exactly one v0.9 action key (" + strings.Join(v09Keys, ", ") + ")"
		}
		if !obj.Get(keys[0]).IsObject() {
			return "", "action payload must be an object"
		}
		return V09, ""
	}
	keys := present(obj, ActionKeys)
	if len(keys) != 1 {
		return "", "expected exactly one action key (" + strings.Join(ActionKeys, ", ") + ")"
	}
	key := keys[0]
	payload := obj.Get(key)
	if !payload.IsObject() {
		return "", "action payload must be an object"
	}
	if key == "createSurface" {
		return V09, ""
	}
	if p := checkV08(key, payload); p != "" {
		return "", p
	}
	return V08, ""
}

// checkV08 checks the shape a v0.8 renderer needs of each action: a
// surface id, the component table, the root, the data entries.
func checkV08(key string, p gjson.Result) string {
	if !nonEmptyString(p.Get("surfaceId")) {
		return key + ".surfaceId must be a non-empty string"
	}
	switch key {
	case "surfaceUpdate":
		comps := p.Get("components")
		if !comps.IsArray() {
			return "surfaceUpdate.components must be an array"
		}
		for i, c := range comps.Array() {
			if !c.IsObject() {
				return fmt.Sprintf("surfaceUpdate.components[%d] must be an object", i)
			}
			if !nonEmptyString(c.Get("id")) {
				return fmt.Sprintf("surfaceUpdate.components[%d].id must be a non-empty string", i)
			}
			def := c.Get("component")
			n := 0
			var props gjson.Result
			if def.IsObject() {
				def.ForEach(func(_, v gjson.Result) bool {
					n++
					props = v
					return true
				})
			}
			if n != 1 {
				return fmt.Sprintf("surfaceUpdate.components[%d].component must name exactly one component type, as {\"Text\":{...}}", i)
			}
			if !props.IsObject() {
				return fmt.Sprintf("surfaceUpdate.components[%d].component's properties must be an object", i)
			}
		}
	case "beginRendering":
		if !nonEmptyString(p.Get("root")) {
			return "beginRendering.root must be a non-empty string (a component id)"
		}
	case "dataModelUpdate":
		if path := p.Get("path"); path.Exists() && path.Type != gjson.String {
			return "dataModelUpdate.path must be a string"
		}
		contents := p.Get("contents")
		if !contents.IsArray() {
			return "dataModelUpdate.contents must be an array"
		}
		for i, c := range contents.Array() {
			if !c.IsObject() {
				return fmt.Sprintf("dataModelUpdate.contents[%d] must be an object", i)
			}
			if c.Get("key").Type != gjson.String {
				return fmt.Sprintf("dataModelUpdate.contents[%d].key must be a string", i)
			}
		}
	}
	return ""
}

// present lists which of keys the object has (gjson paths escaped: a key
// is matched as written).
func present(obj gjson.Result, keys []string) []string {
	var out []string
	seen := map[string]bool{}
	obj.ForEach(func(k, _ gjson.Result) bool {
		seen[k.Str] = true
		return true
	})
	for _, k := range keys {
		if seen[k] {
			out = append(out, k)
		}
	}
	return out
}

func nonEmptyString(r gjson.Result) bool {
	return r.Type == gjson.String && strings.TrimSpace(r.Str) != ""
}

// isJSSpace is what String.prototype.trim removes: Unicode white space
// and the byte order mark.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// compact is a JSON value as JSON.stringify would print it, shortened.
func compact(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	s := buf.String()
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// TextJSONL is the quick text push (`--text "Hello"`): a Column surface
// "main" holding one body Text, byte for byte what the original generates.
func TextJSONL(text string) string {
	return `{"surfaceUpdate":{"surfaceId":"main","components":[{"id":"root","component":{"Column":{"children":{"explicitList":["text"]}}}},` +
		`{"id":"text","component":{"Text":{"text":{"literalString":` + jsQuote(text) + `},"usageHint":"body"}}}]}}` + "\n" +
		`{"beginRendering":{"surfaceId":"main","root":"root"}}`
}

// jsQuote quotes s as JSON.stringify does: only ", \ and control
// characters are escaped (<, >, &, U+2028 stay as they are); invalid
// UTF-8 becomes U+FFFD.
func jsQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			h := strconv.FormatInt(int64(r), 16)
			if len(h) < 2 {
				b.WriteByte('0')
			}
			b.WriteString(h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
