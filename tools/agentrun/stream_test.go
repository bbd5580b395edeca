package agentrun_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/protocol"
)

// countingProxy forwards loopback TCP connections to the gateway and
// counts the bytes the gateway sends back: what a connected operator
// really receives, frames and all.
type countingProxy struct {
	ln   net.Listener
	down atomic.Int64
}

func startCountingProxy(t *testing.T, gatewayURL string) (string, *countingProxy) {
	t.Helper()
	host := strings.TrimPrefix(gatewayURL, "ws://")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", host)
			if err != nil {
				in.Close()
				continue
			}
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(countingWriter{in, &p.down}, out); in.Close() }()
		}
	}()
	return "ws://" + ln.Addr().String(), p
}

// bytes is how many bytes the gateway has sent through the proxy so far.
func (p *countingProxy) bytes() int64 { return p.down.Load() }

// countingWriter counts what passes as it passes.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// A long answer streamed in thousands of model deltas reaches an operator
// connected with read scope in bytes linear in the answer: every agent
// assistant event carries only new text (their deltas add up to the answer
// exactly), every chat delta event carries deltaText (adding up to the
// answer too) and a cumulative message only when the text has doubled
// since the last one (so all of them add up to less than twice the
// answer), the final chat event the answer once, and the task event of
// the job's end its result (the answer once more). The bound asserted, six
// times the answer plus 1 KiB per event (of any kind), is what that design
// guarantees; before, each delta sent two events with the whole text so
// far (a 40 KB answer in 4,000 deltas: about 160 MB).
func TestStreamedAnswerBytesAreLinear(t *testing.T) {
	const pieces = 4000
	answer := strings.Repeat("0123456789", pieces) // 40,000 bytes, 10 per delta
	m := &scripted{pieces: pieces, script: func(req gjson.Result) reply { return reply{text: answer} }}
	url, _ := flowGateway(t, m, nil)
	purl, proxy := startCountingProxy(t, url)

	var mu sync.Mutex
	var agentDeltas, chatDeltas strings.Builder
	var snapshots, events, cumulative, noDeltaText int
	final := make(chan string, 1)
	obs, err := client.Dial(context.Background(), client.Options{URL: purl, Token: token, Scopes: []string{protocol.ScopeRead},
		OnEvent: func(ev protocol.Event) {
			v := gjson.ParseBytes(ev.Payload)
			mu.Lock()
			defer mu.Unlock()
			events++
			switch ev.Event {
			case "agent":
				if v.Get("stream").String() == "assistant" {
					if v.Get("data.text").Exists() {
						cumulative++
					}
					agentDeltas.WriteString(v.Get("data.delta").String())
				}
			case "chat":
				switch v.Get("state").String() {
				case "delta":
					if !v.Get("deltaText").Exists() {
						noDeltaText++
					}
					chatDeltas.WriteString(v.Get("deltaText").String())
					snapshots += len(v.Get("message.content.0.text").String())
				default:
					select {
					case final <- v.Get("message.content.0.text").String():
					default:
					}
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	if err := obs.SyncEvents(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := proxy.bytes()
	caller := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := caller.CallWith(ctx, "agent", map[string]any{"message": "say it long", "idempotencyKey": "long-1"}, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "result.payloads.0.text").String(); got != answer {
		t.Fatalf("final answer: %d bytes, want %d", len(got), len(answer))
	}
	select {
	case text := <-final:
		if text != answer {
			t.Fatalf("chat final message: %d bytes, want the answer's %d", len(text), len(answer))
		}
	case <-obs.Done():
		t.Fatalf("the observer was disconnected: %v (after %d bytes)", obs.Err(), proxy.bytes()-before)
	case <-ctx.Done():
		t.Fatalf("no chat final event (after %d bytes)", proxy.bytes()-before)
	}
	got := proxy.bytes() - before
	mu.Lock()
	defer mu.Unlock()
	if cumulative > 0 || noDeltaText > 0 {
		t.Errorf("%d agent assistant events carry the text so far; %d chat delta events lack deltaText", cumulative, noDeltaText)
	}
	if agentDeltas.String() != answer || chatDeltas.String() != answer {
		t.Errorf("deltas do not add up to the answer: agent %d bytes, chat %d, answer %d", agentDeltas.Len(), chatDeltas.Len(), len(answer))
	}
	if snapshots >= 2*len(answer) {
		t.Errorf("chat delta snapshots carry %d bytes, want < 2x the answer (%d)", snapshots, len(answer))
	}
	bound := int64(6*len(answer) + 1024*events)
	t.Logf("answer %d bytes in %d deltas: the observer received %d bytes in %d events (bound %d)", len(answer), pieces, got, events, bound)
	if got > bound {
		t.Fatalf("the observer received %d bytes for a %d-byte answer in %d events: over %d (6x the answer + 1 KiB per event)", got, len(answer), events, bound)
	}
}

// `openclaw agent` (which renders these events) still prints the whole
// long answer: on a terminal as it streams, and with --stream as NDJSON
// deltas that add up to it.
func TestAgentCLIPrintsALongStreamedAnswer(t *testing.T) {
	const pieces = 3000
	answer := strings.Repeat("abcdefghi\n", pieces)
	m := &scripted{pieces: pieces, script: func(req gjson.Result) reply { return reply{text: answer} }}
	url, dir := flowGateway(t, m, nil)
	t.Setenv("HOME", dir)
	t.Setenv("OPENCLAW_STATE_DIR", dir+"/cli-state")
	t.Setenv("OPENCLAW_GATEWAY_URL", url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", token)
	t.Setenv("NO_COLOR", "1")

	var out, errb bytes.Buffer
	if code := commands.Main([]string{"openclaw", "agent", "--message", "long", "--stream"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("--stream: exit %d: %s", code, errb.String())
	}
	var deltas strings.Builder
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, l := range lines[:len(lines)-1] {
		deltas.WriteString(gjson.Get(l, "payload.data.delta").String())
	}
	if deltas.String() != answer || gjson.Get(lines[len(lines)-1], "result.payloads.0.text").String() != answer {
		t.Fatalf("--stream: deltas %d bytes, final %.100s; want %d bytes", deltas.Len(), lines[len(lines)-1], len(answer))
	}

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	screen := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(ptmx)
		screen <- strings.ReplaceAll(string(b), "\r", "")
	}()
	m.mu.Lock()
	m.n = 0 // the first request of the turn streams (SSE)
	m.mu.Unlock()
	code := commands.Main([]string{"openclaw", "agent", "--message", "long again", "--session-key", "agent:main:tty"}, strings.NewReader(""), tty, &errb)
	tty.Close()
	s := <-screen
	if code != 0 {
		t.Fatalf("tty: exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(s, answer) || !strings.Contains(s, "(session agent:main:tty, 1 step(s))") {
		t.Fatalf("terminal output: %d bytes, starts %q, ends %q; want the %d-byte answer then the closing line",
			len(s), s[:min(len(s), 40)], s[max(0, len(s)-80):], len(answer))
	}
}

// An answer past the cap (providers.MaxAnswerBytes, 1 MiB) ends the run
// with an error that names the cap, and the chat error event says so; the
// stream stops there.
func TestOversizedAnswerEndsTheRun(t *testing.T) {
	answer := strings.Repeat("x", 1<<20+4096)
	m := &scripted{pieces: 300, script: func(req gjson.Result) reply { return reply{text: answer} }}
	url, _ := flowGateway(t, m, nil)
	chatErr := make(chan string, 1)
	c := dial(t, url, func(ev protocol.Event) {
		if ev.Event == "chat" && gjson.GetBytes(ev.Payload, "state").String() == "error" {
			chatErr <- gjson.GetBytes(ev.Payload, "errorMessage").String()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": "too long", "idempotencyKey": "cap-1"}, client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	const want = "the answer passed 1 MiB (the cap on one model answer)"
	r := gjson.ParseBytes(out)
	if r.Get("status").String() != "error" || !strings.Contains(r.Get("error").String(), want) {
		t.Fatalf("final %.300s", out)
	}
	if msg := <-chatErr; !strings.Contains(msg, want) {
		t.Fatalf("chat error event: %q", msg)
	}
}
