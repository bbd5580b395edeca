package mcpserve

import (
	"context"
	"errors"
	"io"
	"time"
)

// drainQuiet is how long no call may be running before stdin's end ends
// the session: a request read just before the end is being dispatched.
const drainQuiet = 60 * time.Millisecond

// StdinReader wraps the stdio input so that its end (the client closed
// stdin) ends the session only after the calls in flight answered: the SDK
// drops replies still pending when its reader ends.
func (s *Server) StdinReader(ctx context.Context, r io.Reader) io.ReadCloser {
	return &drainReader{s: s, r: r, ctx: ctx}
}

type drainReader struct {
	s   *Server
	r   io.Reader
	ctx context.Context
}

func (d *drainReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if !errors.Is(err, io.EOF) || n > 0 {
		return n, err
	}
	quiet := time.Duration(0)
	for quiet < drainQuiet {
		select {
		case <-d.ctx.Done():
			return 0, io.EOF
		case <-time.After(10 * time.Millisecond):
		}
		if d.s.inflight.Load() > 0 {
			quiet = 0
		} else {
			quiet += 10 * time.Millisecond
		}
	}
	return 0, io.EOF
}

func (d *drainReader) Close() error { return nil }
