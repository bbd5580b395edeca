package fs

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// Read caps: whichever is hit first ends the page.
const (
	maxReadLines = 2000
	maxReadBytes = 50 * 1024
)

//go:embed schema/read.json
var readSchema string

func init() {
	tools.Register(&tools.Action{
		Tool:       "read",
		ReadOnly:   true,
		Idempotent: true,
		Summary:    "Read a text file (raw, paged by offset/limit) or an image",
		Description: "Returns the raw file text, no line numbers. A page stops at " +
			"2000 lines or 50 KB, whichever comes first, and ends with a notice " +
			"naming the offset to continue from. PNG, JPEG, GIF and WebP files " +
			"(recognised by content) come back as an image block; over 5 MiB the " +
			"text names a stored copy as MEDIA:<path> instead. Relative paths " +
			"resolve in the agent workspace.",
		Examples: []string{
			"openclaw read notes.md",
			"openclaw read notes.md --offset 10 --limit 20",
			"openclaw read ~/Pictures/chart.png --json",
			"openclaw read ~/Pictures/chart.png --remote --out chart.png",
		},
		Schema: readSchema,
		Args:   []string{"path"}, PathParams: []string{"path"},
		Scope:  "operator.write",
		Where:  tools.Local,
		Media:  true,                 // images come with a media reference (--out)
		Run:    tools.Typed(runRead), // params decoded once, by the door
		Render: renderRead,
	})
}

func runRead(ctx context.Context, env *tools.Env, a args) (any, error) {
	p, ok := a.path()
	if !ok {
		return nil, missingParams(labelPath)
	}
	t, err := resolve(env, p)
	if err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, t.real)
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, fi, err := openRegular(t, readKind)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A 64 KiB buffer, or less for a small file.
	br := bufio.NewReaderSize(f, int(min(64*1024, fi.Size()+16)))
	head, _ := br.Peek(12)
	if mime := imageMIME(head); mime != "" {
		return readImage(ctx, env, br, fi.Size(), mime, t.shown) // image_media.go
	}
	text, details, err := readPage(ctx, br, t.shown, a.int("offset"), a.int("limit"))
	if err != nil {
		return nil, err
	}
	if details == nil {
		return tools.TextResult(text, nil), nil
	}
	return tools.TextResult(text, details), nil
}

// readDetails is the Classic details object: present only when the page was
// truncated.
type readDetails struct {
	Truncation *truncation `json:"truncation"`
}

// truncation describes how the selected lines (from offset, up to limit)
// were cut.
type truncation struct {
	Truncated             bool   `json:"truncated"`
	TruncatedBy           string `json:"truncatedBy"`
	TotalLines            int    `json:"totalLines"`
	TotalBytes            int    `json:"totalBytes"`
	OutputLines           int    `json:"outputLines"`
	OutputBytes           int    `json:"outputBytes"`
	LastLinePartial       bool   `json:"lastLinePartial"`
	FirstLineExceedsLimit bool   `json:"firstLineExceedsLimit"`
	MaxLines              int    `json:"maxLines"`
	MaxBytes              int    `json:"maxBytes"`
}

// countBudget is how far a read scans past its offset (its page and the
// counting after it). Below it totals are exact; beyond it they are not
// counted and the notice says more lines follow, so a read of a huge file
// costs one page of memory and a bounded scan.
const countBudget = 32 << 20

