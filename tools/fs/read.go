package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
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
		Tool:    "read",
		Summary: "Read a text file (raw, paged by offset/limit) or an image",
		Description: "Returns the raw file text, no line numbers. A page stops at " +
			"2000 lines or 50 KB, whichever comes first, and ends with a notice " +
			"naming the offset to continue from. PNG, JPEG, GIF and WebP files " +
			"(recognised by content) come back as an image block. Relative paths " +
			"resolve in the agent workspace.",
		Examples: []string{
			"openclaw read notes.md",
			"openclaw read notes.md --offset 10 --limit 20",
			"openclaw read ~/Pictures/chart.png --json",
		},
		Schema: readSchema,
		Args:   []string{"path"}, PathParams: []string{"path"},
		Scope:  "operator.write",
		Where:  tools.Local,
		Run:    runRead,
		Render: renderRead,
	})
}

func runRead(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
	a, err := decodeArgs(params)
	if err != nil {
		return nil, err
	}
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
	data, err := readAll(f, fi.Size())
	f.Close()
	if err != nil {
		return nil, err
	}
	if mime := imageMIME(data); mime != "" {
		return &tools.Result{Content: []tools.Block{
			tools.TextBlock(fmt.Sprintf("Read image file [%s]", mime)),
			tools.ImageBlock(data, mime),
		}}, nil
	}
	text, details, err := readText(data, t.shown, a.int("offset"), a.int("limit"))
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

// readText renders one page of a text file. offset and limit are 1-based
// and 0 when absent. A trailing newline ends the last line rather than
// starting an empty one, so a file of N lines reports N lines.
func readText(data []byte, shown string, offset, limit int) (string, *readDetails, error) {
	if len(data) == 0 {
		return "File is empty (0 bytes).", nil, nil
	}
	s := strings.TrimPrefix(string(data), "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return fmt.Sprintf("File contains no readable text (%d bytes).", len(data)), nil, nil
	}
	lines := strings.Split(s, "\n")
	endsWithNewline := lines[len(lines)-1] == ""
	if endsWithNewline {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	start := max(offset, 1) - 1
	if start >= total {
		return "", nil, tools.Errorf(tools.CodeInvalidParams,
			"Offset %d is beyond end of file (%d lines total). Retry with offset <= %d.", offset, total, total)
	}
	end := total
	if limit > 0 && start+limit < total {
		end = start + limit
	}
	sel := lines[start:end]
	first := start + 1

	if len(sel[0]) > maxReadBytes {
		tr := newTruncation(sel, 0, 0, "bytes")
		tr.FirstLineExceedsLimit = true
		return fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
				first, formatSize(len(sel[0])), formatSize(maxReadBytes), first, shellQuote(shown), maxReadBytes),
			&readDetails{tr}, nil
	}

	n, size, by := 0, 0, ""
	for ; n < len(sel); n++ {
		if n == maxReadLines {
			by = "lines"
			break
		}
		add := len(sel[n])
		if n > 0 {
			add++
		}
		if size+add > maxReadBytes {
			by = "bytes"
			break
		}
		size += add
	}
	out := strings.Join(sel[:n], "\n")
	switch {
	case by == "lines":
		last := first + n - 1
		return fmt.Sprintf("%s\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", out, first, last, total, last+1),
			&readDetails{newTruncation(sel, n, size, by)}, nil
	case by == "bytes":
		last := first + n - 1
		return fmt.Sprintf("%s\n\n[Showing lines %d-%d of %d (%s limit). Use offset=%d to continue.]",
				out, first, last, total, formatSize(maxReadBytes), last+1),
			&readDetails{newTruncation(sel, n, size, by)}, nil
	case end < total:
		return fmt.Sprintf("%s\n\n[%d more lines in file. Use offset=%d to continue.]", out, total-end, end+1), nil, nil
	case endsWithNewline:
		return out + "\n", nil, nil
	}
	return out, nil, nil
}

func newTruncation(sel []string, outLines, outBytes int, by string) *truncation {
	size := len(sel) - 1
	for _, l := range sel {
		size += len(l)
	}
	return &truncation{
		Truncated: true, TruncatedBy: by,
		TotalLines: len(sel), TotalBytes: size,
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
