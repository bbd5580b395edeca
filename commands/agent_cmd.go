package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/route"
	"github.com/openclaw-go/openclaw/tools"
)

// agentWaitSlack is how much longer than the run's own timeout the CLI
// waits for the final answer (the gateway ends the run at its timeout).
const agentWaitSlack = 30 * time.Second

// agentCommand is `openclaw agent --message …`: one agent turn on the
// gateway through the `agent` method (accepted, then the final answer on
// the same request), as the original's CLI runs it. A terminal gets the
// reply text and a line naming the tools called and the session; piped,
// the final JSON (text under result.payloads, sessionKey, runId).
func (r *runtime) agentCommand() *cli.Command {
	return &cli.Command{
		Name:  "agent",
		Usage: "run one agent turn on the gateway and print the answer",
		Description: "The run continues on the gateway if this command is interrupted; " +
			"`openclaw sessions history --session-key K` shows it.\n\nEXAMPLES:\n" +
			"   openclaw agent --message \"What is in notes.txt?\"\n" +
			"   openclaw agent --agent ops --session-key agent:ops:main --message \"status?\" --json",
		Category: "Sessions and agents",
		Flags: append(append(outputFlags(),
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "what to ask the agent `TEXT`", Required: true},
			&cli.StringFlag{Name: "agent", Usage: "agent `ID` (default: the default agent)"},
			&cli.StringFlag{Name: "session-key", Usage: "session `KEY` (default agent:<id>:main)"},
			&cli.StringFlag{Name: "session-id", Usage: "an existing session's `ID`"},
			&cli.StringFlag{Name: "model", Usage: "`provider/model` for this run"},
			&cli.IntFlag{Name: "run-timeout", Usage: "end the run after `SECONDS` (default agents.defaults.timeoutSeconds, 600)"},
			&cli.BoolFlag{Name: "stream", Usage: "print the run's agent events as NDJSON on stdout, then the final JSON line"},
			&cli.BoolFlag{Name: "deliver", Usage: "post the final reply to --channel/--to (default: the session's chat or last delivery target)"},
			&cli.StringFlag{Name: "channel", Usage: "delivery channel (telegram, discord, slack, or last)"},
			&cli.StringFlag{Name: "to", Usage: "delivery `TARGET` (channel-specific, as `openclaw message send --target`)"},
			&cli.StringFlag{Name: "reply-to", Usage: "deliver as a reply to message `ID`"},
			&cli.StringFlag{Name: "thread-id", Usage: "deliver into thread `ID` (Telegram topic, Discord thread, Slack ts)"},
			&cli.StringFlag{Name: "account", Usage: "delivery channel account `ID`"},
			&cli.BoolFlag{Name: "best-effort-deliver", Usage: "run even when there is nowhere to deliver; a failed post is only recorded"},
		), connFlags()...),
		Action: func(c *cli.Context) error {
			msg := strings.TrimSpace(c.String("message"))
			if msg == "" {
				return usageError("agent: --message is empty")
			}
			params := map[string]any{"message": msg, "idempotencyKey": uuid.NewString()}
			if c.Bool("deliver") {
				params["deliver"] = true
			}
			if c.Bool("best-effort-deliver") {
				params["bestEffortDeliver"] = true
			}
			for flag, key := range map[string]string{"agent": "agentId", "session-key": "sessionKey", "session-id": "sessionId", "model": "model",
				"channel": "channel", "to": "to", "reply-to": "replyTo", "thread-id": "threadId", "account": "accountId"} {
				if v := strings.TrimSpace(c.String(flag)); v != "" {
					params[key] = v
				}
			}
			runTimeout := 600 * time.Second
			if n := c.Int("run-timeout"); n > 0 {
				params["timeout"] = n
				runTimeout = time.Duration(n) * time.Second
			}
			a := tools.ByMethod("agent")
			if a == nil {
				return fmt.Errorf("agent: this build has no agent method")
			}
			raw, err := json.Marshal(params)
			if err != nil {
				return fmt.Errorf("agent params: %w", err)
			}
			r.expectFinal = true
			live := newAgentLive(r, c)
			res, err := r.callAgent(c, a.ScopesFor(raw), raw, runTimeout+agentWaitSlack, live)
			if err != nil {
				return err
			}
			if err := live.finish(c, a.Render, res); err != nil {
				return err
			}
			if st := gjson.GetBytes(res, "status").String(); st != "ok" {
				return exitCode(1) // the run failed or timed out: the answer says how
			}
			return nil
		},
	}
}

