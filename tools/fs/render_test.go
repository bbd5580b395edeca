package fs_test

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

func render(t *testing.T, id string, r gjson.Result) string {
	t.Helper()
	var out bytes.Buffer
	if err := tools.Lookup(id).Render(&out, r); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// A binary file read on a terminal prints a notice, never its bytes; the
// JSON result is the same as before (the text block holds the content).
func TestReadRenderBinary(t *testing.T) {
	env, dir := newEnv(t)
	var b strings.Builder
	for i := range 256 {
		b.WriteByte(byte(i))
	}
	b.WriteString("\x1b]52;c;ZXZpbA==\x07\x00")
	writeFile(t, dir, "blob.bin", b.String())
	r := mustCall(t, env, "read", map[string]any{"path": "blob.bin"})
	if !strings.Contains(text(r), "\x1b]52") {
		t.Fatalf("the JSON result lost the content: %q", text(r))
	}
	got := render(t, "read", r)
	want := "binary file (" + strconv.Itoa(len(text(r))) + " bytes, application/octet-stream); not shown on a terminal, use --json to get it\n"
	if got != want {
		t.Fatalf("render = %q\nwant %q", got, want)
	}

	// Text with a stray escape sequence prints, with its control bytes made
	// visible instead of sent to the terminal.
	writeFile(t, dir, "log.txt", "ok \x1b[31mred\x1b[0m\tdone\r\n")
	r = mustCall(t, env, "read", map[string]any{"path": "log.txt"})
	if got := render(t, "read", r); got != "ok \\x1b[31mred\\x1b[0m\tdone\n" {
		t.Fatalf("render = %q", got)
	}
}

// On a terminal edit shows the diff it computed, and write counts "1 byte";
// the JSON results keep the original's texts.
func TestEditWriteRender(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "f.txt", "one\ntwo\nthree\n")
	r := mustCall(t, env, "edit", map[string]any{"path": "f.txt", "oldText": "two", "newText": "TWO"})
	want := "Successfully replaced text in f.txt.\n\n 1 one\n-2 two\n+2 TWO\n 3 three\n"
	if got := render(t, "edit", r); got != want {
		t.Fatalf("edit render = %q\nwant %q", got, want)
	}
	r = mustCall(t, env, "write", map[string]any{"path": "one.txt", "content": "x"})
	if got := text(r); got != "Successfully wrote 1 bytes to one.txt" {
		t.Fatalf("JSON text = %q (the original's wording)", got)
	}
	if got := render(t, "write", r); got != "Successfully wrote 1 byte to one.txt\n" {
		t.Fatalf("write render = %q", got)
	}
	r = mustCall(t, env, "write", map[string]any{"path": filepath.Join(dir, "two.txt"), "content": "xy"})
	if got := render(t, "write", r); !strings.HasPrefix(got, "Successfully wrote 2 bytes to ") {
		t.Fatalf("write render = %q", got)
	}
}
