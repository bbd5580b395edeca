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

// Columns line up by display width with emoji ZWJ sequences (👨‍👩‍👧, one
// glyph of two columns, five code points), variation selectors (☀️ with
// VS16 is the two-column emoji form), flags, CJK and combining marks. The
// widths are written out here, not computed: a rune-by-rune count gives
// 👨‍👩‍👧 six columns and ☀️ one.
func TestTableAlignsGraphemeClusters(t *testing.T) {
	cells := []struct {
		s     string
		width int
	}{
		{"👨\u200d👩\u200d👧", 2},
		{"☀\ufe0f", 2},
		{"☀\ufe0f sun", 6},
		{"🇯🇵", 2},
		{"家族 👨\u200d👩\u200d👧", 7},
		{"e\u0301", 1},
		{"plain", 5},
	}
	var rows [][]string
	widest := len("glyph")
	for _, c := range cells {
		rows = append(rows, []string{c.s, "end"})
		widest = max(widest, c.width)
	}
	var buf bytes.Buffer
	if err := writeTable(&buf, Palette{}, []string{"glyph", "next"}, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(cells)+1 {
		t.Fatalf("want header + %d rows, got:\n%s", len(cells), buf.String())
	}
	if want := "glyph" + strings.Repeat(" ", widest-len("glyph")+2) + "next"; lines[0] != want {
		t.Errorf("header %q, want %q", lines[0], want)
	}
	for i, c := range cells {
		want := c.s + strings.Repeat(" ", widest-c.width+2) + "end"
		if lines[i+1] != want {
			t.Errorf("row %q (%d columns):\n got %q\nwant %q", c.s, c.width, lines[i+1], want)
		}
	}
}

// Cutting to the terminal's width keeps whole grapheme clusters: a ZWJ
// sequence is not split into its parts.
func TestTableCutKeepsClusters(t *testing.T) {
	fam := "👨\u200d👩\u200d👧"
	var buf bytes.Buffer
	// "a" + 2 spaces + 👨‍👩‍👧 ×4 = 11 columns; on a 10-column terminal the
	// line keeps 8 columns (one column for "…", one left free): a, 2
	// spaces, two families (the third would need columns 8-9).
	if err := writeTable(&buf, Palette{Width: 10}, []string{"a", "b"}, [][]string{{"a", strings.Repeat(fam, 4)}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if want := "a  " + fam + fam + "…"; lines[1] != want {
		t.Errorf("cut line %q, want %q", lines[1], want)
	}
}
