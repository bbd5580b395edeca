package exectool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

const (
	maxPollWait   = 30 * time.Second
	inputIdleWait = 15 * time.Second
	logDefaultN   = 200
)

func init() {
	sid := `"sessionId":{"type":"string","description":"Session id from exec or process list"}`
	reg := func(verb, summary, props string, required []string, run tools.Handler) {
		req := `[]`
		if len(required) > 0 {
			req = `["` + strings.Join(required, `","`) + `"]`
		}
		var args []string
		if strings.Contains(props, `"sessionId"`) {
			args = []string{"sessionId"}
		}
		render := renderExec
		if verb == "list" {
			render = renderProcessList
		}
		tools.Register(&tools.Action{
			Tool: "process", Verb: verb, Summary: summary, Scope: tools.ScopeWrite, Where: tools.Gateway, Args: args,
			Schema: `{"type":"object","properties":{` + props + `},"required":` + req + `}`,
			Run:    run, Render: render,
			// list/poll/log only read; kill/clear/remove end or forget a
			// session (again: no further effect); input may do anything.
			ReadOnly:    verb == "list" || verb == "poll" || verb == "log",
			Idempotent:  verb == "list" || verb == "log" || verb == "kill" || verb == "clear" || verb == "remove",
			Destructive: verb != "list" && verb != "poll" && verb != "log",
		})
	}
	reg("list", "List running and recent background exec sessions of this agent", ``, nil, tools.Typed(processList))
	reg("poll", "New output since the last poll, and the exit status once done", sid+`,
		"timeout":{"type":"number","minimum":0,"description":"Milliseconds to wait for output or exit (at most 30000)"}`, []string{"sessionId"}, tools.Typed(processPoll))
	reg("log", "Lines of a session's retained output (offset/limit; the last 200 by default)", sid+`,
		"offset":{"type":"integer","minimum":0,"description":"0-based line to start from (without it: the last lines)"},
		"limit":{"type":"integer","minimum":0,"description":"Most lines to return (without offset: the last N; default 200)"}`, []string{"sessionId"}, tools.Typed(processLog))
	reg("write", "Write data to a session's stdin (eof closes it)", sid+`,
		"data":{"type":"string","description":"Text written to the session's stdin as is (add \\n for a newline)"},
		"eof":{"type":"boolean","description":"Close stdin after writing data"}`, []string{"sessionId"}, tools.Typed(processWrite))
	reg("send-keys", "Send keys to a session (literal text, hex bytes, then key names such as Enter, C-c, Up, F5)", sid+`,
		"literal":{"type":"string","description":"Text sent first, as typed"},
		"hex":{"type":"array","items":{"type":"string"},"description":"Raw bytes sent next, each item hex (\"1b\", \"0x03\")"},
		"keys":{"type":"array","items":{"type":"string"},"description":"Key names sent last: Enter, Tab, Escape, Up, F5, C-c (Ctrl-C), ^D, ..."}`,
		[]string{"sessionId"}, tools.Typed(processSendKeys))
	reg("submit", "Send Enter (carriage return) to a session", sid, []string{"sessionId"}, tools.Typed(processSubmit))
	reg("paste", "Paste text into a session (bracketed paste by default)", sid+`,
		"text":{"type":"string","description":"Text to paste"},
		"bracketed":{"type":"boolean","description":"Wrap the text in bracketed-paste escapes so the program reads it as one paste (default true)"}`, []string{"sessionId", "text"}, tools.Typed(processPaste))
	reg("kill", "Kill a session's process group (SIGTERM, then SIGKILL)", sid, []string{"sessionId"}, tools.Typed(processKill))
	reg("clear", "Forget a finished session", sid, []string{"sessionId"}, tools.Typed(processClear))
	reg("remove", "Kill a session if running, then forget it", sid, []string{"sessionId"}, tools.Typed(processRemove))
}

type procParams struct {
	SessionID string   `json:"sessionId"`
	Timeout   *float64 `json:"timeout"`
	Offset    *int     `json:"offset"`
	Limit     *int     `json:"limit"`
	Data      string   `json:"data"`
	EOF       bool     `json:"eof"`
	Literal   string   `json:"literal"`
	Hex       []string `json:"hex"`
	Keys      []string `json:"keys"`
	Text      string   `json:"text"`
	Bracketed *bool    `json:"bracketed"`
}

func registryOf(env *tools.Env) (*registry, error) {
	svc, err := env.Service(serviceName, "process")
	if err != nil {
		return nil, err
	}
	return svc.(*registry), nil
}

