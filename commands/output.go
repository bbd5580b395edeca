package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// emit prints a result: the JSON bytes as they came (plus a newline) in JSON
// mode, otherwise the action's renderer or indented JSON. --query selects a
// part with a gjson path.
func (r *runtime) emit(c *cli.Context, render tools.Renderer, res json.RawMessage) error {
	if q := c.String("query"); q != "" {
		sel := gjson.GetBytes(res, q)
		if !sel.Exists() {
			res = json.RawMessage("null")
		} else {
			res = json.RawMessage(sel.Raw)
		}
		render = nil
		if !r.jsonMode(c) && sel.Type == gjson.String {
			_, err := fmt.Fprintln(r.stdout, sel.String())
			return err
		}
	}
	if r.jsonMode(c) {
		_, err := r.stdout.Write(append(bytes.TrimRight(res, "\n"), '\n'))
		return err
	}
	if render != nil {
		return render(r.stdout, gjson.ParseBytes(res))
	}
	return writeIndented(r.stdout, res)
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

// report prints an error (one line on stderr; the JSON envelope on stdout in
// JSON mode) and returns the exit code.
func (r *runtime) report(err error, jsonOut bool) int {
	te := tools.AsError(err)
	msg := strings.TrimSpace(te.Message)
	fmt.Fprintf(r.stderr, "openclaw: %s\n", msg)
	if jsonOut {
		var env any = errorEnvelope{OK: false, Error: te}
		var ce *client.CallError
		if errors.As(err, &ce) {
			// A gateway's own error keeps its wire code, as the original CLI prints it.
			env = map[string]any{"ok": false, "error": map[string]any{
				"type": "gateway_request_error", "code": ce.Code, "message": ce.Message,
				"details": ce.Details, "retryable": ce.Retryable}}
		}
		b, mErr := json.Marshal(env)
		if mErr == nil {
			r.stdout.Write(append(b, '\n'))
		}
	}
	return te.ExitCode()
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
