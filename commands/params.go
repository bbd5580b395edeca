package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/urfave/cli/v2"
)

// buildParams assembles an action's params: --params (JSON, @file or - for
// stdin) first, then positional arguments, then flags, each overriding the
// one before. A positional argument and a flag for the same param must
// agree (exit 2 otherwise). The object is encoded once, by the caller.
func buildParams(c *cli.Context, a *tools.Action, stdin io.Reader) (map[string]any, error) {
	obj := map[string]any{}
	if src := c.String("params"); src != "" {
		raw, err := readParamsSource(src, stdin)
		if err != nil {
			return nil, err
		}
		if obj, err = paramsObject(raw); err != nil {
			return nil, err
		}
	}
	props := schemaProps(a.Schema)
	byName := map[string]prop{}
	for _, p := range props {
		byName[p.Name] = p
	}
	args := c.Args().Slice()
	positional := map[string][]string{}
	for i, name := range a.Args {
		rest := strings.HasSuffix(name, "...")
		name = strings.TrimSuffix(name, "...")
		if i >= len(args) {
			break
		}
		if rest {
			var vals []any
			for _, s := range args[i:] {
				vals = append(vals, coerce(byName[name], s, true))
			}
			obj[name] = vals
			positional[name] = args[i:]
			args = nil
			break
		}
		if err := intInRange(byName[name], args[i]); err != nil {
			return nil, tools.Errorf(tools.CodeUsage, "invalid value %q for %s: %v (see `%s --help`)",
				args[i], name, err, c.Command.HelpName)
		}
		obj[name] = coerce(byName[name], args[i], false)
		positional[name] = args[i : i+1]
	}
	if len(args) > len(a.Args) {
		extra := args[len(a.Args):]
		return nil, tools.Errorf(tools.CodeUsage, "unexpected argument %q (this command takes %s)", extra[0], argsUsage(a))
	}
	for _, p := range props {
		fl := propFlag(a, p)
		if fl == "" || !c.IsSet(fl) {
			continue
		}
		if pos, ok := positional[p.Name]; ok && !sameArgs(c, p, fl, pos) {
			return nil, tools.Errorf(tools.CodeUsage, "%s given twice with different values: argument %q and --%s %q",
				p.Name, strings.Join(pos, " "), fl, flagText(c, p, fl))
		}
		switch {
		case p.is("boolean") && len(p.Types) == 1:
			obj[p.Name] = c.Bool(fl)
		case p.is("array"):
			var vals []any
			for _, s := range c.StringSlice(fl) {
				vals = append(vals, coerce(p, s, true))
			}
			obj[p.Name] = vals
		case isFileParam(a, p.Name):
			v, err := readFileParam(c, fl, c.String(fl), stdin)
			if err != nil {
				return nil, err
			}
			obj[p.Name] = v
		default:
			if err := intInRange(p, c.String(fl)); err != nil {
				return nil, tools.Errorf(tools.CodeUsage, "invalid value %q for flag --%s: %v (see `%s --help`)",
					c.String(fl), fl, err, c.Command.HelpName)
			}
			obj[p.Name] = coerce(p, c.String(fl), false)
		}
	}
	if err := stdinParam(c, a, obj, stdin); err != nil {
		return nil, err
	}
	return obj, nil
}

// isFileParam reports a param whose flag names a file (Action.FileParams).
func isFileParam(a *tools.Action, name string) bool {
	for _, n := range a.FileParams {
		if n == name {
			return true
		}
	}
	return false
}

// readFileParam reads the file a FileParams flag names (- for stdin), up
// to maxStdinParam, here: a gateway the call is relayed to gets the
// content, never the path.
func readFileParam(c *cli.Context, fl, path string, stdin io.Reader) (string, error) {
	if path == "-" {
		if c.String("params") == "-" {
			return "", tools.Errorf(tools.CodeUsage, "--%s - and --params - both want stdin", fl)
		}
		if stdin == nil {
			return "", tools.Errorf(tools.CodeUsage, "--%s -: no stdin", fl)
		}
		b, err := io.ReadAll(io.LimitReader(stdin, maxStdinParam+1))
		if err != nil {
			return "", fmt.Errorf("read --%s from stdin: %w", fl, err)
		}
		if len(b) > maxStdinParam {
			return "", tools.Errorf(tools.CodeUsage, "--%s on stdin is larger than %d MiB", fl, maxStdinParam>>20)
		}
		return string(b), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", tools.Errorf(tools.CodeUsage, "--%s %s: %v", fl, path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", tools.Errorf(tools.CodeUsage, "--%s %s: is a directory", fl, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStdinParam+1))
	if err != nil {
		return "", tools.Errorf(tools.CodeUsage, "--%s %s: %v", fl, path, err)
	}
	if len(b) > maxStdinParam {
		return "", tools.Errorf(tools.CodeUsage, "--%s %s is larger than %d MiB", fl, path, maxStdinParam>>20)
	}
	return string(b), nil
}

