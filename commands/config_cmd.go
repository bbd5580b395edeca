package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

func (r *runtime) configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "read and write openclaw.json (JSON5; writes are atomic and keep a .bak)",
		Subcommands: []*cli.Command{
			{
				Name: "get", Usage: "print the value at a dot/bracket path (its schema default when unset; the whole config without one)",
				ArgsUsage:   "[path]",
				Description: "EXAMPLES:\n   openclaw config get gateway.port\n   openclaw config get 'agents.list[0].id' --json",
				Flags:       outputFlags(),
				Action:      r.configGet,
			},
			{
				Name: "set", Usage: "set the value at a path (VALUE is JSON5, else a plain string)",
				ArgsUsage:   "<path> <value>",
				Description: "EXAMPLES:\n   openclaw config set tools.profile coding\n   openclaw config set tools.deny '[\"exec\"]'\n   openclaw config set gateway.port 18790 --dry-run",
				Flags: append(outputFlags(),
					&cli.BoolFlag{Name: "strict-json", Usage: "VALUE must be JSON5; never fall back to a string"},
					&cli.BoolFlag{Name: "dry-run", Usage: "validate and show the change without writing"},
					&cli.BoolFlag{Name: "force", Usage: "write a key the schema does not know (validate will warn about it)"},
					baseHashFlag()),
				Action: r.configSet,
			},
			{
				Name: "unset", Usage: "remove the value at a path",
				ArgsUsage: "<path>",
				Flags: append(outputFlags(), &cli.BoolFlag{Name: "dry-run", Usage: "show the change without writing"},
					baseHashFlag()),
				Action: r.configUnset,
			},
			{
				Name: "validate", Usage: "check the config against the schema (unknown keys are warnings)",
				Flags:  outputFlags(),
				Action: r.configValidate,
			},
			{
				Name: "schema", Usage: "the config JSON Schema, or the schema node at a path with its children",
				ArgsUsage: "[path]",
				Flags:     outputFlags(),
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return r.emit(c, nil, config.Schema())
					}
					node, err := config.SchemaLookup(c.Args().First())
					if err != nil {
						return tools.Errorf(tools.CodeNotFound, "%v: %s", err, c.Args().First())
					}
					return r.emit(c, nil, mustJSON(node))
				},
			},
			{
				Name: "file", Usage: "print the path of the active config file",
				Flags: outputFlags(),
				Action: func(c *cli.Context) error {
					p, err := r.Paths(c)
					if err != nil {
						return err
					}
					return r.emit(c, nil, mustJSON(p.ConfigPath))
				},
			},
		},
	}
}

func baseHashFlag() cli.Flag {
	return &cli.StringFlag{Name: "base-hash", Usage: "write only if the file's hash is still `HASH` (from config validate --json); else fail"}
}

func (r *runtime) configGet(c *cli.Context) error {
	cfg, err := r.Config(c)
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return r.emit(c, nil, mustJSON(cfg.Doc))
	}
	if c.NArg() > 1 {
		return usageError("config get takes one path")
	}
	path := c.Args().First()
	if _, err := config.ParsePath(path); err != nil {
		return tools.Errorf(tools.CodeUsage, "%v", err)
	}
	v, ok := cfg.Get(path)
	if ok {
		return r.emit(c, renderPlain, mustJSON(v))
	}
	// Unset: the schema default is the effective value, except the port,
	// which --dev and --profile NAME move (as the gateway and its clients
	// do; the environment's OPENCLAW_GATEWAY_PORT is not config).
	if def, ok := config.SchemaDefault(path); ok {
		if path == "gateway.port" {
			if p, err := r.Paths(c); err == nil {
				def = gateway.ResolvePort(0, p, cfg, func(string) string { return "" })
			}
		}
		tty := r.stdoutTTY()
		return r.emit(c, func(w io.Writer, v gjson.Result) error {
			if err := renderPlain(w, v); err != nil {
				return err
			}
			if tty {
				_, err := fmt.Fprintf(r.stderr, "(default: %s is not set in %s)\n", path, cfg.Path)
				return err
			}
			return nil
		}, mustJSON(def))
	}
	if config.KnownPath(path) {
		return tools.Errorf(tools.CodeNotFound, "Config path is valid but unset: %s (no default). Set it with openclaw config set %s <value>.", path, path)
	}
	return tools.Errorf(tools.CodeNotFound, "Config path not found: %s.", path)
}