// lookup finds the caller's session; background-only unless any.
func lookup(env *tools.Env, id string) (*registry, *session, error) {
	r, err := registryOf(env)
	if err != nil {
		return nil, nil, err
	}
	if id == "" {
		return nil, nil, tools.Errorf(tools.CodeInvalidParams, "sessionId is required for this action.")
	}
	s := r.get(env.AgentID(), id)
	if s == nil {
		return nil, nil, tools.Errorf(tools.CodeNotFound, "No session found for %s", id)
	}
	if !s.isBackgrounded() {
		return nil, nil, tools.Errorf(tools.CodeFailed, "Session %s is not backgrounded.", id)
	}
	return r, s, nil
}

func statusOf(st state) string {
	switch {
	case !st.exited:
		return "running"
	case st.killedBy == "interrupted":
		return "interrupted" // its gateway died; the next one ended what was left
	case st.exitCode != nil && *st.exitCode == 0 && st.killedBy == "":
		return "completed"
	}
	return "failed"
}

func exitText(st state) string {
	if st.signal != "" {
		return "Process exited with signal " + st.signal + "."
	}
	if st.exitCode != nil {
		return fmt.Sprintf("Process exited with code %d.", *st.exitCode)
	}
	return "Process exited."
}

// name is "verb target" of the command, middle-truncated for listings.
func name(cmd string) string {
	f := strings.Fields(cmd)
	n := strings.Join(f[:min(len(f), 2)], " ")
	if len(n) > 80 {
		n = n[:39] + "…" + n[len(n)-40:]
	}
	return n
}

func processList(ctx context.Context, env *tools.Env, _ procParams) (any, error) {
	r, err := registryOf(env)
	if err != nil {
		return nil, err
	}
	var lines []string
	sessions := []map[string]any{}
	for _, s := range r.list(env.AgentID()) {
		st := s.p.state()
		agg, trunc := s.p.out.aggregated()
		m := map[string]any{"sessionId": s.id, "status": statusOf(st), "pid": s.p.pid,
			"startedAt": s.startedAt.UnixMilli(), "runtimeMs": st.duration.Milliseconds(), "cwd": s.cwd,
			"command": s.command, "name": name(s.command), "tail": lastChars(agg, tailChars), "truncated": trunc}
		if st.exited {
			m["endedAt"] = st.ended.UnixMilli()
			if st.exitCode != nil {
				m["exitCode"] = *st.exitCode
			}
			if st.signal != "" {
				m["exitSignal"] = st.signal
			}
		}
		sessions = append(sessions, m)
		lines = append(lines, fmt.Sprintf("%s %-9s %s :: %s", s.id, statusOf(st), st.duration.Round(time.Second), name(s.command)))
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		text = "No running or recent sessions."
	}
	return tools.TextResult(text, map[string]any{"status": "completed", "sessions": sessions}), nil
}

