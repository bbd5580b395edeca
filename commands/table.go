package commands

import (
	"io"
	"strings"

	"github.com/clipperhouse/displaywidth"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// writeTable prints a borderless, left-aligned table (tablewriter) with the
// header as given (bold when p is on), two spaces between columns, columns
// sized by display width, and lines cut to the terminal's width (p.Width).
//
// tablewriter is pinned at v1.1.2: it measures a cell as grapheme clusters
// (clipperhouse/displaywidth), so 👨‍👩‍👧 and ☀️ take two columns; v1.1.3 to
// v1.1.5 add up rune widths (6 and 1).
func writeTable(w io.Writer, p Palette, header []string, rows [][]string) error {
	hdr := make([]string, len(header))
	for i, h := range header {
		hdr[i] = p.Bold(flatCell(h))
	}
	var buf strings.Builder
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowTop: tw.Off, ShowBottom: tw.Off, ShowHeaderLine: tw.Off, ShowFooterLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithEastAsian(tw.Off), // ambiguous-width runes take one column, as truncate counts them
	)
	t.Header(hdr)
	for _, r := range rows {
		c := make([]string, len(header))
		for i := range c {
			if i < len(r) {
				c[i] = flatCell(r[i])
			}
		}
		if err := t.Append(c); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		// Every cell is padded by one space each side: the first column's
		// left pad goes, the pads between columns make the two-space gap.
		line = strings.TrimPrefix(strings.TrimRight(line, " \n"), " ")
		if p.Width > 0 && lineWidth(line) > p.Width {
			line = truncateWidth(line, p.Width-2) + "…" // the last column is cut, not wrapped
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	_, err := io.WriteString(w, out.String())
	return err
}

var cellFlattener = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// flatCell keeps a cell on one line: a table row is one line of output.
func flatCell(s string) string { return cellFlattener.Replace(s) }

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
