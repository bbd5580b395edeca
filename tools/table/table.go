// Package table prints the borderless, left-aligned tables of human
// output: the header as given (bold when asked), two spaces between
// columns, columns sized by display width so CJK text and emoji line up
// (text/tabwriter counts code points) and colour sequences count nothing.
// Action renderers (tools.Renderer) and the CLI share it.
package table

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Options change how a table prints; the zero value is plain.
type Options struct {
	// Bold styles a header cell (nil: as given).
	Bold func(string) string
	// Width is the terminal's width: longer lines are cut with an
	// ellipsis. 0 leaves lines whole.
	Width int
}

// Write prints header and rows. Trailing spaces are trimmed from every
// line; with o.Width lines are cut to the terminal's width, leaving its
// last column free (no auto-wrap): text, "…".
func Write(w io.Writer, o Options, header []string, rows [][]string) error {
	flat := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	all := make([][]string, 0, len(rows)+1)
	hdr := make([]string, len(header))
	for i, h := range header {
		hdr[i] = flat.Replace(h)
		if o.Bold != nil {
			hdr[i] = o.Bold(hdr[i])
		}
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
			widths[i] = max(widths[i], DisplayWidth(c))
		}
	}
	var out, line strings.Builder
	for _, r := range all {
		line.Reset()
		for i := range widths {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			line.WriteString(c)
			if i < len(widths)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-DisplayWidth(c)+2))
			}
		}
		s := strings.TrimRight(line.String(), " ")
		if o.Width > 0 && DisplayWidth(s) > o.Width {
			s = truncateWidth(s, o.Width-2) + "…" // the last column is cut, not wrapped
		}
		out.WriteString(s)
		out.WriteByte('\n')
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// DisplayWidth is the number of terminal columns s takes: East Asian wide
// and fullwidth runes (CJK, most emoji) take two, combining marks,
// zero-width and format characters none, ANSI CSI sequences none.
func DisplayWidth(s string) int {
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
