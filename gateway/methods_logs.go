package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// logs.tail defaults and bounds (§5.2).
const (
	logsDefaultLimit    = 500
	logsDefaultMaxBytes = 250000
	logsMaxLimit        = 5000
	logsMaxBytes        = 1000000
)

// logsTailResult is what `openclaw logs [--follow]` polls.
type logsTailResult struct {
	File      string   `json:"file"`
	Cursor    int64    `json:"cursor"`
	Size      int64    `json:"size"`
	Lines     []string `json:"lines"`
	Truncated bool     `json:"truncated"`
	Reset     bool     `json:"reset"`
}

func init() {
	registerMethod(&tools.Action{
		Method:  "logs.tail",
		Summary: "Read the gateway log from a cursor (poll to follow)",
		Schema: `{"type":"object","properties":{
			"cursor":{"type":"integer","minimum":0,"description":"Byte offset returned by the previous call"},
			"limit":{"type":"integer","minimum":1,"maximum":5000,"description":"Most lines to return (default 500)"},
			"maxBytes":{"type":"integer","minimum":1,"maximum":1000000,"description":"Most bytes to read (default 250000)"}},
			"additionalProperties":false}`,
		Scope: protocol.ScopeRead,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p logsParams) (any, error) {
			s, err := serverFrom(env, "logs.tail")
			if err != nil {
				return nil, err
			}
			limit, maxBytes := p.bounds()
			return readLogSlice(s.log.path, p.Cursor, limit, maxBytes)
		}),
		Render: func(w io.Writer, r gjson.Result) error {
			for _, l := range r.Get("lines").Array() {
				if _, err := fmt.Fprintln(w, l.String()); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// logsParams are the params of logs.tail and logs.follow.
type logsParams struct {
	Cursor   *int64 `json:"cursor"`
	Limit    int    `json:"limit"`
	MaxBytes int64  `json:"maxBytes"`
}

// bounds is the batch size asked for, defaulted and capped.
func (p logsParams) bounds() (limit int, maxBytes int64) {
	limit, maxBytes = p.Limit, p.MaxBytes
	if limit == 0 {
		limit = logsDefaultLimit
	}
	if maxBytes == 0 {
		maxBytes = logsDefaultMaxBytes
	}
	return min(limit, logsMaxLimit), min(maxBytes, logsMaxBytes)
}

// logs.follow streams the gateway log to the calling connection: the
// first batch is the tail (as logs.tail without a cursor, or after the
// given cursor), then each batch as soon as lines are written, as
// `tool.event` frames named "logs.lines" whose payload has the logs.tail
// result shape. The request stays open until the client disconnects or
// the gateway stops; then it answers {"cursor"} (the next cursor to poll
// from). Clients discover it in hello-ok.features.methods and fall back to
// polling logs.tail against gateways without it (the original).
func init() {
	registerMethod(&tools.Action{
		Method:  "logs.follow",
		Summary: "Stream the gateway log as it is written (tool.event \"logs.lines\" frames)",
		Schema: `{"type":"object","properties":{
			"cursor":{"type":"integer","minimum":0,"description":"Byte offset to continue from (default: the tail)"},
			"limit":{"type":"integer","minimum":1,"maximum":5000,"description":"Most lines per batch (default 500)"},
			"maxBytes":{"type":"integer","minimum":1,"maximum":1000000,"description":"Most bytes per batch (default 250000)"}},
			"additionalProperties":false}`,
		Scope: protocol.ScopeRead,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p logsParams) (any, error) {
			s, err := serverFrom(env, "logs.follow")
			if err != nil {
				return nil, err
			}
			if env.Sink == nil {
				return nil, tools.Errorf(tools.CodeUsage, "logs.follow streams events to its caller: call it over a gateway connection")
			}
			limit, maxBytes := p.bounds()
			return followLog(ctx, s, env.Sink, p.Cursor, limit, maxBytes)
		}),
	})
}

// followLog sends batches until ctx ends or the gateway stops. The first
// batch is always sent (even empty): it tells the client the stream is
// live.
func followLog(ctx context.Context, s *Server, sink tools.Sink, cursor *int64, limit int, maxBytes int64) (any, error) {
	first := true
	for {
		wake := s.log.watch.changed() // before reading: a write in between still wakes us
		res, err := readLogSlice(s.log.path, cursor, limit, maxBytes)
		if err != nil {
			return nil, err
		}
		if first || len(res.Lines) > 0 || res.Reset {
			sink.Event("logs.lines", res)
		}
		first = false
		cursor = &res.Cursor
		select {
		case <-wake:
		case <-ctx.Done():
			return map[string]any{"cursor": *cursor}, nil
		case <-s.jobs.Done():
			return map[string]any{"cursor": *cursor}, nil
		}
	}
}

// readLogSlice follows the reference: without a cursor, the last maxBytes;
// with one, everything after it (re-anchored at the tail with reset when
// the file shrank or too much accumulated). Lines cut by the window start
// are dropped; at most limit lines are kept, newest last.
func readLogSlice(path string, cursor *int64, limit int, maxBytes int64) (*logsTailResult, error) {
	res := &logsTailResult{File: path, Lines: []string{}}
	if path == "" {
		return res, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("logs.tail: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("logs.tail: %w", err)
	}
	size := st.Size()
	res.Size, res.Cursor = size, size
	var start int64
	switch {
	case cursor == nil:
		start = max(0, size-maxBytes)
		res.Truncated = start > 0
	case *cursor > size:
		res.Reset = true
		start = max(0, size-maxBytes)
		res.Truncated = start > 0
	default:
		start = *cursor
		if size-start > maxBytes {
			res.Reset, res.Truncated = true, true
			start = size - maxBytes
		}
	}
	if size == 0 || start >= size {
		return res, nil
	}
	readFrom := start
	if start > 0 {
		readFrom = start - 1 // one byte of context: did the window start on a line?
	}
	buf := make([]byte, size-readFrom)
	n, err := f.ReadAt(buf, readFrom)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("logs.tail: %w", err)
	}
	buf = buf[:n]
	text := string(buf)
	if start > 0 {
		text = text[1:]
	}
	lines := strings.Split(text, "\n")
	if start > 0 && buf[0] != '\n' {
		lines = lines[1:]
	}
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > limit {
		lines = lines[len(lines)-limit:]
	}
	res.Lines = append(res.Lines, lines...)
	return res, nil
}
