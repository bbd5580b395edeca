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
// the PDF in f, at most maxPages of them, within the caps of lim. A file is
// read through ReaderAt, never whole, and every read honours ctx; a
// malformed file is an error, not a panic; a cap hit is a *pageCapError.
func extract(ctx context.Context, f io.ReaderAt, size int64, wanted []int, maxPages int, lim limits) (ex *extraction, err error) {
	defer func() {
		if r := recover(); r != nil { // the parser panics on some broken files
			ex, err = nil, fmt.Errorf("not a readable PDF (%v)", r)
			if ctx.Err() != nil {
				err = ctx.Err()
			}
		}
	}()
	r, err := lpdf.NewReader(ctxReaderAt{ctx, f}, size)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("not a readable PDF (%v)", err)
	}
	ex = &extraction{PageCount: r.NumPage()}
	if wanted == nil { // every page, as far as a page range may reach (/Count can lie)
		for p := 1; p <= min(ex.PageCount, maxPageRange); p++ {
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
	walk := &textWalk{ctx: ctx, lim: lim, meter: &meter{ctx: ctx, lim: lim}}
	root := r.Trailer().Key("Root").Key("Pages")
	var b strings.Builder
	for _, p := range ex.Pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pg, err := findPage(ctx, root, p)
		if err == nil {
			var text string
			if text, err = walk.pageText(pg); err == nil {
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
				continue
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if c, ok := asCap(err); ok {
			return nil, &pageCapError{page: p, cap: c}
		}
		return nil, fmt.Errorf("page %d: %v", p, err)
	}
	ex.Text = strings.TrimRight(b.String(), "\n")
	return ex, nil
}

// pageCapError is a cap hit on a page.
type pageCapError struct {
	page int
	cap  *capError
}

func (e *pageCapError) Error() string { return fmt.Sprintf("page %d: %v", e.page, e.cap) }

// ctxReaderAt fails every read once ctx is done, so that the library's
// parsing (which takes no context) stops at its next read of the file.
type ctxReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(p, off)
}
