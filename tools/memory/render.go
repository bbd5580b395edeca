package memory

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// renderSearch prints one block per hit: where, score, and the snippet's
// first lines.
func renderSearch(w io.Writer, res gjson.Result) error {
	hits := res.Get("details.results").Array()
	if len(hits) == 0 {
		_, err := fmt.Fprintln(w, "No matches.")
		return err
	}
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s:%d-%d  (score %.3f)\n", h.Get("path").String(),
			h.Get("startLine").Int(), h.Get("endLine").Int(), h.Get("score").Float())
		lines := strings.Split(h.Get("snippet").String(), "\n")
		if len(lines) > 4 {
			lines = append(lines[:4], "…")
		}
		for _, l := range lines {
			if _, err := fmt.Fprintln(w, "  "+l); err != nil {
				return err
			}
		}
	}
	return nil
}

// renderGet prints the lines as they are.
func renderGet(w io.Writer, res gjson.Result) error {
	_, err := fmt.Fprintln(w, res.Get("details.text").String())
	return err
}
