package commands

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"golang.org/x/text/width"
)

// wideWidth is the tests' own count: East Asian wide and fullwidth runes
// take two columns, others one.
func wideWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// Columns line up on screen with Japanese, accented Latin and emoji cells.
func TestTableAlignsCJKAndEmoji(t *testing.T) {
	var buf bytes.Buffer
	rows := [][]string{
		{"read", "lire", "ok"},
		{"読む", "読み込み", "ok"},
		{"é", "café crème", "ok"},
		{"😀😀", "絵文字", "ok"},
	}
	if err := writeTable(&buf, Palette{}, []string{"tool", "résumé", "status"}, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want header + 4 rows, got:\n%s", buf.String())
	}
	col := -1
	for _, l := range lines {
		i := strings.LastIndex(l, "  ")
		if i < 0 {
			t.Fatalf("no column gap in %q", l)
		}
		start := wideWidth(l[:i+2]) // the text before the last column
		if col == -1 {
			col = start
		} else if start != col {
			t.Errorf("last column starts at display column %d, want %d:\n%s", start, col, buf.String())
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing spaces in %q", l)
		}
	}
	if !strings.HasPrefix(lines[0], "tool") {
		t.Errorf("header must stay as given: %q", lines[0])
	}
}

// Rendering `tools list` for a terminal (the tablewriter cost, in process).
func BenchmarkRenderToolList(b *testing.B) {
	r := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{})
	res := gjson.ParseBytes(mustJSON(listTools()))
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		if err := r.renderToolList(&out, res); err != nil {
			b.Fatal(err)
		}
	}
}

// On a terminal, lines are cut to its width (display columns, CJK counted
// as two), with an ellipsis.
func TestTableFitsTerminalWidth(t *testing.T) {
	var buf bytes.Buffer
	rows := [][]string{{"read", "短い"}, {"write", strings.Repeat("長い説明", 20)}}
	if err := writeTable(&buf, Palette{Width: 30}, []string{"tool", "summary"}, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for _, l := range lines {
		if w := wideWidth(l); w > 30 {
			t.Errorf("line of %d columns on a 30-column terminal: %q", w, l)
		}
	}
	if !strings.HasSuffix(lines[2], "…") || !strings.HasPrefix(lines[2], "write") {
		t.Errorf("the long line is not cut with an ellipsis: %q", lines[2])
	}
	if lines[1] != "read   短い" {
		t.Errorf("a short line is changed: %q", lines[1])
	}
}
