package fs_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadWholeFileIsRaw(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "notes.md", "# Title\n\tindented\n")
	r := mustCall(t, env, "read", map[string]any{"path": "notes.md"})
	if got := text(r); got != "# Title\n\tindented\n" {
		t.Fatalf("text = %q", got)
	}
	if r.Get("details").Exists() {
		t.Fatalf("details on an untruncated read: %s", r.Get("details").Raw)
	}
	writeFile(t, dir, "nonl.txt", "a\nb")
	if got := text(mustCall(t, env, "read", map[string]any{"path": "nonl.txt"})); got != "a\nb" {
		t.Fatalf("text = %q", got)
	}
}

func TestReadLineCap(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "big.txt", numbered(1, 2500))

	r := mustCall(t, env, "read", map[string]any{"path": "big.txt"})
	want := strings.TrimSuffix(numbered(1, 2000), "\n") +
		"\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
	if got := text(r); got != want {
		t.Fatalf("tail of text = %q", got[len(got)-120:])
	}
	tr := r.Get("details.truncation")
	if tr.Get("truncatedBy").String() != "lines" || tr.Get("outputLines").Int() != 2000 ||
		tr.Get("totalLines").Int() != 2500 || tr.Get("maxLines").Int() != 2000 || tr.Get("maxBytes").Int() != 51200 {
		t.Fatalf("truncation = %s", tr.Raw)
	}

	r = mustCall(t, env, "read", map[string]any{"path": "big.txt", "offset": 2001})
	if got := text(r); got != numbered(2001, 2500) {
		t.Fatalf("second page = %q...", got[:40])
	}
}

func TestReadByteCap(t *testing.T) {
	env, dir := newEnv(t)
	line := strings.Repeat("x", 1023)
	var b strings.Builder
	for i := 0; i < 60; i++ { // 60 lines of 1 KiB: 60 KiB
		b.WriteString(line + "\n")
	}
	writeFile(t, dir, "wide.txt", b.String())
	r := mustCall(t, env, "read", map[string]any{"path": "wide.txt"})
	// 50 lines take 50*1023 + 49 newlines = 51199 bytes; a 51st would pass 51200.
	want := strings.TrimSuffix(strings.Repeat(line+"\n", 50), "\n") +
		"\n\n[Showing lines 1-50 of 60 (50.0KB limit). Use offset=51 to continue.]"
	if got := text(r); got != want {
		t.Fatalf("tail of text = %q", got[len(got)-100:])
	}
	tr := r.Get("details.truncation")
	if tr.Get("truncatedBy").String() != "bytes" || tr.Get("outputLines").Int() != 50 || tr.Get("outputBytes").Int() != 51199 {
		t.Fatalf("truncation = %s", tr.Raw)
	}
	r = mustCall(t, env, "read", map[string]any{"path": "wide.txt", "offset": 51})
	if got := text(r); got != strings.Repeat(line+"\n", 10) {
		t.Fatalf("second page has %d bytes", len(got))
	}
}

func TestReadOffsetLimit(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "ten.txt", numbered(1, 10))
	cases := []struct {
		offset, limit int
		want          string
	}{
		{3, 2, "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"},
		{1, 1, "line 1\n\n[9 more lines in file. Use offset=2 to continue.]"},
		{9, 5, "line 9\nline 10\n"},
		{10, 0, "line 10\n"},
		{0, 10, numbered(1, 10)},
	}
	for _, c := range cases {
		p := map[string]any{"path": "ten.txt"}
		if c.offset > 0 {
			p["offset"] = c.offset
		}
		if c.limit > 0 {
			p["limit"] = c.limit
		}
		r := mustCall(t, env, "read", p)
		if got := text(r); got != c.want {
			t.Errorf("offset=%d limit=%d: %q, want %q", c.offset, c.limit, got, c.want)
		}
	}
	_, err := call(t, env, "read", map[string]any{"path": "ten.txt", "offset": 11})
	wantErr(t, err, tools.CodeInvalidParams, "Offset 11 is beyond end of file (10 lines total). Retry with offset <= 10.")

	// The schema door rejects offset 0 and a non-integer limit.
	for _, bad := range []map[string]any{{"path": "ten.txt", "offset": 0}, {"path": "ten.txt", "limit": 1.5}} {
		_, err := call(t, env, "read", bad)
		if te := tools.AsError(err); te == nil || te.Code != tools.CodeInvalidParams {
			t.Errorf("%v: err = %v", bad, err)
		}
	}
}

func TestReadFirstLineTooLong(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "min.js", "short\n"+strings.Repeat("y", 60*1024)+"\nafter\n")
	r := mustCall(t, env, "read", map[string]any{"path": "min.js", "offset": 2})
	want := "[Line 2 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '2p' min.js | head -c 51200]"
	if got := text(r); got != want {
		t.Fatalf("text = %q", got)
	}
	if !r.Get("details.truncation.firstLineExceedsLimit").Bool() {
		t.Fatalf("details = %s", r.Get("details").Raw)
	}
	// From line 1 the page stops before the long line.
	r = mustCall(t, env, "read", map[string]any{"path": "min.js"})
	if got := text(r); got != "short\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]" {
		t.Fatalf("text = %q", got)
	}
}

