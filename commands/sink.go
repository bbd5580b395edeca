package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
)

// progressEvery throttles redraws of the progress line: a handler may
// report per chunk, the terminal needs a few frames a second.
const progressEvery = 100 * time.Millisecond

// cliSink is the CLI's tools.Sink. With --stream every progress report and
// event is one NDJSON object on stdout ({"type":"progress",…} or
// {"type":"event",…}) ahead of the result line; otherwise progress is one
// line redrawn in place on stderr when stderr is a terminal, and nothing
// at all when it is not (or with --json). A relayed call feeds it the
// gateway's tool.progress/tool.event frames, so both paths look the same.
//
// A plain line, not schollz/progressbar: a bar needs a known total, most
// of our work has none, and this costs nothing at start-up.
type cliSink struct {
	mu     sync.Mutex
	stream io.Writer // stdout with --stream, else nil
	line   io.Writer // stderr when it is a terminal, else nil
	last   time.Time
	drawn  int // width of the line on screen, 0 when clear
	// live is stdout when it is a terminal (no --json, no --stream): a
	// running command's output events are written there as they come, so
	// a person sees `exec` work instead of waiting for the end.
	live     io.Writer
	shown    bool // some live output was written
	lastByte byte // the last byte of it (to end the line before the result)
}

// liveOutputEvents carry a running command's output as {"data": "..."}.
var liveOutputEvents = map[string]bool{"exec.output": true}

// newSink builds the sink for one command: stream (--stream) wins over the
// progress line; the line needs stderr on a terminal and no --json.
func newSink(stdout, stderr io.Writer, stream, jsonFlag bool) *cliSink {
	s := &cliSink{}
	switch {
	case stream:
		s.stream = stdout
	case !jsonFlag && isTerminal(stderr):
		s.line = stderr
	}
	if !stream && !jsonFlag && isTerminal(stdout) {
		s.live = stdout
	}
	return s
}

// Progress reports done of total (total < 0: unknown).
func (s *cliSink) Progress(msg string, done, total int64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stream != nil {
		s.writeJSON(map[string]any{"type": "progress", "message": msg, "done": done, "total": total})
		return
	}
	if s.line == nil {
		return
	}
	now := time.Now()
	final := total >= 0 && done >= total
	if !final && s.drawn > 0 && now.Sub(s.last) < progressEvery {
		return
	}
	s.last = now
	text := progressText(msg, done, total)
	pad := ""
	if n := len([]rune(text)); n < s.drawn {
		pad = strings.Repeat(" ", s.drawn-n)
	}
	fmt.Fprintf(s.line, "\r%s%s", text, pad)
	s.drawn = len([]rune(text))
}

// Event reports a named event: every one as NDJSON with --stream; on a
// terminal only a running command's output, written as it comes (other
// events are for scripts, not people).
func (s *cliSink) Event(name string, payload any) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stream != nil {
		s.writeJSON(map[string]any{"type": "event", "event": name, "payload": payload})
		return
	}
	if s.live != nil && liveOutputEvents[name] {
		data := eventData(payload)
		if data == "" {
			return
		}
		s.clearLine()
		_, _ = io.WriteString(s.live, data)
		s.shown, s.lastByte = true, data[len(data)-1]
	}
}

// eventData is the "data" string of an output event's payload (a map in
// this process, raw JSON when relayed from a gateway).
func eventData(payload any) string {
	switch p := payload.(type) {
	case map[string]any:
		d, _ := p["data"].(string)
		return d
	case json.RawMessage:
		return gjson.GetBytes(p, "data").String()
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return ""
	}
	return gjson.GetBytes(b, "data").String()
}

// liveRender wraps a result renderer once output was shown live: the
// result's text then repeats only what the output lacks (the exit status,
// warnings), so nothing appears twice on the terminal.
func (s *cliSink) liveRender(render tools.Renderer) tools.Renderer {
	if s == nil || !s.shown {
		return render
	}
	return func(w io.Writer, res gjson.Result) error {
		text := res.Get("content.0.text").String()
		if out := strings.TrimSpace(res.Get("details.aggregated").String()); out != "" {
			if i := strings.Index(text, out); i >= 0 {
				text = text[:i] + text[i+len(out):]
			}
		}
		text = strings.TrimSpace(text)
		if s.lastByte != '\n' {
			fmt.Fprintln(w)
		}
		if text == "" {
			return nil
		}
		_, err := fmt.Fprintln(w, text)
		return err
	}
}

// liveError is liveRender for a failed call (a timeout, an abort): once
// the output was shown live, the error message keeps only why it failed,
// and starts on a line of its own. Code and details stay as they were.
func (s *cliSink) liveError(err error) error {
	if s == nil || err == nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.shown {
		return err
	}
	if s.lastByte != '\n' {
		_, _ = io.WriteString(s.live, "\n")
		s.lastByte = '\n'
	}
	te := tools.AsError(err)
	out := ""
	if d, ok := te.Details.(map[string]any); ok {
		out, _ = d["aggregated"].(string)
	} else if b, mErr := json.Marshal(te.Details); mErr == nil {
		out = gjson.GetBytes(b, "aggregated").String()
	}
	out = strings.TrimSpace(out)
	i := strings.Index(te.Message, out)
	if out == "" || i < 0 {
		return err
	}
	cp := *te
	cp.Message = strings.TrimSpace(te.Message[:i] + te.Message[i+len(out):])
	return &cp
}

// finish clears the progress line so the result prints on a clean line.
func (s *cliSink) finish() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clearLine()
}

// clearLine wipes the progress line (s.mu held).
func (s *cliSink) clearLine() {
	if s.line != nil && s.drawn > 0 {
		fmt.Fprintf(s.line, "\r%s\r", strings.Repeat(" ", s.drawn))
		s.drawn = 0
	}
}

// gatewayEvent takes a relayed call's tool.progress / tool.event frames
// (client.Options.OnEvent).
func (s *cliSink) gatewayEvent(ev protocol.Event) {
	if s == nil {
		return
	}
	v := gjson.ParseBytes(ev.Payload)
	switch ev.Event {
	case "tool.progress":
		total := int64(-1)
		if t := v.Get("total"); t.Exists() {
			total = t.Int()
		}
		s.Progress(v.Get("message").Str, v.Get("done").Int(), total)
	case "tool.event":
		s.Event(v.Get("name").Str, json.RawMessage(orNull(v.Get("payload").Raw)))
	}
}

func (s *cliSink) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	_, _ = s.stream.Write(append(b, '\n'))
}

// progressText is "msg  3/10 (30%)", "msg  3" when the total is unknown,
// or msg alone when there is no count (nothing done of an unknown total:
// "launching chromium", not "launching chromium  0").
func progressText(msg string, done, total int64) string {
	if msg == "" {
		msg = "working"
	}
	switch {
	case total < 0 && done <= 0:
		return msg
	case total > 0:
		return fmt.Sprintf("%s  %d/%d (%d%%)", msg, done, total, done*100/total)
	case total == 0:
		return msg
	default:
		return fmt.Sprintf("%s  %d", msg, done)
	}
}

func orNull(raw string) string {
	if raw == "" {
		return "null"
	}
	return raw
}