// readPage renders one page of a text file, streaming it: only the page is
// kept in memory. offset and limit are 1-based and 0 when absent. A
// trailing newline ends the last line rather than starting an empty one,
// so a file of N lines reports N lines. A BOM is dropped and CRLF reads as
// LF. When the counting budget runs out, the details' totals are lower
// bounds.
func readPage(ctx context.Context, br *bufio.Reader, shown string, offset, limit int) (string, *readDetails, error) {
	if _, err := br.Peek(1); err == io.EOF {
		return "File is empty (0 bytes).", nil, nil
	}
	if b, _ := br.Peek(3); string(b) == "\uFEFF" {
		br.Discard(3)
		if _, err := br.Peek(1); err == io.EOF {
			return "File contains no readable text (3 bytes).", nil, nil
		}
	}
	lr := &lineReader{r: br, budget: -1, ctx: ctx}
	start := max(offset, 1) - 1
	beyond := func(total int) error {
		return tools.Errorf(tools.CodeInvalidParams,
			"Offset %d is beyond end of file (%d lines total). Retry with offset <= %d.", offset, total, total)
	}
	for i := range start {
		ok, err := lr.skip()
		if err != nil {
			return "", nil, scanError(err)
		}
		if !ok {
			return "", nil, beyond(i)
		}
	}
	lr.budget = countBudget
	cur, ok, err := lr.next(maxReadBytes + 1)
	if err != nil && err != errBudget {
		return "", nil, scanError(err)
	}
	if !ok {
		return "", nil, beyond(start)
	}
	first := start + 1
	var sel tally
	sel.add(cur.n)
	left := -1 // selected lines not read yet
	if limit > 0 {
		left = limit - 1
	}
	rest := func() error {
		if err == errBudget {
			return nil
		}
		return lr.countRest(&sel, left)
	}

	if cur.n > maxReadBytes {
		size := formatSize(int(cur.n))
		if err == errBudget {
			size = "more than " + formatSize(countBudget)
		}
		if err := rest(); err != nil {
			return "", nil, scanError(err)
		}
		tr := sel.truncation(0, 0, "bytes")
		tr.FirstLineExceedsLimit = true
		return fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
				first, size, formatSize(maxReadBytes), first, shellQuote(shown), maxReadBytes),
			&readDetails{tr}, nil
	}

	out := make([]byte, 0, 4096)
	n, size, by, lastNL, eof := 0, 0, "", false, false
	for {
		if n == maxReadLines {
			by = "lines"
			break
		}
		add := int(min(cur.n, maxReadBytes+1))
		if n > 0 {
			add++
		}
		if err == errBudget || size+add > maxReadBytes {
			by = "bytes"
			break
		}
		if n > 0 {
			out = append(out, '\n')
		}
		out = append(out, cur.text...)
		size += add
		n++
		lastNL = cur.nl
		if left == 0 {
			break
		}
		cur, ok, err = lr.next(maxReadBytes + 1)
		if err != nil && err != errBudget {
			return "", nil, scanError(err)
		}
		if !ok {
			eof, sel.known = true, true
			break
		}
		sel.add(cur.n)
		if left > 0 {
			left--
		}
	}
	if !eof {
		if err := rest(); err != nil {
			return "", nil, scanError(err)
		}
	}
	page := string(out)
	last := first + n - 1
	total := start + sel.lines + sel.after
	switch {
	case by == "lines" && sel.known:
		return fmt.Sprintf("%s\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", page, first, last, total, last+1),
			&readDetails{sel.truncation(n, size, by)}, nil
	case by == "lines":
		return fmt.Sprintf("%s\n\n[Showing lines %d-%d; more lines follow. Use offset=%d to continue.]", page, first, last, last+1),
			&readDetails{sel.truncation(n, size, by)}, nil
	case by == "bytes" && sel.known:
		return fmt.Sprintf("%s\n\n[Showing lines %d-%d of %d (%s limit). Use offset=%d to continue.]",
				page, first, last, total, formatSize(maxReadBytes), last+1),
			&readDetails{sel.truncation(n, size, by)}, nil
	case by == "bytes":
		return fmt.Sprintf("%s\n\n[Showing lines %d-%d; more lines follow (%s limit). Use offset=%d to continue.]",
				page, first, last, formatSize(maxReadBytes), last+1),
			&readDetails{sel.truncation(n, size, by)}, nil
	case !sel.known:
		return fmt.Sprintf("%s\n\n[More lines follow. Use offset=%d to continue.]", page, last+1), nil, nil
	case sel.after > 0:
		return fmt.Sprintf("%s\n\n[%d more lines in file. Use offset=%d to continue.]", page, sel.after, last+1), nil, nil
	case lastNL:
		return page + "\n", nil, nil
	}
	return page, nil, nil
}

// scanError keeps a context error as it is (the door reports it as a
// timeout or an interruption) and gives others the tool's error shape.
func scanError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return tools.AsError(err)
}

// truncation is the Classic details for a page cut after outLines lines
// of outBytes bytes.
func (tl *tally) truncation(outLines, outBytes int, by string) *truncation {
	return &truncation{
		Truncated: true, TruncatedBy: by,
		TotalLines: tl.lines, TotalBytes: int(tl.bytes),
		OutputLines: outLines, OutputBytes: outBytes,
		MaxLines: maxReadLines, MaxBytes: maxReadBytes,
	}
}

// formatSize is the original's size format: 512B, 50.0KB, 1.2MB.
func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
}

// shellQuote quotes a path for the sed hint when it needs quoting.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./~+,:=@%", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