func TestReadEmptyBOMAndCRLF(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "empty.txt", "")
	writeFile(t, dir, "bomonly.txt", "\uFEFF")
	writeFile(t, dir, "win.txt", "\uFEFFone\r\ntwo\r\n")
	for name, want := range map[string]string{
		"empty.txt":   "File is empty (0 bytes).",
		"bomonly.txt": "File contains no readable text (3 bytes).",
		"win.txt":     "one\ntwo\n",
	} {
		if got := text(mustCall(t, env, "read", map[string]any{"path": name})); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestReadErrors(t *testing.T) {
	env, dir := newEnv(t)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, env, "read", map[string]any{"path": "sub"})
	wantErr(t, err, tools.CodeFailed, "Read requires a file path, but sub is a directory. List the directory, then read a specific file.")

	_, err = call(t, env, "read", map[string]any{"path": "nope.txt"})
	wantErr(t, err, tools.CodeNotFound, "File not found: "+filepath.Join(dir, "nope.txt")+".")

	const missing = "Missing required parameter: path (path or file_path). Supply correct parameters before retrying."
	for _, p := range []map[string]any{{}, {"path": "  "}, {"file_path": ""}, {"offset": 2}} {
		_, err = call(t, env, "read", p)
		wantErr(t, err, tools.CodeInvalidParams, missing)
		if code := tools.AsError(err).ExitCode(); code != 2 {
			t.Fatalf("exit code %d", code)
		}
	}
}

func TestReadPathForms(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "docs/a b.md", "hello\n")
	home := t.TempDir()
	writeFile(t, home, "h.txt", "home\n")
	t.Setenv("OPENCLAW_HOME", home)

	for _, params := range []map[string]any{
		{"path": "docs/a b.md"},
		{"file_path": "docs/a b.md"},
		{"path": "", "file_path": "docs/a b.md"},
		{"path": "@docs/a b.md"},
		{"path": p},
		{"path": "file://" + filepath.ToSlash(filepath.Join(dir, "docs", "a%20b.md"))},
		{"path": "./docs/../docs/a b.md"},
	} {
		if got := text(mustCall(t, env, "read", params)); got != "hello\n" {
			t.Errorf("%v: %q", params, got)
		}
	}
	if got := text(mustCall(t, env, "read", map[string]any{"path": "~/h.txt"})); got != "home\n" {
		t.Errorf("~ path: %q", got)
	}
	_, err := call(t, env, "read", map[string]any{"path": "file://example.com/etc/passwd"})
	wantErr(t, err, tools.CodeInvalidParams,
		"Invalid file URL: file://example.com/etc/passwd. Use a local file:///absolute/path or a plain path.")
}

func TestReadImage(t *testing.T) {
	env, dir := newEnv(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "pic.bin", buf.String()) // the extension does not matter
	r := mustCall(t, env, "read", map[string]any{"path": "pic.bin"})
	if got := text(r); got != "Read image file [image/png]" {
		t.Fatalf("text = %q", got)
	}
	img := r.Get("content.1")
	if img.Get("type").String() != "image" || img.Get("mimeType").String() != "image/png" ||
		img.Get("data").String() != base64.StdEncoding.EncodeToString(buf.Bytes()) || img.Get("text").Exists() {
		t.Fatalf("image block = %.200s", img.Raw)
	}

	for name, magic := range map[string]string{
		"a.jpg":  "\xFF\xD8\xFF\xE0\x00\x10JFIF",
		"a.gif":  "GIF89a\x01\x00\x01\x00",
		"a.webp": "RIFF\x24\x00\x00\x00WEBPVP8 ",
		"a.png":  "not really a png\n",
	} {
		writeFile(t, dir, name, magic)
		r := mustCall(t, env, "read", map[string]any{"path": name})
		want := map[string]string{"a.jpg": "image/jpeg", "a.gif": "image/gif", "a.webp": "image/webp"}[name]
		if got := r.Get("content.1.mimeType").String(); got != want {
			t.Errorf("%s: mime %q, want %q", name, got, want)
		}
	}

	var out bytes.Buffer
	if err := tools.Lookup("read").Render(&out, r); err != nil {
		t.Fatal(err)
	}
	wantOut := "Read image file [image/png]\n" + fmt.Sprintf("[image/png image, %d bytes]\n", buf.Len())
	if out.String() != wantOut {
		t.Fatalf("render = %q, want %q", out.String(), wantOut)
	}
}

func TestReadRenderText(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "ten.txt", numbered(1, 10))
	r := mustCall(t, env, "read", map[string]any{"path": "ten.txt", "limit": 1})
	var out bytes.Buffer
	if err := tools.Lookup("read").Render(&out, r); err != nil {
		t.Fatal(err)
	}
	if want := "line 1\n\n[9 more lines in file. Use offset=2 to continue.]\n"; out.String() != want {
		t.Fatalf("render = %q", out.String())
	}
}

func TestActionsDeclared(t *testing.T) {
	for _, id := range []string{"read", "write", "edit"} {
		a := tools.Lookup(id)
		if a == nil {
			t.Fatalf("%s not registered", id)
		}
		if a.Where != tools.Local || len(a.Args) != 1 || a.Args[0] != "path" || a.Summary == "" ||
			len(a.Examples) == 0 || a.Render == nil || strings.Contains(a.Summary, "\n") {
			t.Errorf("%s: incomplete declaration %+v", id, a)
		}
		if _, err := tools.CompileSchema(id, a.Schema); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

func BenchmarkReadSmall(b *testing.B) {
	env, dir := newEnv(b)
	writeFile(b, dir, "small.txt", strings.Repeat("0123456789abcdef0123456789abcde\n", 32)) // 1 KiB
	params := []byte(`{"path":"small.txt"}`)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tools.Invoke(ctx, env, tools.Call{ID: "read", Args: params}); err != nil {
			b.Fatal(err)
		}
	}
}
