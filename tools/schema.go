package tools

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/schemacheck"
)

// compiledSchema is an action's params schema, compiled on first use so that
// start-up pays nothing for actions a command does not touch.
type compiledSchema struct{ s *schemacheck.Schema }

// SchemaIssue is one validation failure, located by JSON pointer.
type SchemaIssue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// CompileSchema compiles a schema document with the run-time validator.
// Tests also compile every schema with a full JSON Schema implementation.
func CompileSchema(id, schema string) (*schemacheck.Schema, error) {
	s, err := schemacheck.Compile([]byte(schema))
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

// Validate checks params against the action's schema and returns every
// issue, sorted by path. The root is "/".
func (a *Action) Validate(params json.RawMessage) ([]SchemaIssue, error) {
	inst, err := schemacheck.DecodeJSON(params)
	if err != nil {
		if _, cerr := a.schema(); cerr != nil {
			return nil, cerr
		}
		return invalidJSON(err), nil
	}
	return a.ValidateValue(inst)
}

// ValidateValue checks params already decoded (as encoding/json decodes
// into any; numbers as json.Number or float64) against the action's schema.
func (a *Action) ValidateValue(inst any) ([]SchemaIssue, error) {
	cs, err := a.schema()
	if err != nil {
		return nil, err
	}
	errs := cs.s.Validate(inst)
	if len(errs) == 0 {
		return nil, nil
	}
	out := make([]SchemaIssue, len(errs))
	for i := range errs {
		p := errs[i].Pointer()
		if p == "" {
			p = "/"
		}
		out[i] = SchemaIssue{Path: p, Message: errs[i].Message()}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func invalidJSON(err error) []SchemaIssue {
	return []SchemaIssue{{Path: "", Message: "params are not valid JSON: " + err.Error()}}
}

// FormatIssues renders issues as "path: message; ..." for one-line errors.
func FormatIssues(issues []SchemaIssue) string {
	parts := make([]string, len(issues))
	for i, is := range issues {
		parts[i] = is.Path + ": " + is.Message
	}
	return strings.Join(parts, "; ")
}
