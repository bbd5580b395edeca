package fs

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// wholeFileRead is the former whole-file implementation of a text page
// (ReadFile, string, Split), kept as the reference the streaming reader
// must match wherever the counting budget is not exceeded.
func wholeFileRead(data []byte, shown string, offset, limit int) (string, *readDetails, string) {
	if len(data) == 0 {
		return "File is empty (0 bytes).", nil, ""
	}
	s := strings.TrimPrefix(string(data), "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return fmt.Sprintf("File contains no readable text (%d bytes).", len(data)), nil, ""
	}
	lines := strings.Split(s, "\n")
	endsWithNewline := lines[len(lines)-1] == ""
	if endsWithNewline {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	start := max(offset, 1) - 1
	if start >= total {
		return "", nil, fmt.Sprintf("Offset %d is beyond end of file (%d lines total). Retry with offset <= %d.", offset, total, total)
	}
	end := total
	if limit > 0 && start+limit < total {
		end = start + limit
	}
	sel := lines[start:end]
	first := start + 1
	trunc := func(outLines, outBytes int, by string) *truncation {
		size := len(sel) - 1
		for _, l := range sel {
			size += len(l)
		}
		return &truncation{Truncated: true, TruncatedBy: by, TotalLines: len(sel), TotalBytes: size,
			OutputLines: outLines, OutputBytes: outBytes, MaxLines: maxReadLines, MaxBytes: maxReadBytes}
	}
	if len(sel[0]) > maxReadBytes {
		tr := trunc(0, 0, "bytes")
		tr.FirstLineExceedsLimit = true
		return fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, formatSize(len(sel[0])), formatSize(maxReadBytes), first, shellQuote(shown), maxReadBytes), &readDetails{tr}, ""
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
	last := first + n - 1
	switch {
	case by == "lines":
		return fmt.Sprintf("%s\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", out, first, last, total, last+1),
			&readDetails{trunc(n, size, by)}, ""
	case by == "bytes":
		return fmt.Sprintf("%s\n\n[Showing lines %d-%d of %d (%s limit). Use offset=%d to continue.]",
			out, first, last, total, formatSize(maxReadBytes), last+1), &readDetails{trunc(n, size, by)}, ""
	case end < total:
		return fmt.Sprintf("%s\n\n[%d more lines in file. Use offset=%d to continue.]", out, total-end, end+1), nil, ""
	case endsWithNewline:
		return out + "\n", nil, ""
	}
	return out, nil, ""
}

// checkPage compares the streaming page with the reference.
func checkPage(t *testing.T, data []byte, offset, limit int) {
	t.Helper()
	wantText, wantDetails, wantErr := wholeFileRead(data, "f.txt", offset, limit)
	text, details, err := readPage(context.Background(), bufio.NewReaderSize(strings.NewReader(string(data)), 64*1024), "f.txt", offset, limit)
	gotErr := ""
	if err != nil {
		gotErr = err.Error()
	}
	if gotErr != wantErr || text != wantText || !reflect.DeepEqual(details, wantDetails) {
		t.Fatalf("%d bytes, offset %d, limit %d:\n got %.200q %+v %q\nwant %.200q %+v %q",
			len(data), offset, limit, text, details, gotErr, wantText, wantDetails, wantErr)
	}
}

// randomText builds a file from pieces that hit the edge cases: CRLF, lone
// CR, BOM, empty lines, lines around the 50 KiB cap, many short lines.
func randomText(r *rand.Rand) []byte {
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteString("\uFEFF")
	}
	for range r.IntN(40) {
		switch r.IntN(8) {
		case 0:
			b.WriteString(strings.Repeat("x", maxReadBytes-2+r.IntN(5)))
		case 1:
			b.WriteString(strings.Repeat("ab\n", r.IntN(1500)))
		case 2:
			b.WriteString("\r\n")
		case 3:
			b.WriteString("\r")
		case 4:
			b.WriteString("\n\n")
		case 5:
			b.WriteString(strings.Repeat("y", r.IntN(3000)))
		default:
			fmt.Fprintf(&b, "line %d\n", r.IntN(1000))
		}
	}
	return []byte(b.String())
}

// The streaming reader gives exactly the whole-file reader's results.
func TestReadPageMatchesWholeFile(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 4))
	for range 1500 {
		data := randomText(r)
		lines := strings.Count(string(data), "\n") + 2
		offset, limit := 0, 0
		if r.IntN(2) == 0 {
			offset = 1 + r.IntN(lines)
		}
		if r.IntN(2) == 0 {
			limit = 1 + r.IntN(lines)
		}
		checkPage(t, data, offset, limit)
	}
}

func FuzzReadPage(f *testing.F) {
	for _, s := range []string{"", "\uFEFF", "\uFEFF\n", "a\r\r\nb\r", "a\nb", "\n\n\n", "x\r\n\r\ny"} {
		f.Add([]byte(s), uint16(0), uint16(0))
		f.Add([]byte(s), uint16(2), uint16(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, offset, limit uint16) {
		checkPage(t, data, int(offset), int(limit))
	})
}
