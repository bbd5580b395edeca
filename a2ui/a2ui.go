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
// is wrong with it.
func checkLine(b []byte) (string, string) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		var probe any
		if json.Unmarshal(b, &probe) == nil {
			return "", "expected JSON object"
		}
		return "", "invalid JSON: " + err.Error()
	}
	if obj == nil { // the line was null
		return "", "expected JSON object"
	}
	if raw, has := obj["version"]; has {
		var ver string
		if json.Unmarshal(raw, &ver) != nil || (ver != V08 && ver != V09 && ver != "v0.9.1") {
			return "", "unsupported A2UI version: " + compact(raw)
		}
		if ver == V08 {
			return "", "A2UI v0.8 messages must not include a version field"
		}
		keys := present(obj, v09Keys)
		if len(keys) != 1 {
			return "", "expected exactly one v0.9 action key (" + strings.Join(v09Keys, ", ") + ")"
		}
		if !isObject(obj[keys[0]]) {
			return "", "action payload must be an object"
		}
		return V09, ""
	}
	keys := present(obj, ActionKeys)
	if len(keys) != 1 {
		return "", "expected exactly one action key (" + strings.Join(ActionKeys, ", ") + ")"
	}
	key := keys[0]
	payload := obj[key]
	if !isObject(payload) {
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
func checkV08(key string, payload json.RawMessage) string {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(payload, &p) // isObject held
	if !nonEmptyString(p["surfaceId"]) {
		return key + ".surfaceId must be a non-empty string"
	}
	switch key {
	case "surfaceUpdate":
		var comps []json.RawMessage
		if json.Unmarshal(p["components"], &comps) != nil || p["components"] == nil || comps == nil {
			return "surfaceUpdate.components must be an array"
		}
		for i, c := range comps {
			var comp map[string]json.RawMessage
			if json.Unmarshal(c, &comp) != nil || comp == nil {
				return fmt.Sprintf("surfaceUpdate.components[%d] must be an object", i)
			}
			if !nonEmptyString(comp["id"]) {
				return fmt.Sprintf("surfaceUpdate.components[%d].id must be a non-empty string", i)
			}
			var def map[string]json.RawMessage
			if json.Unmarshal(comp["component"], &def) != nil || len(def) != 1 {
				return fmt.Sprintf("surfaceUpdate.components[%d].component must name exactly one component type, as {\"Text\":{...}}", i)
			}
			for _, props := range def {
				if !isObject(props) {
					return fmt.Sprintf("surfaceUpdate.components[%d].component's properties must be an object", i)
				}
			}
		}
	case "beginRendering":
		if !nonEmptyString(p["root"]) {
			return "beginRendering.root must be a non-empty string (a component id)"
		}
	case "dataModelUpdate":
		if raw, has := p["path"]; has {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return "dataModelUpdate.path must be a string"
			}
		}
		var contents []json.RawMessage
		if json.Unmarshal(p["contents"], &contents) != nil || p["contents"] == nil || contents == nil {
			return "dataModelUpdate.contents must be an array"
		}
		for i, c := range contents {
			var entry map[string]json.RawMessage
			if json.Unmarshal(c, &entry) != nil || entry == nil {
				return fmt.Sprintf("dataModelUpdate.contents[%d] must be an object", i)
			}
			var k string
			if json.Unmarshal(entry["key"], &k) != nil || entry["key"] == nil {
				return fmt.Sprintf("dataModelUpdate.contents[%d].key must be a string", i)
			}
		}
	}
	return ""
}

// isJSSpace is what String.prototype.trim removes: Unicode white space
// and the byte order mark.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

func present(obj map[string]json.RawMessage, keys []string) []string {
	var out []string
	for _, k := range keys {
		if _, ok := obj[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func nonEmptyString(raw json.RawMessage) bool {
	var s string
	return raw != nil && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != ""
}

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
