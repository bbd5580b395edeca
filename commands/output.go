package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// emit prints a result: the JSON bytes as they came (plus a newline) in JSON
// mode, otherwise the action's renderer or indented JSON. --query selects a
// part with a gjson path.
//
// --raw (as jq -r) prints a string result without quotes, piped or not; on
// a terminal a string picked with --query is printed raw anyway.
//
// JSON is printed as JSON.stringify would write it: <, > and & stay as
// they are (Go's encoder writes \u003c), so output is the same bytes
// whether the action ran here or on a gateway.
func (r *runtime) emit(c *cli.Context, render tools.Renderer, res json.RawMessage) error {
	res = plainJSON(res)
	return r.emitData(c, render, res, res)
}

// emitTool prints a tool action's result: --json, --query and --raw work
// on its data (toolData), while its renderer still reads the whole result
// (the text an agent is shown is what a person sees on a terminal).
func (r *runtime) emitTool(c *cli.Context, render tools.Renderer, res json.RawMessage) error {
	res = plainJSON(res)
	return r.emitData(c, render, res, toolData(res))
}

// emitData prints data in JSON mode or for --query, and renders full (the
// same bytes as data but for tool results) for a person.
func (r *runtime) emitData(c *cli.Context, render tools.Renderer, full, res json.RawMessage) error {
	if q := c.String("query"); q != "" {
		sel := gjson.GetBytes(res, q)
		if !sel.Exists() {
			res = json.RawMessage("null")
		} else {
			res = json.RawMessage(sel.Raw)
		}
		render = nil
		if (!r.jsonMode(c) || c.Bool("raw")) && sel.Type == gjson.String {
			_, err := fmt.Fprintln(r.stdout, sel.String())
			return err
		}
	}
	if c.Bool("raw") {
		if v := gjson.ParseBytes(res); v.Type == gjson.String {
			_, err := fmt.Fprintln(r.stdout, v.String())
			return err
		}
	}
	if r.jsonMode(c) {
		_, err := r.stdout.Write(append(bytes.TrimRight(res, "\n"), '\n'))
		return err
	}
	if render != nil {
		return render(r.stdout, gjson.ParseBytes(full))
	}
	if v := gjson.ParseBytes(full); textResult(v) {
		return renderTextResult(r.stdout, v)
	}
	return writeIndented(r.stdout, res)
}

// toolData is the data of a tool result, what --json prints and --query
// reads. An agent-facing result that carries its data twice — a text
// block holding the data as JSON and the same data again as details
// (OpenClaw's jsonResult: nodes, sessions, memory, browser, canvas, cron,
// agents, web) — is that data, the details. Any other result is its own
// data: its text is the answer (a file read, a command's output) and its
// details are facts about that text, so both stay ({content, details}).
// The gateway's wire answer (tools.invoke) is the agent-facing result as
// the original sends it; only this CLI's printing unwraps it, so a local
// and a relayed call print the same bytes.
func toolData(res json.RawMessage) json.RawMessage {
	if d, ok := jsonResultDetails(res); ok {
		return json.RawMessage(d)
	}
	return res
}

// jsonResultDetails reports whether res is {content:[one text block],
// details} whose text is details written as JSON, and returns details.
func jsonResultDetails(res []byte) (string, bool) {
	v := gjson.ParseBytes(res)
	if !v.IsObject() {
		return "", false
	}
	keys := 0
	v.ForEach(func(k, _ gjson.Result) bool {
		keys++
		return true
	})
	content, details := v.Get("content"), v.Get("details")
	if keys != 2 || !details.Exists() || !content.IsArray() {
		return "", false
	}
	blocks := content.Array()
	if len(blocks) != 1 || blocks[0].Get("type").String() != "text" {
		return "", false
	}
	text := blocks[0].Get("text").String()
	if !gjson.Valid(text) {
		return "", false
	}
	if !sameJSON([]byte(text), []byte(details.Raw)) {
		return "", false
	}
	return details.Raw, true
}

