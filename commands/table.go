package commands

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// writeTable prints a borderless, left-aligned table with the header as
// given (no upper-casing, bold when p is on) and two spaces between
// columns. Columns are sized by display width, so CJK text and emoji line
// up (text/tabwriter counts code points) and colour sequences count
// nothing. Trailing spaces are trimmed from every line; on a terminal
// (p.Width) lines are cut to its width with an ellipsis. (This replaced
// tablewriter, whose package init cost every process ~0.35 ms and each
// table ~0.4 ms for the three options used here.)
func writeTable(w io.Writer, p Palette, header []string, rows [][]string) error {
	flat := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	all := make([][]string, 0, len(rows)+1)
	hdr := make([]string, len(header))
	for i, h := range header {
		hdr[i] = p.Bold(flat.Replace(h))
	}
	all = append(all, hdr)
	for _, r := range rows {
		c := make([]string, len(r))
		for i, s := range r {
			c[i] = flat.Replace(s)
		}
		all = append(all, c)
	}
	var widths []int
	for _, r := range all {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], displayWidth(c))
		}
	}
	var out strings.Builder
	var line strings.Builder
	for _, r := range all {
		line.Reset()
		for i := range widths {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			line.WriteString(c)
			if i < len(widths)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-displayWidth(c)+2))
			}
		}
		s := strings.TrimRight(line.String(), " ")
		if p.Width > 0 && displayWidth(s) > p.Width {
			// The last column is cut, not wrapped, and the line ends before the
			// terminal's last column (no auto-wrap): text, "…", one free column.
			s = truncateWidth(s, p.Width-2) + "…"
		}
		out.WriteString(s)
		out.WriteByte('\n')
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// displayWidth is the number of terminal columns s takes: East Asian wide
// and fullwidth runes (CJK, most emoji) take two, combining marks,
// zero-width and format characters none, ANSI CSI sequences none.
func displayWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if l := csiLen(s[i:]); l > 0 {
			i += l
			continue
		}
		r, size := decodeRune(s[i:])
		n += runeWidth(r)
		i += size
	}
	return n
}

// truncateWidth keeps the longest prefix of s that fits in cols columns,
// with its colour sequences; a colour left on is reset.
func truncateWidth(s string, cols int) string {
	var b strings.Builder
	n, styled := 0, false
	for i := 0; i < len(s); {
		if l := csiLen(s[i:]); l > 0 {
			seq := s[i : i+l]
			b.WriteString(seq)
			styled = seq != "\x1b[0m" && seq != "\x1b[m"
			i += l
			continue
		}
		r, size := decodeRune(s[i:])
		rw := runeWidth(r)
		if n+rw > cols {
			break
		}
		b.WriteString(s[i : i+size])
		n += rw
		i += size
	}
	if styled {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// csiLen is the length of the ANSI CSI sequence (ESC [ … final byte) at
// the start of s, or 0.
func csiLen(s string) int {
	if len(s) < 2 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return i + 1
		}
	}
	return 0
}

func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }

func runeWidth(r rune) int {
	switch {
	case r == 0x200d || r == 0xfe0f || unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r < 0x20 || r == 0x7f:
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
