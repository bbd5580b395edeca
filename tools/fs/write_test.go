package fs_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

func TestWriteCreatesParents(t *testing.T) {
	env, dir := newEnv(t)
	r := mustCall(t, env, "write", map[string]any{"path": "a/b/c.txt", "content": "héllo\n"})
	if got := text(r); got != "Successfully wrote 7 bytes to a/b/c.txt" {
		t.Fatalf("text = %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "a/b/c.txt")); got != "héllo\n" {
		t.Fatalf("file = %q", got)
	}
	// Overwrite; empty content is a valid (empty) file.
	mustCall(t, env, "write", map[string]any{"file_path": "a/b/c.txt", "content": ""})
	if got := readFile(t, filepath.Join(dir, "a/b/c.txt")); got != "" {
		t.Fatalf("file = %q", got)
	}

	var out bytes.Buffer
	if err := tools.Lookup("write").Render(&out, r); err != nil {
		t.Fatal(err)
	}
	if out.String() != "Successfully wrote 7 bytes to a/b/c.txt\n" {
		t.Fatalf("render = %q", out.String())
	}
}

func TestWriteStructuredContent(t *testing.T) {
	env, dir := newEnv(t)
	for _, c := range []struct {
		content any
		want    string
	}{
		{[]any{map[string]any{"type": "text", "text": "one "}, map[string]any{"type": "text", "text": "two"}}, "one two"},
		{map[string]any{"text": "block"}, "block"},
		{map[string]any{"type": "text", "content": []any{map[string]any{"text": "nested"}}}, "nested"},
	} {
		mustCall(t, env, "write", map[string]any{"path": "s.txt", "content": c.content})
		if got := readFile(t, filepath.Join(dir, "s.txt")); got != c.want {
			t.Errorf("%v: file = %q", c.content, got)
		}
	}
}

func TestWriteMissingParams(t *testing.T) {
	env, _ := newEnv(t)
	_, err := call(t, env, "write", map[string]any{})
	wantErr(t, err, tools.CodeInvalidParams,
		"Missing required parameters: path (path or file_path), content. Supply correct parameters before retrying.")
	_, err = call(t, env, "write", map[string]any{"path": "x.txt", "content": map[string]any{"image": "no text"}})
	wantErr(t, err, tools.CodeInvalidParams,
		"Missing required parameter: content. Supply correct parameters before retrying.")
	_, err = call(t, env, "write", map[string]any{"path": "x.txt", "content": 42})
	if te := tools.AsError(err); te == nil || te.Code != tools.CodeInvalidParams {
		t.Fatalf("numeric content: %v", err)
	}
}
