package exectool

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// renderExec prints the result text for a human (the JSON is for scripts).
func renderExec(w io.Writer, res gjson.Result) error {
	text := res.Get("content.0.text").String()
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(w, text)
	return err
}

// renderProcessList prints the sessions as a table whose columns line up
// whatever the lengths of ids and runtimes (the result text, the
// original's "id status runtime :: name" lines, does not align).
func renderProcessList(w io.Writer, res gjson.Result) error {
	sessions := res.Get("details.sessions").Array()
	if len(sessions) == 0 {
		return renderExec(w, res)
	}
	rows := [][]string{{"SESSION", "STATUS", "PID", "RUNTIME", "COMMAND"}}
	for _, s := range sessions {
		status := s.Get("status").String()
		if c := s.Get("exitCode"); c.Exists() {
			status += " (" + c.Raw + ")"
		} else if sig := s.Get("exitSignal").String(); sig != "" {
			status += " (" + sig + ")"
		}
		rt := (time.Duration(s.Get("runtimeMs").Int()) * time.Millisecond).Round(time.Second)
		rows = append(rows, []string{s.Get("sessionId").String(), status, s.Get("pid").String(), rt.String(),
			oneLine(s.Get("command").String())})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