// callAgent relays the agent request with live's event handler and
// accepted hook on the connection (the run's agent events arrive there).
func (r *runtime) callAgent(c *cli.Context, scopes []string, params json.RawMessage, def time.Duration, live *agentLive) (json.RawMessage, error) {
	d := c.Duration("timeout")
	if d <= 0 {
		d = def
	}
	target, err := r.target(c)
	if err != nil {
		return nil, err
	}
	rt := route.New(route.Options{
		Target: target, Remote: c.Bool("remote") || r.urlFlag, Timeout: d, ExpectFinal: true, OnAccepted: live.accepted,
		Env: func() (*tools.Env, error) { return r.Env(c) },
		Client: client.Options{ClientID: "cli", ClientMode: "cli", Version: Version,
			OnEvent: live.event},
	})
	return rt.Call(c.Context, "agent", scopes, params)
}

// agentLive shows a run as it happens: with --stream each of its agent
// events is an NDJSON line on stdout ({"type":"event","event":"agent",
// "payload":…}); on a terminal the answer text is written as it streams
// and each tool call is a gray line; piped, nothing until the final JSON.
// Events name their run by runId: the ones that come before the accepted
// answer (which carries it) wait in a buffer.
type agentLive struct {
	r        *runtime
	mu       sync.Mutex
	stream   io.Writer
	tty      io.Writer
	pal      Palette
	runID    string
	pending  []protocol.Event
	streamed bool // some answer text was written live
	col      int  // bytes written on the current live line
}

func newAgentLive(r *runtime, c *cli.Context) *agentLive {
	l := &agentLive{r: r, pal: r.io.Palette(false)}
	switch {
	case c.Bool("stream"):
		l.stream = r.stdout
	case !c.Bool("json") && c.String("query") == "" && r.stdoutTTY():
		l.tty = r.stdout
	}
	return l
}

func (l *agentLive) accepted(p json.RawMessage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runID = gjson.GetBytes(p, "runId").String()
	pending := l.pending
	l.pending = nil
	for _, ev := range pending {
		l.show(ev)
	}
}

func (l *agentLive) event(ev protocol.Event) {
	if ev.Event != "agent" || (l.stream == nil && l.tty == nil) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runID == "" {
		if len(l.pending) < 10_000 {
			l.pending = append(l.pending, ev)
		}
		return
	}
	l.show(ev)
}

// show writes one event of this run (l.mu held).
func (l *agentLive) show(ev protocol.Event) {
	v := gjson.ParseBytes(ev.Payload)
	if v.Get("runId").String() != l.runID {
		return
	}
	if l.stream != nil {
		b, err := json.Marshal(map[string]any{"type": "event", "event": ev.Event, "payload": json.RawMessage(ev.Payload)})
		if err == nil {
			_, _ = l.stream.Write(append(b, '\n'))
		}
		return
	}
	switch v.Get("stream").String() {
	case "assistant":
		d := v.Get("data.delta").String()
		_, _ = io.WriteString(l.tty, d)
		l.streamed = l.streamed || d != ""
		if i := strings.LastIndexByte(d, '\n'); i >= 0 {
			l.col = len(d) - i - 1
		} else {
			l.col += len(d)
		}
	case "tool":
		l.endLine()
		name := v.Get("data.name").String()
		switch v.Get("data.phase").String() {
		case "start":
			args := v.Get("data.args").Raw
			if len(args) > 120 {
				args = args[:119] + "…"
			}
			fmt.Fprintln(l.tty, l.pal.Gray("→ "+name+" "+args))
		case "result":
			st := "ok"
			if v.Get("data.isError").Bool() {
				st = l.pal.Red("error")
			}
			fmt.Fprintln(l.tty, l.pal.Gray("← "+name+" ")+st)
		}
	}
}

func (l *agentLive) endLine() {
	if l.col > 0 {
		_, _ = io.WriteString(l.tty, "\n")
		l.col = 0
	}
}

// finish prints the final answer: with --stream its JSON line; on a
// terminal that streamed the text, only the closing line (status, session,
// tools); otherwise as every command prints its result.
func (l *agentLive) finish(c *cli.Context, render tools.Renderer, res json.RawMessage) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stream != nil {
		_, err := l.stream.Write(append(compactJSON(res), '\n'))
		return err
	}
	if l.tty == nil || !l.streamed {
		return l.r.emit(c, render, res)
	}
	l.endLine()
	v := gjson.ParseBytes(res)
	if st := v.Get("status").String(); st != "ok" {
		fmt.Fprintf(l.tty, "%s: %s\n", l.pal.Red(st), v.Get("error").String())
	}
	var names []string
	for _, t := range v.Get("toolCalls").Array() {
		names = append(names, t.Get("name").String())
	}
	tail := ""
	if len(names) > 0 {
		tail = "; tools: " + strings.Join(names, ", ")
	}
	_, err := fmt.Fprintln(l.tty, l.pal.Gray(fmt.Sprintf("(session %s, %d step(s)%s)", v.Get("sessionKey").String(), v.Get("steps").Int(), tail)))
	return err
}

func compactJSON(b json.RawMessage) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