// maxStdinParam caps a raw stdin param (a patch): past it the call fails
// instead of reading without bound.
const maxStdinParam = 64 << 20

// stdinParam fills the action's StdinParam from stdin when nothing else
// gave it and stdin is not a terminal (which would wait for typing).
func stdinParam(c *cli.Context, a *tools.Action, obj map[string]any, stdin io.Reader) error {
	if a.StdinParam == "" || c.String("params") == "-" || stdin == nil {
		return nil
	}
	if _, ok := obj[a.StdinParam]; ok {
		return nil
	}
	if f, ok := stdin.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(stdin, maxStdinParam+1))
	if err != nil {
		return fmt.Errorf("read %s from stdin: %w", a.StdinParam, err)
	}
	if len(b) > maxStdinParam {
		return tools.Errorf(tools.CodeUsage, "%s on stdin is larger than %d MiB", a.StdinParam, maxStdinParam>>20)
	}
	obj[a.StdinParam] = string(b)
	return nil
}

// sameArgs reports whether flag fl carries the same value(s) as the
// positional argument(s) pos.
func sameArgs(c *cli.Context, p prop, fl string, pos []string) bool {
	switch {
	case p.is("boolean") && len(p.Types) == 1:
		b, err := strconv.ParseBool(pos[0])
		return len(pos) == 1 && err == nil && b == c.Bool(fl)
	case p.is("array"):
		vals := c.StringSlice(fl)
		if len(vals) != len(pos) {
			return false
		}
		for i := range vals {
			if vals[i] != pos[i] {
				return false
			}
		}
		return true
	}
	return len(pos) == 1 && pos[0] == c.String(fl)
}

func flagText(c *cli.Context, p prop, fl string) string {
	switch {
	case p.is("boolean") && len(p.Types) == 1:
		return strconv.FormatBool(c.Bool(fl))
	case p.is("array"):
		return strings.Join(c.StringSlice(fl), ",")
	}
	return c.String(fl)
}

// paramsObject reads --params: a JSON object, or an error that says what
// was given instead, in JSON's words (never a Go type name).
func paramsObject(raw []byte) (map[string]any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, tools.Errorf(tools.CodeUsage, "--params is not valid JSON: %v (at byte %d); give a JSON object such as '{\"path\":\"notes.md\"}'", se, se.Offset)
		}
		return nil, tools.Errorf(tools.CodeUsage, "--params is not valid JSON: %v; give a JSON object such as '{\"path\":\"notes.md\"}'", err)
	}
	if obj, ok := v.(map[string]any); ok {
		return obj, nil
	}
	what := "null"
	switch v.(type) {
	case []any:
		what = "an array"
	case string:
		what = "a string"
	case float64:
		what = "a number"
	case bool:
		what = "a boolean"
	}
	return nil, tools.Errorf(tools.CodeUsage, "--params must be a JSON object such as '{\"path\":\"notes.md\"}', got %s", what)
}

// readParamsSource reads "-" (stdin), "@file" or literal JSON.
func readParamsSource(src string, stdin io.Reader) ([]byte, error) {
	switch {
	case src == "-":
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read params from stdin: %w", err)
		}
		return b, nil
	case strings.HasPrefix(src, "@"):
		b, err := os.ReadFile(src[1:])
		if err != nil {
			return nil, tools.Errorf(tools.CodeUsage, "--params %s: %v", src, err)
		}
		return b, nil
	}
	return []byte(src), nil
}

// intInRange refuses an integer param written as a whole number too large
// for 64 bits (--limit 99999999999999999999): as a float it would pass the
// schema and wrap around inside the tool. Other strings are left to coerce
// and the schema.
func intInRange(p prop, s string) error {
	if !p.is("integer") || p.is("number") {
		return nil
	}
	if _, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); errors.Is(err, strconv.ErrRange) {
		return errors.New("value out of range")
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && (f >= 1<<63 || f < -(1<<63)) {
		return errors.New("value out of range")
	}
	return nil
}

// coerce turns a command-line string into the JSON value the schema wants.
// Values that do not fit are passed as strings, so the schema reports them
// together with every other problem.
func coerce(p prop, s string, item bool) any {
	types := p.Types
	if item {
		types = p.ItemTypes
	}
	has := func(t string) bool {
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	if has("integer") || has("number") {
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return json.Number(strconv.FormatFloat(n, 'f', -1, 64))
		}
	}
	if has("boolean") {
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	}
	if has("object") || has("array") || (!item && p.is("array")) {
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			var v any
			if json.Unmarshal([]byte(t), &v) == nil {
				return v
			}
		}
	}
	return s
}

func argsUsage(a *tools.Action) string {
	if len(a.Args) == 0 {
		return "no positional arguments"
	}
	parts := make([]string, len(a.Args))
	for i, n := range a.Args {
		parts[i] = "<" + n + ">"
	}
	return strings.Join(parts, " ")
}