// renderPlain prints strings and numbers bare, anything else as indented JSON.
func renderPlain(w io.Writer, v gjson.Result) error {
	switch v.Type {
	case gjson.String, gjson.Number, gjson.True, gjson.False:
		_, err := fmt.Fprintln(w, v.String())
		return err
	}
	return writeIndented(w, json.RawMessage(v.Raw))
}

// refuseThroughInclude fails closed when a path runs through an object
// whose content comes from $include.
func refuseThroughInclude(doc map[string]any, path string) error {
	segs, err := config.ParsePath(path)
	if err != nil {
		return tools.Errorf(tools.CodeUsage, "%v", err)
	}
	var cur any = doc
	for _, s := range segs {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if _, inc := m["$include"]; inc {
			return tools.Errorf(tools.CodeFailed, "config %s: this path is provided by $include; edit the included file instead", path)
		}
		cur = m[s.Key]
	}
	return nil
}

func (r *runtime) configSet(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageError("config set takes <path> <value>")
	}
	path, raw := c.Args().Get(0), c.Args().Get(1)
	if _, err := config.ParsePath(path); err != nil {
		return tools.Errorf(tools.CodeUsage, "%v", err)
	}
	if !c.Bool("force") && !config.KnownPath(path) {
		msg := "config set " + path + ": unknown config key (not in the schema)"
		if s := config.SuggestPath(path); s != "" {
			msg += "; did you mean " + s + "?"
		} else {
			msg += "."
		}
		return tools.Errorf(tools.CodeUsage, "%s Use --force to write it anyway.", msg)
	}
	value, err := config.ParseJSON5([]byte(raw))
	if err != nil {
		if c.Bool("strict-json") {
			return tools.Errorf(tools.CodeUsage, "config set %s: value is not JSON5: %v", path, err)
		}
		value = raw
	}
	return r.editConfig(c, path, func(d *config.Draft) error {
		if err := config.SetPath(d.Doc, path, value); err != nil {
			return tools.Errorf(tools.CodeUsage, "config set %s: %v", path, err)
		}
		return nil
	})
}

func (r *runtime) configUnset(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("config unset takes <path>")
	}
	path := c.Args().First()
	if _, err := config.ParsePath(path); err != nil {
		return tools.Errorf(tools.CodeUsage, "%v", err)
	}
	return r.editConfig(c, path, func(d *config.Draft) error {
		if _, err := config.UnsetPath(d.Doc, path); err != nil {
			return tools.Errorf(tools.CodeUsage, "config unset %s: %v", path, err)
		}
		return nil
	})
}

