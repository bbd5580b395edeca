package fs_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

func edit(t *testing.T, env *tools.Env, params map[string]any) (string, error) {
	t.Helper()
	r, err := call(t, env, "edit", params)
	return text(r), err
}

func TestEditExact(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "f.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n")
	r := mustCall(t, env, "edit", map[string]any{"path": "f.txt", "oldText": "six\n", "newText": "SIX\nsix-and-a-half\n"})
	if got := text(r); got != "Successfully replaced text in f.txt." {
		t.Fatalf("text = %q", got)
	}
	if got := readFile(t, p); got != "one\ntwo\nthree\nfour\nfive\nSIX\nsix-and-a-half\nseven\neight\nnine\nten\n" {
		t.Fatalf("file = %q", got)
	}
	wantDiff := strings.Join([]string{
		"    ...",
		"  2 two",
		"  3 three",
		"  4 four",
		"  5 five",
		"- 6 six",
		"+ 6 SIX",
		"+ 7 six-and-a-half",
		"  7 seven",
		"  8 eight",
		"  9 nine",
		" 10 ten",
	}, "\n")
	if got := r.Get("details.diff").String(); got != wantDiff {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, wantDiff)
	}
	if got := r.Get("details.firstChangedLine").Int(); got != 6 {
		t.Fatalf("firstChangedLine = %d", got)
	}
	var out bytes.Buffer
	if err := tools.Lookup("edit").Render(&out, r); err != nil || out.String() != "Successfully replaced text in f.txt.\n\n"+wantDiff+"\n" {
		t.Fatalf("render = %q, %v", out.String(), err)
	}
}

func TestEditKeepsCRLFAndBOM(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "win.txt", "\uFEFFalpha\r\nbeta\r\ngamma\r\n")
	mustCall(t, env, "edit", map[string]any{"path": "win.txt", "oldText": "beta\ngamma", "newText": "BETA\nGAMMA\nDELTA"})
	if got := readFile(t, p); got != "\uFEFFalpha\r\nBETA\r\nGAMMA\r\nDELTA\r\n" {
		t.Fatalf("file = %q", got)
	}
	// oldText with CRLF matches too; the new text takes the file's ending.
	mustCall(t, env, "edit", map[string]any{"path": "win.txt", "oldText": "alpha\r\nBETA", "newText": "a\nb"})
	if got := readFile(t, p); got != "\uFEFFa\r\nb\r\nGAMMA\r\nDELTA\r\n" {
		t.Fatalf("file = %q", got)
	}
}

func TestEditFuzzySplicesIntoOriginal(t *testing.T) {
	env, dir := newEnv(t)
	orig := "keep “this” – as is  \n" +
		"say “hello” — world   \n" +
		"it’s\u00A0done\n" +
		"tail  \n"
	p := writeFile(t, dir, "q.txt", orig)
	r := mustCall(t, env, "edit", map[string]any{
		"path":    "q.txt",
		"oldText": "say \"hello\" - world\nit's done\n",
		"newText": "say hi\n",
	})
	if got := text(r); got != "Successfully replaced text in q.txt." {
		t.Fatalf("text = %q", got)
	}
	// Only the matched span changed: smart quotes, dash and trailing
	// spaces elsewhere are untouched.
	if got, want := readFile(t, p), "keep “this” – as is  \nsay hi\ntail  \n"; got != want {
		t.Fatalf("file = %q\nwant %q", got, want)
	}

	// Trailing whitespace in the file, none in oldText.
	p = writeFile(t, dir, "ws.txt", "func a() {   \n\treturn 1  \n}\n")
	mustCall(t, env, "edit", map[string]any{"path": "ws.txt", "oldText": "{\n\treturn 1\n}", "newText": "{\n\treturn 2\n}"})
	if got := readFile(t, p); got != "func a() {\n\treturn 2\n}\n" {
		t.Fatalf("file = %q", got)
	}

	// NFKC: a ligature in the file matches its letters...
	p = writeFile(t, dir, "lig.txt", "the ﬁle name\n")
	mustCall(t, env, "edit", map[string]any{"path": "lig.txt", "oldText": "file name", "newText": "path"})
	if got := readFile(t, p); got != "the path\n" {
		t.Fatalf("file = %q", got)
	}
	// ...but not half of it.
	writeFile(t, dir, "lig2.txt", "ﬁle\n")
	_, err := edit(t, env, map[string]any{"path": "lig2.txt", "oldText": "ile", "newText": "x"})
	wantErr(t, err, tools.CodeFailed,
		"Could not find the exact text in lig2.txt. The old text must match exactly including all whitespace and newlines.")
}

