package mcpserve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress timing: nothing for work shorter than progressDelay (a
// notification racing the result confuses clients), then at most one
// notification per progressEvery, with a heartbeat when nothing new was
// reported.
const (
	progressDelay     = 250 * time.Millisecond
	progressEvery     = 250 * time.Millisecond
	progressHeartbeat = time.Second
)

// progress is the tools.Sink of one MCP call: the registry's progress and
// events (exec output, fetch bytes, browser steps) become
// notifications/progress when the client sent a progress token.
type progress struct {
	mu      sync.Mutex
	msg     string
	fresh   bool
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// startProgress returns the call's sink; without a progress token it only
// drops what it is told.
func startProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	p := &progress{done: make(chan struct{}), stopped: make(chan struct{})}
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	if token == nil || req.Session == nil {
		close(p.stopped)
		return p
	}
	go p.run(ctx, req.Session, token)
	return p
}

func (p *progress) run(ctx context.Context, ss *mcp.ServerSession, token any) {
	defer close(p.stopped)
	start := time.Now()
	select {
	case <-p.done:
		return
	case <-ctx.Done():
		return
	case <-time.After(progressDelay):
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	n := 0.0
	last := time.Time{}
	for {
		p.mu.Lock()
		msg, fresh := p.msg, p.fresh
		p.fresh = false
		p.mu.Unlock()
		if fresh || time.Since(last) >= progressHeartbeat {
			if !fresh || msg == "" {
				msg = fmt.Sprintf("running for %s", time.Since(start).Round(100*time.Millisecond))
			}
			n++
			last = time.Now()
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg})
		}
		select {
		case <-p.done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// stop ends the notifications before the result is sent.
func (p *progress) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.done) })
	<-p.stopped
}

// Progress implements tools.Sink.
func (p *progress) Progress(msg string, done, total int64) {
	switch {
	case total > 0:
		msg = fmt.Sprintf("%s (%d/%d)", msg, done, total)
	case done > 0:
		msg = fmt.Sprintf("%s (%d)", msg, done)
	}
	p.note(msg)
}

// Event implements tools.Sink: output chunks say how much came.
func (p *progress) Event(name string, payload any) {
	if m, ok := payload.(map[string]any); ok {
		if d, ok := m["data"].(string); ok {
			p.note(fmt.Sprintf("%s: %d bytes", name, len(d)))
			return
		}
	}
	p.note(name)
}

func (p *progress) note(msg string) {
	p.mu.Lock()
	p.msg, p.fresh = msg, true
	p.mu.Unlock()
}