// editConfig runs one CLI edit through config.Edit, the write path the
// gateway uses too: file lock, --base-hash compare-and-set, validation as
// the file will load ($include, ${VAR}), atomic write with .bak (0600).
// It prints the warnings validate would print.
func (r *runtime) editConfig(c *cli.Context, path string, change func(*config.Draft) error) error {
	p, err := r.Paths(c)
	if err != nil {
		return err
	}
	opts := config.EditOptions{Getenv: r.getenv, DryRun: c.Bool("dry-run")}
	if c.IsSet("base-hash") {
		h := c.String("base-hash")
		opts.BaseHash = &h
	}
	var hadComments bool
	res, err := config.Edit(c.Context, p.ConfigPath, opts, func(d *config.Draft) error {
		if d.ParseErr != nil {
			return tools.Errorf(tools.CodeFailed, "%v (fix it first: openclaw config validate; the previous version is in %s.bak)", d.ParseErr, d.Path)
		}
		if err := refuseThroughInclude(d.Doc, path); err != nil {
			return err
		}
		hadComments = d.Exists && config.HasComments(d.Raw)
		return change(d)
	})
	var inv *config.InvalidError
	switch {
	case errors.Is(err, config.ErrStaleHash):
		return tools.Errorf(tools.CodeFailed, "config changed since last load (--base-hash is stale); re-read it and retry")
	case errors.As(err, &inv):
		if len(inv.Issues) > 0 {
			// An invalid value is invalid input (exit 2), as the exit-code table says.
			return tools.Errorf(tools.CodeInvalidParams, "Config validation failed: %s", issueLine(inv.Issues)).
				WithDetails(map[string]any{"issues": inv.Issues})
		}
		return tools.Errorf(tools.CodeInvalidParams, "Config validation failed: %v", inv.Err)
	case err != nil:
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(r.stderr, "warning: %s\n", w)
	}
	out := map[string]any{"ok": true, "path": res.Path, "changed": nonNil(res.Changed), "dryRun": res.DryRun,
		"hash": res.Hash, "warnings": nonNil(res.Warnings)}
	if res.Noop {
		out["noop"] = true
		if c.Command.Name == "unset" {
			out["message"] = "Nothing to unset: " + path + " is not set"
		}
		return r.emit(c, renderConfigWrite, mustJSON(out))
	}
	if hadComments && !res.DryRun {
		fmt.Fprintf(r.stderr, "warning: Config write will strip JSON5 comments from %s (the old file is kept as %s.bak).\n", res.Path, res.Path)
	}
	return r.emit(c, renderConfigWrite, mustJSON(out))
}

func renderConfigWrite(w io.Writer, v gjson.Result) error {
	if m := v.Get("message"); m.Exists() {
		_, err := fmt.Fprintln(w, m.String())
		return err
	}
	if v.Get("noop").Bool() {
		_, err := fmt.Fprintln(w, "No change")
		return err
	}
	verb := "Updated"
	if v.Get("dryRun").Bool() {
		verb = "Would update"
	}
	_, err := fmt.Fprintf(w, "%s %s in %s\n", verb, joinStrings(v.Get("changed")), v.Get("path").String())
	return err
}

func (r *runtime) configValidate(c *cli.Context) error {
	p, err := r.Paths(c)
	if err != nil {
		return err
	}
	cfg, err := config.Load(p.ConfigPath, r.getenv)
	if err != nil {
		var le *config.LoadError
		if errors.As(err, &le) {
			msg := le.Err.Error()
			if le.HasBackup {
				msg += " (the previous version is in " + le.Path + ".bak)"
			}
			err = errors.New(msg)
		}
		return tools.Errorf(tools.CodeFailed, "%v", err).WithDetails(map[string]any{"valid": false, "path": p.ConfigPath})
	}
	if !cfg.Exists {
		out := map[string]any{"valid": true, "exists": false, "path": cfg.Path, "warnings": []config.Issue{},
			"message": "No config file at " + cfg.Path + "; defaults apply (nothing to validate)."}
		return r.emit(c, func(w io.Writer, v gjson.Result) error {
			_, err := fmt.Fprintln(w, v.Get("message").String())
			return err
		}, mustJSON(out))
	}
	issues, warnings := config.Validate(cfg.Doc)
	if len(issues) > 0 {
		return tools.Errorf(tools.CodeFailed, "%s", config.FormatIssues(cfg.Path, issues)).
			WithDetails(map[string]any{"valid": false, "path": cfg.Path, "issues": issues, "warnings": warnings})
	}
	for _, w := range warnings {
		fmt.Fprintf(r.stderr, "warning: %s\n", config.FormatWarning(w))
	}
	out := map[string]any{"valid": true, "path": cfg.Path, "exists": cfg.Exists, "hash": cfg.Hash, "warnings": warnings}
	if warnings == nil {
		out["warnings"] = []config.Issue{}
	}
	return r.emit(c, func(w io.Writer, v gjson.Result) error {
		_, err := fmt.Fprintf(w, "Config valid: %s\n", v.Get("path").String())
		return err
	}, mustJSON(out))
}

func issueLine(issues []config.Issue) string {
	parts := make([]string, len(issues))
	for i, is := range issues {
		parts[i] = is.Path + ": " + is.Message
	}
	return strings.Join(parts, "; ")
}
