package providers

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// maxEventBytes caps one SSE line, so a server that never ends a line
// cannot make us buffer without bound.
const maxEventBytes = 4 << 20

// readSSE calls fn with the data of every server-sent event in r (multi-line
// data joined by "\n"), until EOF, fn returns stop, or ctx is done.
func readSSE(ctx context.Context, r io.Reader, fn func(data string) (stop bool, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventBytes)
	var data []string
	flush := func() (bool, error) {
		if len(data) == 0 {
			return false, nil
		}
		d := strings.Join(data, "\n")
		data = data[:0]
		return fn(d)
	}
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := sc.Text()
		if line == "" {
			if stop, err := flush(); stop || err != nil {
				return err
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(v, " "))
		}
		// event:, id:, retry: and comments carry nothing we need: both
		// APIs repeat the event type inside the data.
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read stream: %w", err)
	}
	_, err := flush()
	return err
}
