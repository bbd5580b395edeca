package commands

import (
	"io"
	"strings"
	"text/tabwriter"
)

// writeTable prints a borderless, left-aligned table with the header as
// given (no upper-casing) and two spaces between columns. It uses the
// standard library's tabwriter: tablewriter's width tables cost ~3 ms of
// init on every CLI start, for output only a few commands print.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.TabIndent)
	line := func(cells []string) error {
		clean := make([]string, len(cells))
		for i, c := range cells {
			clean[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
		}
		_, err := io.WriteString(tw, strings.Join(clean, "\t")+"\n")
		return err
	}
	if err := line(header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := line(r); err != nil {
			return err
		}
	}
	return tw.Flush()
}
