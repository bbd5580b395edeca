package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/titanous/json5"
	"go.yaml.in/yaml/v3"
)

// Front is what a SKILL.md's frontmatter says about the skill.
type Front struct {
	Name        string
	Description string
	Homepage    string
	// UserInvocable (default true) exposes the skill as a slash command;
	// DisableModelInvocation (default false) keeps it out of the prompt.
	UserInvocable          bool
	DisableModelInvocation bool
	// Meta is metadata.openclaw (or the legacy metadata.clawdbot).
	Meta Meta
}

// Meta is the gating block metadata.openclaw, as the original reads it.
type Meta struct {
	Always     bool
	Emoji      string
	Homepage   string
	PrimaryEnv string
	SkillKey   string
	OS         []string
	Requires   Requires
	Install    []Install
}

// Requires lists what must be present for a skill to be eligible.
type Requires struct {
	Bins    []string `json:"bins"`
	AnyBins []string `json:"anyBins"`
	Env     []string `json:"env"`
	Config  []string `json:"config"`
}

// Install is one installer hint (shown by skills info; never run here).
type Install struct {
	ID    string
	Kind  string
	Label string
	Bins  []string
	OS    []string
	What  string // formula, package, module or url
}

var errNoFrontmatter = errors.New("SKILL.md has no frontmatter: it must start with a --- line, then name: and description:, then ---")

// ParseFront reads the frontmatter of a SKILL.md. The block is YAML; when
// YAML refuses it, single-line "key: value" pairs are read instead, as the
// original falls back. metadata may be a YAML mapping or a JSON5 string.
func ParseFront(content []byte) (Front, error) {
	block, err := frontBlock(content)
	if err != nil {
		return Front{}, err
	}
	doc := map[string]any{}
	if yerr := yaml.Unmarshal(block, &doc); yerr != nil || doc == nil {
		doc = lineFront(block)
		if len(doc) == 0 {
			if yerr == nil {
				yerr = errors.New("empty frontmatter")
			}
			return Front{}, fmt.Errorf("SKILL.md frontmatter is not valid YAML: %v", yerr)
		}
	}
	f := Front{
		Name:                   str(doc["name"]),
		Description:            str(doc["description"]),
		Homepage:               firstStr(doc["homepage"], doc["website"], doc["url"]),
		UserInvocable:          boolish(doc["user-invocable"], true),
		DisableModelInvocation: boolish(doc["disable-model-invocation"], false),
	}
	meta, err := metadata(doc["metadata"])
	if err != nil {
		return Front{}, err
	}
	f.Meta = meta
	if f.Homepage == "" {
		f.Homepage = meta.Homepage
	}
	return f, nil
}

// frontBlock returns the text between the opening and closing --- lines.
func frontBlock(content []byte) ([]byte, error) {
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	content = bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n"))
	first, rest, ok := bytes.Cut(content, []byte("\n"))
	if !ok || strings.TrimSpace(string(first)) != "---" {
		return nil, errNoFrontmatter
	}
	var out []byte
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if strings.TrimRight(string(line), " \t") == "---" {
			return out, nil
		}
		out = append(append(out, line...), '\n')
	}
	return nil, errors.New("SKILL.md frontmatter is not closed: add a --- line after it")
}

// lineFront is the fallback parser: top-level "key: value" lines.
func lineFront(block []byte) map[string]any {
	doc := map[string]any{}
	for _, line := range strings.Split(string(block), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		doc[strings.TrimSpace(k)] = v
	}
	return doc
}

// metadata decodes metadata.openclaw (falling back to metadata.clawdbot).
func metadata(v any) (Meta, error) {
	var m map[string]any
	switch x := v.(type) {
	case nil:
		return Meta{}, nil
	case map[string]any:
		// Round-trip through JSON: YAML may nest map[string]any or other
		// shapes; JSON gives one shape.
		b, err := json.Marshal(x)
		if err != nil {
			return Meta{}, fmt.Errorf("SKILL.md metadata: %v", err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return Meta{}, fmt.Errorf("SKILL.md metadata: %v", err)
		}
	case string:
		if strings.TrimSpace(x) == "" {
			return Meta{}, nil
		}
		if err := json5.Unmarshal([]byte(x), &m); err != nil {
			return Meta{}, fmt.Errorf("SKILL.md metadata is neither a YAML mapping nor JSON5: %v", err)
		}
	default:
		return Meta{}, errors.New("SKILL.md metadata must be a mapping ({\"openclaw\": {...}})")
	}
	oc, _ := m["openclaw"].(map[string]any)
	if oc == nil {
		oc, _ = m["clawdbot"].(map[string]any)
	}
	if oc == nil {
		return Meta{}, nil
	}
	out := Meta{
		Always: boolish(oc["always"], false), Emoji: str(oc["emoji"]), Homepage: str(oc["homepage"]),
		PrimaryEnv: str(oc["primaryEnv"]), SkillKey: str(oc["skillKey"]), OS: strs(oc["os"]),
	}
	if r, ok := oc["requires"].(map[string]any); ok {
		out.Requires = Requires{Bins: strs(r["bins"]), AnyBins: strs(r["anyBins"]), Env: strs(r["env"]), Config: strs(r["config"])}
	}
	if list, ok := oc["install"].([]any); ok {
		for _, it := range list {
			s, ok := it.(map[string]any)
			if !ok {
				continue
			}
			out.Install = append(out.Install, Install{ID: str(s["id"]), Kind: str(s["kind"]), Label: str(s["label"]),
				Bins: strs(s["bins"]), OS: strs(s["os"]), What: firstStr(s["formula"], s["package"], s["module"], s["url"])})
		}
	}
	return out, nil
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case nil:
		return ""
	case bool, int, int64, float64:
		return fmt.Sprint(x)
	}
	return ""
}

func firstStr(vs ...any) string {
	for _, v := range vs {
		if s := str(v); s != "" {
			return s
		}
	}
	return ""
}

// strs reads a list of strings; a single string is a list of one.
func strs(v any) []string {
	out := []string{}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s := str(e); s != "" {
				out = append(out, s)
			}
		}
	case string:
		if s := strings.TrimSpace(x); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func boolish(v any, def bool) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "1":
			return true
		case "false", "no", "0":
			return false
		}
	}
	return def
}