func TestEditErrors(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "dup.txt", "x = 1\nx = 1\n")
	_, err := edit(t, env, map[string]any{"path": "dup.txt", "oldText": "x = 1", "newText": "x = 2"})
	wantErr(t, err, tools.CodeFailed,
		"Found 2 occurrences of the text in dup.txt. The text must be unique. Please provide more context to make it unique.")

	_, err = edit(t, env, map[string]any{"path": "dup.txt", "oldText": "y = 1", "newText": "y = 2"})
	wantErr(t, err, tools.CodeFailed,
		"Could not find the exact text in dup.txt. The old text must match exactly including all whitespace and newlines.")

	writeFile(t, dir, "same.txt", "a “b” c\n")
	_, err = edit(t, env, map[string]any{"path": "same.txt", "oldText": "a “b” c", "newText": "a “b” c"})
	wantErr(t, err, tools.CodeFailed,
		"No changes made to same.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.")

	_, err = edit(t, env, map[string]any{"path": "gone.txt", "oldText": "a", "newText": "b"})
	wantErr(t, err, tools.CodeNotFound, "File not found: "+filepath.Join(dir, "gone.txt")+".")

	_, err = edit(t, env, map[string]any{"path": "dup.txt", "newText": "b"})
	wantErr(t, err, tools.CodeInvalidParams,
		"Missing required parameter: oldText (oldText or old_string). Supply correct parameters before retrying.")
	_, err = edit(t, env, map[string]any{"oldText": " ", "newText": "b"})
	wantErr(t, err, tools.CodeInvalidParams,
		"Missing required parameters: path (path or file_path), oldText (oldText or old_string). Supply correct parameters before retrying.")
	_, err = edit(t, env, map[string]any{"path": "dup.txt", "oldText": "x"})
	wantErr(t, err, tools.CodeInvalidParams,
		"Missing required parameter: newText (newText or new_string). Supply correct parameters before retrying.")
}

func TestEditAliases(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "al.txt", "keep\ndrop me\nkeep\n")
	_, err := edit(t, env, map[string]any{"file_path": "al.txt", "old_string": "drop me\n", "new_string": ""})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "keep\nkeep\n" {
		t.Fatalf("file = %q", got)
	}
	// Structured blocks as oldText/newText.
	_, err = edit(t, env, map[string]any{
		"path":    "al.txt",
		"oldText": []any{map[string]any{"type": "text", "text": "keep\nkeep"}},
		"newText": map[string]any{"text": "kept"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "kept\n" {
		t.Fatalf("file = %q", got)
	}
}

func TestEditMany(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "m.txt", "a1\nb1\nc1\n")
	r := mustCall(t, env, "edit", map[string]any{"path": "m.txt", "edits": []any{
		map[string]any{"oldText": "c1", "newText": "c2"},
		map[string]any{"oldText": "a1", "newText": "a2"},
	}})
	if got := text(r); got != "Successfully replaced 2 block(s) in m.txt." {
		t.Fatalf("text = %q", got)
	}
	if got := readFile(t, p); got != "a2\nb1\nc2\n" {
		t.Fatalf("file = %q", got)
	}
	// A stringified array, plus a top-level pair appended to it.
	mustCall(t, env, "edit", map[string]any{"path": "m.txt", "edits": `[{"oldText":"a2","newText":"A"}]`,
		"oldText": "b1", "newText": "B"})
	if got := readFile(t, p); got != "A\nB\nc2\n" {
		t.Fatalf("file = %q", got)
	}

	_, err := edit(t, env, map[string]any{"path": "m.txt", "edits": []any{
		map[string]any{"oldText": "A\nB", "newText": "x"},
		map[string]any{"oldText": "B\nc2", "newText": "y"},
	}})
	wantErr(t, err, tools.CodeFailed, "edits[0] and edits[1] overlap in m.txt. Merge them into one edit or target disjoint regions.")
	_, err = edit(t, env, map[string]any{"path": "m.txt", "edits": []any{
		map[string]any{"oldText": "A", "newText": "x"},
		map[string]any{"oldText": "zzz", "newText": "y"},
	}})
	wantErr(t, err, tools.CodeFailed,
		"Could not find edits[1] in m.txt. The oldText must match exactly including all whitespace and newlines.")
	_, err = edit(t, env, map[string]any{"path": "m.txt", "edits": []any{
		map[string]any{"oldText": "A", "newText": "x"},
		map[string]any{"oldText": "", "newText": "y"},
	}})
	wantErr(t, err, tools.CodeInvalidParams, "edits[1].oldText must not be empty in m.txt.")
	_, err = edit(t, env, map[string]any{"path": "m.txt", "edits": []any{map[string]any{"oldText": "", "newText": "y"}}})
	wantErr(t, err, tools.CodeInvalidParams, "oldText must not be empty in m.txt.")
	if got := readFile(t, p); got != "A\nB\nc2\n" {
		t.Fatalf("a failed edit changed the file: %q", got)
	}
}
