package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// logsFollow is `openclaw logs --follow`: a stream (logs.follow) where the
// gateway offers one, else logs.tail polled every --interval (the original
// gateway). Either way the cursor carries across reconnects, so nothing is
// printed twice. Ctrl-C (or SIGTERM) exits 130.
func (r *runtime) logsFollow(c *cli.Context, params map[string]any) error {
	t, err := r.target(c)
	if err != nil {
		return err
	}
	sigCtx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(sigCtx)
	defer cancel()
	f := &logFollower{r: r, c: c, params: params, cancel: cancel}
	sess := client.Connect(ctx, client.Options{
		URL: t.URL, Token: t.Token, Password: t.Password,
		ClientID: "cli", ClientMode: "cli", Version: Version,
		Scopes:  []string{protocol.ScopeRead},
		OnEvent: f.onEvent,
		OnDisconnect: func(err error, retryIn time.Duration) {
			fmt.Fprintf(r.stderr, "openclaw logs: %s; reconnecting in %s\n", strings.TrimRight(err.Error(), ". "), roundDelay(retryIn))
		},
	}, nil)
	defer sess.Close()
	err = f.loop(ctx, sess, c.Duration("interval"))
	if werr := f.writeErr(); werr != nil {
		return werr // stdout closed (e.g. `| head`): stop, as tail -f does
	}
	if sigCtx.Err() != nil {
		return tools.Errorf(tools.CodeInterrupted, "interrupted")
	}
	return err
}

// roundDelay prints a reconnect delay as a person would say it: "2s",
// "500ms", never "2.263s".
func roundDelay(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// logFollower prints batches from either path and keeps the cursor.
type logFollower struct {
	r      *runtime
	c      *cli.Context
	params map[string]any
	cancel context.CancelFunc

	mu     sync.Mutex
	cursor *int64
	werr   error
	noFlow bool // the gateway refused logs.follow: poll instead
}

func (f *logFollower) loop(ctx context.Context, sess *client.Session, interval time.Duration) error {
	for {
		conn, err := sess.Wait(ctx)
		if err != nil {
			return err
		}
		if f.canStream(conn) {
			_, err = conn.Call(ctx, "logs.follow", f.request())
			var ce *client.CallError
			if ctx.Err() == nil && errors.As(err, &ce) && ce.Code == protocol.ErrInvalidRequest {
				f.mu.Lock()
				f.noFlow = true // refused (unknown method, params): poll from here on
				f.mu.Unlock()
				continue
			}
			// Answered (the gateway is stopping) or failed: this connection
			// is ending; wait for it so the next round gets a fresh one.
			select {
			case <-conn.Done():
			case <-ctx.Done():
			}
		} else {
			f.poll(ctx, conn, interval)
		}
		if ctx.Err() != nil {
			return nil
		}
		// The connection ended (the session reconnects) or streaming was
		// refused: go round with the same cursor.
	}
}

// canStream: the gateway lists logs.follow in hello-ok.features.methods.
func (f *logFollower) canStream(conn *client.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := conn.Hello()
	return !f.noFlow && h != nil && slices.Contains(h.Features.Methods, "logs.follow")
}

// request is the params with the cursor reached so far.
func (f *logFollower) request() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := make(map[string]any, len(f.params)+1)
	for k, v := range f.params {
		p[k] = v
	}
	if f.cursor != nil {
		p["cursor"] = *f.cursor
	}
	return p
}

// poll calls logs.tail every interval until the connection or ctx ends.
func (f *logFollower) poll(ctx context.Context, conn *client.Conn, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		res, err := conn.Call(ctx, "logs.tail", f.request())
		if err == nil {
			f.batch(gjson.ParseBytes(res))
		}
		select {
		case <-ctx.Done():
			return
		case <-conn.Done():
			return
		case <-tick.C:
		}
	}
}

// onEvent takes the stream's batches: tool.event frames named logs.lines.
func (f *logFollower) onEvent(ev protocol.Event) {
	if ev.Event != "tool.event" {
		return
	}
	v := gjson.ParseBytes(ev.Payload)
	if v.Get("name").Str != "logs.lines" {
		return
	}
	f.batch(v.Get("payload"))
}

// batch prints one logs.tail-shaped result and advances the cursor.
func (f *logFollower) batch(v gjson.Result) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.werr != nil {
		return
	}
	if err := f.r.printLogLines(f.c, v); err != nil {
		f.werr = fmt.Errorf("logs: write output: %w", err)
		f.cancel()
		return
	}
	if cur := v.Get("cursor"); cur.Exists() {
		n := cur.Int()
		f.cursor = &n
	}
}

func (f *logFollower) writeErr() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.werr
}
