// Package texttable lays out the borderless tables the CLI and the gateway
// print for people: header as given, left-aligned, two spaces between
// columns, columns sized by display width. It is the one place tablewriter
// is configured, so every table looks the same wherever it is printed.
//
// tablewriter is pinned at v1.1.2: it measures a cell as grapheme clusters
// (clipperhouse/displaywidth), so 👨‍👩‍👧 and ☀️ take two columns; v1.1.3 to
// v1.1.5 add up rune widths (6 and 1).
package texttable

import (
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

var cellFlattener = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// Flat keeps a cell on one line: a table row is one line of output.
func Flat(s string) string { return cellFlattener.Replace(s) }

// Lines renders the table and returns its lines without trailing spaces or
// newlines. Rows shorter than the header are padded with empty cells.
func Lines(header []string, rows [][]string) ([]string, error) {
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
		tablewriter.WithEastAsian(tw.Off), // ambiguous-width runes take one column
	)
	hdr := make([]string, len(header))
	for i, h := range header {
		hdr[i] = Flat(h)
	}
	t.Header(hdr)
	for _, r := range rows {
		c := make([]string, max(len(header), len(r)))
		for i := range c {
			if i < len(r) {
				c[i] = Flat(r[i])
			}
		}
		if err := t.Append(c); err != nil {
			return nil, err
		}
	}
	if err := t.Render(); err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		// Every cell is padded by one space each side: the first column's
		// left pad goes, the pads between columns make the two-space gap.
		out = append(out, strings.TrimPrefix(strings.TrimRight(line, " \n"), " "))
	}
	return out, nil
}
