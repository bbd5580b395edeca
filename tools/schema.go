package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// compiledSchema is an action's params schema, compiled on first use so that
// start-up pays nothing for actions a command does not touch.
type compiledSchema struct{ s *jsonschema.Schema }

// SchemaIssue is one validation failure, located by JSON pointer.
type SchemaIssue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// CompileSchema compiles a schema document; tests call it for every action.
func CompileSchema(id, schema string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", id, err)
	}
	url := "https://openclaw.invalid/schemas/" + id + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", id, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", id, err)
	}
	return s, nil
}

func (a *Action) schema() (*compiledSchema, error) {
	a.once.Do(func() {
		s, err := CompileSchema(a.ID(), a.Schema)
		a.compiled, a.err = &compiledSchema{s}, err
	})
	return a.compiled, a.err
}

// Validate checks params against the action's schema and returns every issue.
func (a *Action) Validate(params json.RawMessage) ([]SchemaIssue, error) {
	cs, err := a.schema()
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return []SchemaIssue{{Path: "", Message: "params are not valid JSON: " + err.Error()}}, nil
	}
	verr := cs.s.Validate(inst)
	if verr == nil {
		return nil, nil
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return []SchemaIssue{{Message: verr.Error()}}, nil
	}
	var out []SchemaIssue
	collectIssues(ve, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// collectIssues walks to the leaf causes: they carry the useful messages.
func collectIssues(e *jsonschema.ValidationError, out *[]SchemaIssue) {
	if len(e.Causes) == 0 {
		if _, isGroup := e.ErrorKind.(*kind.Group); isGroup {
			return
		}
		*out = append(*out, SchemaIssue{Path: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)})
		return
	}
	for _, c := range e.Causes {
		collectIssues(c, out)
	}
}

var printer = message.NewPrinter(language.English)

func pointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, p := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// FormatIssues renders issues as "path: message; ..." for one-line errors.
func FormatIssues(issues []SchemaIssue) string {
	parts := make([]string, len(issues))
	for i, is := range issues {
		parts[i] = is.Path + ": " + is.Message
	}
	return strings.Join(parts, "; ")
}
