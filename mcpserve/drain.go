package mcpserve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
)

// drainQuiet is how long nothing may be pending before stdin's end ends
// the session; drainIdle bounds the wait for replies when no handler runs
// (a request the SDK answers without a handler is answered at once).
const (
	drainQuiet = 30 * time.Millisecond
	drainIdle  = 2 * time.Second
)

// Stdio returns the stdio input and output for the SDK's IOTransport,
// wrapped so that the input's end (the client closed stdin) ends the
// session only after every request read was answered: the SDK drops
// replies still pending when its reader ends.
func (s *Server) Stdio(ctx context.Context, r io.Reader, w io.Writer) (io.ReadCloser, io.WriteCloser) {
	d := &drain{s: s, ctx: ctx}
	return &drainReader{d: d, r: r}, &drainWriter{d: d, w: w}
}

type drain struct {
	s                  *Server
	ctx                context.Context
	requests, answered atomic.Int64
}

type drainReader struct {
	d    *drain
	r    io.Reader
	line []byte
}

type drainWriter struct {
	d    *drain
	w    io.Writer
	line []byte
}

// lines calls f on each complete line in p (buf keeps the partial one).
func lines(buf *[]byte, p []byte, f func([]byte)) {
	*buf = append(*buf, p...)
	for {
		i := bytes.IndexByte(*buf, '\n')
		if i < 0 {
			return
		}
		f((*buf)[:i])
		*buf = (*buf)[i+1:]
	}
}

func (r *drainReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		lines(&r.line, p[:n], func(l []byte) {
			if m := gjson.GetBytes(l, "method"); m.Exists() && gjson.GetBytes(l, "id").Exists() {
				r.d.requests.Add(1)
			}
		})
	}
	if !errors.Is(err, io.EOF) || n > 0 {
		return n, err
	}
	d := r.d
	quiet, idle := time.Duration(0), time.Duration(0)
	for quiet < drainQuiet && idle < drainIdle {
		select {
		case <-d.ctx.Done():
			return 0, io.EOF
		case <-time.After(5 * time.Millisecond):
		}
		pending := d.answered.Load() < d.requests.Load()
		running := d.s.inflight.Load() > 0
		switch {
		case !pending:
			quiet += 5 * time.Millisecond
		case running:
			quiet, idle = 0, 0
		default:
			quiet = 0
			idle += 5 * time.Millisecond
		}
	}
	return 0, io.EOF
}

func (r *drainReader) Close() error { return nil }

func (w *drainWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	lines(&w.line, p[:n], func(l []byte) {
		if gjson.GetBytes(l, "id").Exists() && !gjson.GetBytes(l, "method").Exists() {
			w.d.answered.Add(1)
		}
	})
	return n, err
}

func (w *drainWriter) Close() error { return nil }
