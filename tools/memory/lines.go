package memory

import (
	"bufio"
	"context"
	"io"
	"strings"
)

// readLines returns count lines from start (1-based) joined by "\n";
// count < 0 means to the end. It streams the file and stops after the last
// wanted line, and never returns more than maxNoteBytes.
func readLines(ctx context.Context, f io.Reader, start, count int) (string, error) {
	br := bufio.NewReader(io.LimitReader(f, maxNoteBytes))
	var out []string
	for no := 1; count < 0 || len(out) < count; no++ {
		if no%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if err == io.EOF {
				break
			}
			return "", err
		}
		if no == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		if no >= start {
			out = append(out, strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
		}
		if err == io.EOF {
			break
		}
	}
	return strings.Join(out, "\n"), nil
}