// sameJSON reports whether a and b are the same JSON value, whatever their
// spacing, key order or escapes.
func sameJSON(a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// textResult reports a tool result whose content is text blocks only:
// without a renderer of its own it is shown as that text, not as JSON.
func textResult(v gjson.Result) bool {
	blocks := v.Get("content")
	if !blocks.IsArray() || len(blocks.Array()) == 0 {
		return false
	}
	for _, b := range blocks.Array() {
		if b.Get("type").String() != "text" {
			return false
		}
	}
	return true
}

// renderTextResult prints each text block; one that is a JSON object (a
// browser status) becomes "key: value" lines rather than escaped JSON.
func renderTextResult(w io.Writer, v gjson.Result) error {
	var b strings.Builder
	for _, blk := range v.Get("content").Array() {
		text := blk.Get("text").String()
		if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") && gjson.Valid(t) {
			gjson.Parse(t).ForEach(func(k, val gjson.Result) bool {
				s := val.String()
				if val.IsObject() || val.IsArray() {
					s = oneLine(val.Raw)
				}
				fmt.Fprintf(&b, "%s: %s\n", k.String(), s)
				return true
			})
			continue
		}
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeIndented(w io.Writer, res json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, res, "", "  "); err != nil {
		buf.Reset()
		buf.Write(res)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

// errorEnvelope is the JSON printed on stdout for a failure in JSON mode.
type errorEnvelope struct {
	OK    bool         `json:"ok"`
	Error *tools.Error `json:"error"`
}

// report prints an error and returns the exit code: one line on stderr
// (a multi-line message folded, a long one cut: the full text is in the
// JSON), and in JSON mode one envelope on stdout, the same shape whichever
// side failed: {"ok":false,"error":{"code","message","details"}}, code the
// one the exit code follows. A gateway's own code (INVALID_REQUEST, …), its
// details and retryable are kept under details.
func (r *runtime) report(err error, jsonOut bool) int {
	te := tools.AsError(err)
	msg := r.withProfile(te.Message)
	fmt.Fprintf(r.stderr, "%s %s\n", r.io.Palette(true).Red("openclaw:"), stderrLine(msg))
	if jsonOut {
		out := &tools.Error{Code: te.Code, Message: msg, Details: te.Details}
		var ce *client.CallError
		if errors.As(err, &ce) && out.Details == nil {
			d := map[string]any{"gatewayCode": ce.Code}
			if ce.Details != nil {
				d["details"] = ce.Details
			}
			if ce.Retryable {
				d["retryable"] = true
			}
			out.Details = d
		}
		b, mErr := json.Marshal(errorEnvelope{OK: false, Error: out})
		if mErr == nil {
			r.stdout.Write(append(plainJSON(b), '\n'))
		}
	}
	return te.ExitCode()
}

// maxStderrLine bounds the error line: a provider's HTML error page is
// not a message (the whole text stays in the JSON envelope).
const maxStderrLine = 400

// stderrLine is msg on one line, cut at maxStderrLine.
func stderrLine(msg string) string {
	l := oneLine(msg)
	if len(l) > maxStderrLine {
		cut := maxStderrLine
		for cut > 0 && !utf8.RuneStart(l[cut]) {
			cut--
		}
		l = l[:cut] + "… (cut; the full message is in --json)"
	}
	return l
}

// usageError marks command-line mistakes (exit 2).
func usageError(format string, args ...any) error {
	return tools.Errorf(tools.CodeUsage, format, args...)
}

// isUsage reports urfave's own flag parsing errors.
func isUsage(err error) bool {
	var te *tools.Error
	if errors.As(err, &te) {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "flag provided but not defined") ||
		strings.Contains(s, "invalid value") ||
		strings.Contains(s, "flag needs an argument") ||
		strings.Contains(s, "Required flag")
}

// plainJSON undoes Go's HTML-safe escapes (\u003c, \u003e, \u0026 and the
// line separators \u2028, \u2029) inside JSON strings, leaving every other
// byte alone: JSON.stringify, and so the original CLI, writes them as is.
func plainJSON(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch strings.ToLower(string(b[i+2 : i+6])) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			case "2028":
				out, i = append(out, "\u2028"...), i+5
				continue
			case "2029":
				out, i = append(out, "\u2029"...), i+5
				continue
			}
		}
		out = append(out, b[i], b[i+1]) // any other escape, \\ included, stays
		i++
	}
	return out
}

// exitCode ends the process with that code after the command has printed
// its own result (doctor's failed checks): no error line, no envelope.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// oneLine folds a message onto one line for stderr: scripts and people read
// the error line by line, so a multi-line message would look like several.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
