package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

//go:embed schema/edit.json
var editSchema string

func init() {
	tools.Register(&tools.Action{
		Tool:        "edit",
		Destructive: true,
		Summary:     "Replace one unique piece of text in a file",
		Description: "oldText must occur exactly once. When it does not match exactly, " +
			"a loose match is tried (trailing spaces, smart quotes, Unicode dashes and " +
			"spaces, NFKC); the replacement then goes into the original text at that " +
			"place and nothing else changes. Line endings and a BOM are kept. " +
			"edits:[{oldText,newText},...] applies several disjoint replacements at once.",
		Examples: []string{
			"openclaw edit notes.md --old-text 'colour' --new-text 'color'",
			`openclaw edit main.go --params '{"old_string":"v1","new_string":"v2"}'`,
		},
		Schema: editSchema,
		Args:   []string{"path"}, PathParams: []string{"path"},
		Scope:  "operator.write",
		Where:  tools.Local,
		Run:    tools.Typed(runEdit), // params decoded once, by the door
		Render: renderEdit,
	})
}

type replacement struct{ oldText, newText string }

// editDetails is the success details: the diff and where the change starts.
type editDetails struct {
	Diff             string `json:"diff"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
}

func runEdit(ctx context.Context, env *tools.Env, a args) (any, error) {
	p, edits, err := editArgs(a)
	if err != nil {
		return nil, err
	}
	t, err := resolve(env, p)
	if err != nil {
		return nil, err
	}
	for i, e := range edits {
		if e.oldText == "" {
			if len(edits) == 1 {
				return nil, tools.Errorf(tools.CodeInvalidParams, "oldText must not be empty in %s.", t.shown)
			}
			return nil, tools.Errorf(tools.CodeInvalidParams, "edits[%d].oldText must not be empty in %s.", i, t.shown)
		}
	}
	if err := guardGatewayFiles(env, t); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, t.real)
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, fi, err := openRegular(t, editKind)
	if err != nil {
		return nil, err
	}
	data, err := readCapped(f, fi, t, editMaxBytes(env))
	f.Close()
	if err != nil {
		return nil, err
	}
	bom, body := "", string(data)
	if strings.HasPrefix(body, "\uFEFF") {
		bom, body = "\uFEFF", body[len("\uFEFF"):]
	}
	updated, err := applyEdits(body, edits, t.shown)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := commitFile(ctx, t, []byte(bom+updated), fi, unchanged(t, fi, data)); err != nil {
		return nil, err
	}
	diff, first := lineDiff(strings.ReplaceAll(body, "\r\n", "\n"), strings.ReplaceAll(updated, "\r\n", "\n"))
	text := fmt.Sprintf("Successfully replaced text in %s.", t.shown)
	if len(edits) > 1 {
		text = fmt.Sprintf("Successfully replaced %d block(s) in %s.", len(edits), t.shown)
	}
	return tools.TextResult(text, editDetails{Diff: diff, FirstChangedLine: first}), nil
}

// editArgs collects the replacements: the Classic top-level oldText/newText
// (or old_string/new_string), and the Later edits array, to which top-level
// ones are appended.
func editArgs(a args) (string, []replacement, error) {
	p, okPath := a.path()
	var edits []replacement
	if raw, ok := a["edits"]; ok {
		list, err := parseEdits(raw)
		if err != nil {
			return "", nil, err
		}
		edits = list
	}
	oldText, okOld := a.pick("oldText", "old_string", false)
	newText, okNew := a.pick("newText", "new_string", true)
	var missing []string
	if !okPath {
		missing = append(missing, labelPath)
	}
	if len(edits) == 0 || okOld || okNew {
		if !okOld {
			missing = append(missing, "oldText (oldText or old_string)")
		}
		if !okNew {
			missing = append(missing, "newText (newText or new_string)")
		}
	}
	if len(missing) > 0 {
		return "", nil, missingParams(missing...)
	}
	if okOld {
		edits = append(edits, replacement{oldText, newText})
	}
	return p, edits, nil
}

// parseEdits reads edits: an array of {oldText,newText} objects, or that
// array as a JSON string (some models stringify nested arguments).
func parseEdits(raw any) ([]replacement, error) {
	if s, ok := raw.(string); ok {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams,
				"edits must be an array of {oldText, newText} objects. Supply correct parameters before retrying.")
		}
		raw = v
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, tools.Errorf(tools.CodeInvalidParams,
			"edits must be an array of {oldText, newText} objects. Supply correct parameters before retrying.")
	}
	out := make([]replacement, 0, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, tools.Errorf(tools.CodeInvalidParams,
				"edits[%d] must be an object {oldText, newText}. Supply correct parameters before retrying.", i)
		}
		e := args(m)
		oldText, _ := e.pick("oldText", "old_string", true)
		newText, ok := e.pick("newText", "new_string", true)
		if !ok {
			return nil, missingParams(fmt.Sprintf("edits[%d].newText", i))
		}
		out = append(out, replacement{oldText, newText})
	}
	return out, nil
}

type matched struct {
	index, start, end int
	newText           string
}

// applyEdits matches every edit against the same original body, checks the
// matches are unique and disjoint, and splices the replacements into the
// original text. New text takes the file's line ending.
func applyEdits(body string, edits []replacement, shown string) (string, error) {
	eol := "\n"
	if i := strings.IndexByte(body, '\n'); i > 0 && body[i-1] == '\r' {
		eol = "\r\n"
	}
	many := len(edits) > 1
	var ms []matched
	for i, e := range edits {
		start, end, count, _ := match(body, e.oldText)
		switch {
		case count == 0 && many:
			return "", tools.Errorf(tools.CodeFailed,
				"Could not find edits[%d] in %s. The oldText must match exactly including all whitespace and newlines.", i, shown)
		case count == 0:
			return "", tools.Errorf(tools.CodeFailed,
				"Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines.", shown)
		case count > 1 && many:
			return "", tools.Errorf(tools.CodeFailed,
				"Found %d occurrences of edits[%d] in %s. Each oldText must be unique. Please provide more context to make it unique.", count, i, shown)
		case count > 1:
			return "", tools.Errorf(tools.CodeFailed,
				"Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", count, shown)
		}
		nt := strings.ReplaceAll(e.newText, "\r\n", "\n")
		if eol != "\n" {
			nt = strings.ReplaceAll(nt, "\n", eol)
		}
		ms = append(ms, matched{i, start, end, nt})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	for k := 1; k < len(ms); k++ {
		if ms[k-1].end > ms[k].start {
			return "", tools.Errorf(tools.CodeFailed,
				"edits[%d] and edits[%d] overlap in %s. Merge them into one edit or target disjoint regions.",
				ms[k-1].index, ms[k].index, shown)
		}
	}
	var b strings.Builder
	prev := 0
	for _, m := range ms {
		b.WriteString(body[prev:m.start])
		b.WriteString(m.newText)
		prev = m.end
	}
	b.WriteString(body[prev:])
	out := b.String()
	if out == body {
		if many {
			return "", tools.Errorf(tools.CodeFailed, "No changes made to %s. The replacements produced identical content.", shown)
		}
		return "", tools.Errorf(tools.CodeFailed,
			"No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", shown)
	}
	return out, nil
}
