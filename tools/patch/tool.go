package patch

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

const schema = `{
  "type": "object",
  "required": ["input"],
  "properties": {
    "input": {
      "type": "string",
      "description": "The whole patch: '*** Begin Patch', then '*** Add File: <path>' (+lines), '*** Delete File: <path>' or '*** Update File: <path>' (optional '*** Move to: <path>', then '@@' hunks of ' ', '-', '+' lines), then '*** End Patch'."
    }
  },
  "additionalProperties": false
}`

func init() {
	tools.Register(&tools.Action{
		Tool:        "apply_patch",
		Destructive: true,
		Summary:     "Apply a multi-file patch (*** Begin Patch format), all or nothing",
		Description: "Adds, deletes, updates and moves files in one patch. Every hunk of every " +
			"file is checked before anything is written; if one fails, no file changes. " +
			"Context lines match exactly, then ignoring trailing whitespace, then ignoring " +
			"surrounding whitespace, then with Unicode dashes, quotes and spaces folded. " +
			"Line endings, a BOM and file modes are kept. Without --input the patch is read from stdin. " +
			"Paths stay inside the workspace unless tools.exec.applyPatch.workspaceOnly is false.",
		Examples: []string{
			"openclaw apply-patch < change.patch",
			`openclaw apply-patch --input "$(cat change.patch)"`,
		},
		Schema:       schema,
		StdinParam:   "input",
		Available:    checkAvailable,
		AvailableKey: "tools.exec.applyPatch",
		Scope:        "operator.write",
		Where:        tools.Local,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			Input string `json:"input"`
		}) (any, error) {
			return Apply(ctx, env, p.Input)
		}),
		Render: func(w io.Writer, r gjson.Result) error {
			_, err := fmt.Fprintln(w, r.Get("content.0.text").String())
			return err
		},
	})
}

// Summary lists the files a patch touched, by display path.
type Summary struct {
	Added    []string `json:"added"`
	Modified []string `json:"modified"`
	Deleted  []string `json:"deleted"`
}

// Apply parses and applies a patch for env's caller and returns the tool
// result: "Success. Updated the following files:" with A/M/D lines.
func Apply(ctx context.Context, env *tools.Env, input string) (*tools.Result, error) {
	if err := checkAvailable(env); err != nil {
		return nil, err
	}
	if strings.TrimSpace(input) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "Provide a patch input.")
	}
	hunks, err := Parse(input)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "%s", err.Error())
	}
	if len(hunks) == 0 {
		return nil, tools.Errorf(tools.CodeFailed, "No files were modified.")
	}
	sum, err := apply(ctx, env, hunks)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("Success. Updated the following files:")
	for _, l := range []struct {
		tag   string
		paths []string
	}{{"A", sum.Added}, {"M", sum.Modified}, {"D", sum.Deleted}} {
		for _, p := range l.paths {
			b.WriteString("\n" + l.tag + " " + p)
		}
	}
	return tools.TextResult(b.String(), map[string]any{"summary": sum}), nil
}
