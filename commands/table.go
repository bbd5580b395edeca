package commands

import (
	"io"

	"github.com/openclaw-go/openclaw/tools/table"
)

// writeTable prints a borderless, left-aligned table (tools/table) with
// the header bold when p is on and lines cut to the terminal's width
// (p.Width). (It replaced tablewriter, whose package init cost every
// process ~0.35 ms and each table ~0.4 ms for the three options used.)
func writeTable(w io.Writer, p Palette, header []string, rows [][]string) error {
	return table.Write(w, table.Options{Bold: p.Bold, Width: p.Width}, header, rows)
}
