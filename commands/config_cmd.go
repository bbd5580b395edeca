package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/config"
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
				Name: "get", Usage: "print the value at a dot/bracket path (the whole config without one)",
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
					&cli.BoolFlag{Name: "dry-run", Usage: "validate and show the change without writing"}),
				Action: r.configSet,
			},
			{
				Name: "unset", Usage: "remove the value at a path",
				ArgsUsage: "<path>",
				Flags:     append(outputFlags(), &cli.BoolFlag{Name: "dry-run", Usage: "show the change without writing"}),
				Action:    r.configUnset,
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
	if !ok {
		if _, err := config.SchemaLookup(path); err == nil {
			return tools.Errorf(tools.CodeNotFound, "Config path is valid but unset: %s. The runtime default applies until you set an authored value with openclaw config set %s <value>.", path, path)
		}
		return tools.Errorf(tools.CodeNotFound, "Config path not found: %s.", path)
	}
	return r.emit(c, renderPlain, mustJSON(v))
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

// authored loads the file as written (no $include merge, no ${VAR}
// substitution) so a write never flattens includes or bakes in secrets.
func (r *runtime) authored(c *cli.Context) (*config.Config, map[string]any, error) {
	cfg, err := r.Config(c)
	if err != nil {
		return nil, nil, err
	}
	doc := map[string]any{}
	if cfg.Exists && len(strings.TrimSpace(string(cfg.Raw))) > 0 {
		v, err := config.ParseJSON5(cfg.Raw)
		if err != nil {
			return nil, nil, fmt.Errorf("config %s: %w", cfg.Path, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("config %s: the top level must be an object", cfg.Path)
		}
		doc = m
	}
	return cfg, doc, nil
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
	cfg, doc, err := r.authored(c)
	if err != nil {
		return err
	}
	if err := refuseThroughInclude(doc, path); err != nil {
		return err
	}
	value, err := config.ParseJSON5([]byte(raw))
	if err != nil {
		if c.Bool("strict-json") {
			return tools.Errorf(tools.CodeUsage, "config set %s: value is not JSON5: %v", path, err)
		}
		value = raw
	}
	before := deepCopy(doc)
	if err := config.SetPath(doc, path, value); err != nil {
		return tools.Errorf(tools.CodeUsage, "config set %s: %v", path, err)
	}
	return r.writeConfig(c, cfg, before, doc, path)
}

func (r *runtime) configUnset(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("config unset takes <path>")
	}
	path := c.Args().First()
	cfg, doc, err := r.authored(c)
	if err != nil {
		return err
	}
	if err := refuseThroughInclude(doc, path); err != nil {
		return err
	}
	before := deepCopy(doc)
	ok, err := config.UnsetPath(doc, path)
	if err != nil {
		return tools.Errorf(tools.CodeUsage, "config unset %s: %v", path, err)
	}
	if !ok {
		return tools.Errorf(tools.CodeNotFound, "Config path not found: %s. Nothing was changed.", path)
	}
	return r.writeConfig(c, cfg, before, doc, path)
}

// writeConfig validates, writes (unless --dry-run) and reports what changed.
func (r *runtime) writeConfig(c *cli.Context, cfg *config.Config, before, after map[string]any, path string) error {
	issues, _ := config.Validate(after)
	if len(issues) > 0 {
		return tools.Errorf(tools.CodeFailed, "Config validation failed: %s", issueLine(issues)).
			WithDetails(map[string]any{"issues": issues})
	}
	changed := config.ChangedPaths(before, after)
	out := map[string]any{"ok": true, "path": cfg.Path, "changed": nonNil(changed), "dryRun": c.Bool("dry-run")}
	if len(changed) == 0 {
		out["noop"] = true
		return r.emit(c, renderConfigWrite, mustJSON(out))
	}
	if !c.Bool("dry-run") {
		if cfg.Exists && hasComments(cfg.Raw) {
			fmt.Fprintf(r.stderr, "warning: Config write will strip JSON5 comments from %s (the old file is kept as %s.bak).\n", cfg.Path, cfg.Path)
		}
		hash, err := config.Write(cfg.Path, after)
		if err != nil {
			return fmt.Errorf("config write: %w", err)
		}
		out["hash"] = hash
	}
	return r.emit(c, renderConfigWrite, mustJSON(out))
}

func renderConfigWrite(w io.Writer, v gjson.Result) error {
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
		return tools.Errorf(tools.CodeFailed, "%v", err).WithDetails(map[string]any{"valid": false, "path": p.ConfigPath})
	}
	issues, warnings := config.Validate(cfg.Doc)
	if len(issues) > 0 {
		return tools.Errorf(tools.CodeFailed, "%s", config.FormatIssues(cfg.Path, issues)).
			WithDetails(map[string]any{"valid": false, "path": cfg.Path, "issues": issues, "warnings": warnings})
	}
	out := map[string]any{"valid": true, "path": cfg.Path, "exists": cfg.Exists, "warnings": warnings}
	if warnings == nil {
		out["warnings"] = []config.Issue{}
	}
	return r.emit(c, func(w io.Writer, v gjson.Result) error {
		for _, wr := range v.Get("warnings").Array() {
			fmt.Fprintf(r.stderr, "warning: %s: %s\n", wr.Get("path").String(), wr.Get("message").String())
		}
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

func hasComments(raw []byte) bool {
	s := string(raw)
	return strings.Contains(s, "//") || strings.Contains(s, "/*")
}

func deepCopy(m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		return map[string]any{}
	}
	out := map[string]any{}
	_ = json.Unmarshal(b, &out)
	return out
}
