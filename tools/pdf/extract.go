package pdf

import (
	"context"
	"fmt"
	"io"
	"strings"

	lpdf "github.com/ledongthuc/pdf"
)

// extraction is the text of the selected pages of one PDF.
type extraction struct {
	PageCount int      `json:"pageCount"`
	Pages     []int    `json:"pages"`                // pages extracted
	Skipped   []int    `json:"skipped,omitempty"`    // asked for but past the cap
	Missing   []int    `json:"missing,omitempty"`    // asked for but not in the document
	Empty     []int    `json:"emptyPages,omitempty"` // pages without a text layer
	Text      string   `json:"-"`
	perPage   []string // text of each extracted page
}

// extract reads the text layer of the wanted pages (nil: from page 1) of
// the PDF in f, at most maxPages of them. A file is read through ReaderAt,
// never whole; a malformed file is an error, not a panic.
func extract(ctx context.Context, f io.ReaderAt, size int64, wanted []int, maxPages int) (ex *extraction, err error) {
	defer func() {
		if r := recover(); r != nil { // the parser panics on some broken files
			ex, err = nil, fmt.Errorf("not a readable PDF (%v)", r)
		}
	}()
	r, err := lpdf.NewReader(f, size)
	if err != nil {
		return nil, fmt.Errorf("not a readable PDF (%v)", err)
	}
	ex = &extraction{PageCount: r.NumPage()}
	if wanted == nil {
		for p := 1; p <= ex.PageCount; p++ {
			wanted = append(wanted, p)
		}
	}
	for _, p := range wanted {
		switch {
		case p > ex.PageCount:
			ex.Missing = append(ex.Missing, p)
		case len(ex.Pages) >= maxPages:
			ex.Skipped = append(ex.Skipped, p)
		default:
			ex.Pages = append(ex.Pages, p)
		}
	}
	fonts := map[string]*lpdf.Font{}
	var b strings.Builder
	for _, p := range ex.Pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text, err := pageText(r.Page(p), fonts)
		if err != nil {
			return nil, fmt.Errorf("page %d: %v", p, err)
		}
		ex.perPage = append(ex.perPage, text)
		if text == "" {
			ex.Empty = append(ex.Empty, p)
			continue
		}
		if len(ex.Pages) > 1 {
			fmt.Fprintf(&b, "--- page %d ---\n", p)
		}
		b.WriteString(text)
		b.WriteString("\n")
	}
	ex.Text = strings.TrimRight(b.String(), "\n")
	return ex, nil
}

// pageText is one page's text with blank lines and trailing spaces tidied.
func pageText(pg lpdf.Page, fonts map[string]*lpdf.Font) (string, error) {
	if pg.V.IsNull() {
		return "", nil
	}
	raw, err := pg.GetPlainText(fonts)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, l := range strings.Split(raw, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n"), nil
}
