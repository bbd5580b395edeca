package commands

import (
	"io"
	"strings"

	"github.com/clipperhouse/displaywidth"

	"github.com/openclaw-go/openclaw/texttable"
)

// writeTable prints a texttable with the header as given (bold when p is
// on), lines cut to the terminal's width (p.Width).
func writeTable(w io.Writer, p Palette, header []string, rows [][]string) error {
	hdr := make([]string, len(header))
	for i, h := range header {
		hdr[i] = p.Bold(texttable.Flat(h))
	}
	lines, err := texttable.Lines(hdr, rows)
	if err != nil {
		return err
	}
	var out strings.Builder
	for _, line := range lines {
		if p.Width > 0 && lineWidth(line) > p.Width {
			line = truncateWidth(line, p.Width-2) + "…" // the last column is cut, not wrapped
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	_, err = io.WriteString(w, out.String())
	return err
}

// flatCell keeps a cell on one line: a table row is one line of output.
func flatCell(s string) string { return texttable.Flat(s) }

// lineWidth is the number of terminal columns s takes, colour sequences
// counting none.
func lineWidth(s string) int {
	n := 0
	for s != "" {
		if l := csiLen(s); l > 0 {
			s = s[l:]
			continue
		}
		g := nextGrapheme(s)
		n += displaywidth.String(g)
		s = s[len(g):]
	}
	return n
}

// truncateWidth keeps the longest prefix of s that fits in cols columns,
// whole grapheme clusters with their colour sequences; a colour left on is
// reset.
func truncateWidth(s string, cols int) string {
	var b strings.Builder
	n, styled := 0, false
	for s != "" {
		if l := csiLen(s); l > 0 {
			seq := s[:l]
			b.WriteString(seq)
			styled = seq != "\x1b[0m" && seq != "\x1b[m"
			s = s[l:]
			continue
		}
		g := nextGrapheme(s)
		gw := displaywidth.String(g)
		if n+gw > cols {
			break
		}
		b.WriteString(g)
		n += gw
		s = s[len(g):]
	}
	if styled {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// nextGrapheme is the grapheme cluster s starts with, stopping before an
// escape so that colour sequences are never inside a cluster.
func nextGrapheme(s string) string {
	if i := strings.IndexByte(s, 0x1b); i > 0 {
		s = s[:i]
	} else if i == 0 {
		return s[:1] // a lone ESC that starts no CSI sequence
	}
	g := displaywidth.StringGraphemes(s)
	g.Next()
	return g.Value()
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