func processPoll(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	_, s, err := lookup(env, p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.Timeout != nil && *p.Timeout > 0 {
		wait := millisDuration(*p.Timeout, maxPollWait)
		t := time.NewTimer(wait)
		defer t.Stop()
		ch := s.p.out.wait()
		if pending, _ := s.p.peek(); !pending {
			select {
			case <-ch:
			case <-s.p.done:
			case <-t.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	out, dropped := s.p.out.drain()
	st := s.p.state()
	agg, _ := s.p.out.aggregated()
	text := strings.TrimRight(out, "\n")
	if dropped {
		text = "[earlier output is omitted: more than the pending cap arrived between polls]\n" + text
	}
	if strings.TrimSpace(out) == "" {
		text = "(no new output)"
	}
	details := map[string]any{"sessionId": s.id, "aggregated": agg, "name": name(s.command), "status": statusOf(st)}
	if !st.exited {
		s.mu.Lock()
		if out != "" {
			s.emptyPolls = 0
		} else {
			s.emptyPolls++
		}
		retry := []int{5000, 5000, 10000, 30000, 60000}[min(s.emptyPolls, 4)]
		s.mu.Unlock()
		details["retryInMs"] = retry
		text += "\n\nProcess still running."
		if s.p.writable() && time.Since(s.p.lastOutput()) >= inputIdleWait {
			details["waitingForInput"] = true
			text += "\nNo new output for 15s; this session may be waiting for input. Use process write, send-keys, submit, or paste to provide input."
		}
		return tools.TextResult(text, details), nil
	}
	if st.exitCode != nil {
		details["exitCode"] = *st.exitCode
	}
	if st.signal != "" {
		details["exitSignal"] = st.signal
	}
	return tools.TextResult(text+"\n\n"+exitText(st), details), nil
}

func processLog(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	_, s, err := lookup(env, p.SessionID)
	if err != nil {
		return nil, err
	}
	agg, trunc := s.p.out.aggregated()
	norm := strings.ReplaceAll(agg, "\r\n", "\n")
	lines := strings.Split(norm, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	from, to := 0, total
	note := ""
	switch {
	case p.Offset != nil && p.Limit != nil:
		from, to = min(*p.Offset, total), min(*p.Offset+*p.Limit, total)
	case p.Offset != nil:
		from = min(*p.Offset, total)
	case p.Limit != nil:
		from = max(total-*p.Limit, 0)
	default:
		if total > logDefaultN {
			from = total - logDefaultN
			note = fmt.Sprintf("\n\n[showing last %d of %d lines; pass offset/limit to page]", logDefaultN, total)
		}
	}
	text := strings.Join(lines[from:to], "\n")
	if total == 0 {
		text = "(no output yet)"
		if s.p.state().exited {
			text = "(no output recorded)"
		}
	}
	st := s.p.state()
	return tools.TextResult(text+note, map[string]any{"status": statusOf(st), "sessionId": s.id,
		"total": to - from, "totalLines": total, "totalChars": len(agg), "truncated": trunc}), nil
}

func input(ctx context.Context, env *tools.Env, id string, data []byte, eof bool, what string) (any, error) {
	_, s, err := lookup(env, id)
	if err != nil {
		return nil, err
	}
	if s.p.state().exited {
		return nil, tools.Errorf(tools.CodeNotFound, "No active session found for %s", id)
	}
	if n, err := s.p.write(ctx, data, eof); err != nil {
		if errors.Is(err, errStdinTimeout) {
			return nil, tools.Errorf(tools.CodeTimeout, "Session %s: %v (%d of %d bytes written).", id, err, n, len(data)).
				WithDetails(map[string]any{"sessionId": id, "bytes": n})
		}
		return nil, tools.Errorf(tools.CodeFailed, "Session %s stdin is not writable.", id)
	}
	text := fmt.Sprintf("Wrote %d bytes to session %s", len(data), id)
	if eof {
		text += " (stdin closed)"
	}
	return tools.TextResult(text+".", map[string]any{"status": "running", "sessionId": id, "bytes": len(data), "action": what}), nil
}

func processWrite(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	return input(ctx, env, p.SessionID, []byte(p.Data), p.EOF, "write")
}

func processSendKeys(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	b, err := encodeKeys(p.Literal, p.Hex, p.Keys)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "send-keys: %v", err)
	}
	return input(ctx, env, p.SessionID, b, false, "send-keys")
}

// processSubmit sends Enter: CR to a PTY (as a terminal does); a pipe has
// no line discipline to turn CR into a line end, so it gets LF.
func processSubmit(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	_, s, err := lookup(env, p.SessionID)
	if err != nil {
		return nil, err
	}
	enter := "\n"
	if s.p.isPTY {
		enter = "\r"
	}
	return input(ctx, env, p.SessionID, []byte(enter), false, "submit")
}

func processPaste(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	data := p.Text
	if p.Bracketed == nil || *p.Bracketed {
		data = "\x1b[200~" + data + "\x1b[201~"
	}
	return input(ctx, env, p.SessionID, []byte(data), false, "paste")
}

func processKill(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	_, s, err := lookup(env, p.SessionID)
	if err != nil {
		return nil, err
	}
	if s.p.state().exited {
		return nil, tools.Errorf(tools.CodeNotFound, "No active session found for %s", s.id)
	}
	r, _ := registryOf(env)
	r.end(ctx, s, "kill")
	return tools.TextResult(fmt.Sprintf("Killed session %s.", s.id), map[string]any{"status": "failed", "sessionId": s.id}), nil
}

func processClear(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	r, s, err := lookup(env, p.SessionID)
	if err != nil {
		return nil, err
	}
	if !s.p.state().exited {
		return nil, tools.Errorf(tools.CodeNotFound, "No finished session found for %s", s.id)
	}
	r.drop(s.id)
	return tools.TextResult(fmt.Sprintf("Cleared session %s.", s.id), map[string]any{"status": "completed", "sessionId": s.id}), nil
}

func processRemove(ctx context.Context, env *tools.Env, p procParams) (any, error) {
	r, s, err := lookup(env, p.SessionID)
	if err != nil {
		return nil, err
	}
	r.end(ctx, s, "kill")
	r.drop(s.id)
	return tools.TextResult(fmt.Sprintf("Removed session %s.", s.id), map[string]any{"status": "completed", "sessionId": s.id}), nil
}
