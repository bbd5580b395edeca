package memory

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// renderSearch prints one block per hit: where, score, and the snippet's
// first lines.
func renderSearch(w io.Writer, res gjson.Result) error {
	if warn := res.Get("details.warning").String(); warn != "" {
		fmt.Fprintln(w, "warning: "+warn)
	}
	hits := res.Get("details.results").Array()
	if len(hits) == 0 {
		_, err := fmt.Fprintln(w, "No matches.")
		return err
	}
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s:%d-%d  (score %s)\n", h.Get("path").String(),
			h.Get("startLine").Int(), h.Get("endLine").Int(), scoreText(h.Get("score").Float()))
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

// scoreText shows a score to three decimals, or to two significant
// digits when it is smaller than that: keyword-only scores of words found
// in most notes are tiny (2e-06), and "0.000" would hide both the score
// and the order it gives.
func scoreText(f float64) string {
	if f == 0 || math.Abs(f) >= 0.0005 {
		return strconv.FormatFloat(f, 'f', 3, 64)
	}
	return strconv.FormatFloat(f, 'g', 2, 64)
}

// renderGet prints the lines as they are.
func renderGet(w io.Writer, res gjson.Result) error {
	_, err := fmt.Fprintln(w, res.Get("details.text").String())
	return err
}

// renderIndex prints what the sync did and how the chunks are searchable.
func renderIndex(w io.Writer, res gjson.Result) error {
	d := res.Get("details")
	fmt.Fprintf(w, "%d notes: %d indexed (%d chunks), %d unchanged, %d removed\n", d.Get("files").Int(),
		d.Get("indexed").Int(), d.Get("chunks").Int(), d.Get("unchanged").Int(), d.Get("removed").Int())
	if e := d.Get("embeddings"); e.Exists() {
		fmt.Fprintf(w, "embeddings %s/%s: %d chunks embedded in %d requests\n", d.Get("provider").String(),
			d.Get("model").String(), e.Get("embedded").Int(), e.Get("requests").Int())
	}
	if warn := d.Get("warning").String(); warn != "" {
		fmt.Fprintln(w, "warning: "+warn)
	}
	_, err := fmt.Fprintln(w, "index: "+d.Get("path").String())
	return err
}
