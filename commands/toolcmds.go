package commands

import (
	"fmt"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/urfave/cli/v2"
)

// reservedFlags are the flags every tool command has; a schema property of
// the same name is reachable positionally or through --params.
var reservedFlags = map[string]bool{
	"json": true, "query": true, "raw": true, "r": true, "params": true, "url": true, "token": true,
	"password": true, "timeout": true, "remote": true, "help": true, "h": true,
	"stream": true,
}

// outputFlags select the output form.
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print the result JSON only (the default when stdout is not a terminal)"},
		&cli.StringFlag{Name: "query", Usage: "print only the part of the result at gjson `PATH`"},
		&cli.BoolFlag{Name: "raw", Aliases: []string{"r"}, Usage: "print a string result without JSON quotes (as jq -r; with --query)"},
	}
}

// connFlags choose and authenticate a gateway.
func connFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "url", Usage: "gateway WebSocket `URL` (env OPENCLAW_GATEWAY_URL, config gateway.remote.url)", EnvVars: []string{"OPENCLAW_GATEWAY_URL"}},
		&cli.StringFlag{Name: "token", Usage: "gateway `TOKEN` (env OPENCLAW_GATEWAY_TOKEN)", EnvVars: []string{"OPENCLAW_GATEWAY_TOKEN"}},
		&cli.StringFlag{Name: "password", Usage: "gateway `PASSWORD` (env OPENCLAW_GATEWAY_PASSWORD)", EnvVars: []string{"OPENCLAW_GATEWAY_PASSWORD"}},
		&cli.DurationFlag{Name: "timeout", Usage: "give up after `DURATION`: seconds (5) or 5s, 2m (default 30s for a relayed tool, 10s for gateway calls; none for a local tool)"},
	}
}

// toolCommands builds one command per tool action, grouped by family. An
// action's path is its Command when it declares one (canvas's a2ui_push is
// `nodes canvas a2ui push`), otherwise commandPath's; groups are shared by
// every action whose path passes through them.
func (r *runtime) toolCommands() []*cli.Command {
	groups := map[string]*cli.Command{}
	owned := map[string]bool{} // groups titled by the tool whose default path they are
	var top []*cli.Command
	// group returns the group at words, creating it (and its parents).
	var group func(words []string, tool string, multi bool) *cli.Command
	group = func(words []string, tool string, multi bool) *cli.Command {
		k := strings.Join(words, " ")
		if g := groups[k]; g != nil {
			return g
		}
		g := &cli.Command{Name: words[len(words)-1], Usage: words[len(words)-1] + " commands"}
		if len(words) > 1 { // nested words (`nodes camera snap`)
			g.Usage = "the " + tool + " tool's " + g.Name + " actions"
		}
		groups[k] = g
		if len(words) == 1 {
			g.Category = category(tool)
			top = append(top, g)
		} else {
			p := group(words[:len(words)-1], tool, multi)
			p.Subcommands = append(p.Subcommands, g)
		}
		return g
	}
	for _, name := range tools.ToolNames() {
		acts := tools.ToolActions(name)
		multi := len(acts) > 1 || (len(acts) == 1 && acts[0].Verb != "")
		for _, a := range acts {
			path := actionPath(a, multi)
			cmd := r.actionCommand(a, path[len(path)-1])
			if len(path) == 1 {
				cmd.Category = category(name)
				top = append(top, cmd)
				continue
			}
			words := path[:len(path)-1]
			g := group(words, name, multi)
			g.Subcommands = append(g.Subcommands, cmd)
			if k := strings.Join(words, " "); len(a.Command) == 0 && len(words) == 1 && !owned[k] {
				owned[k] = true
				g.Usage, g.Category = groupUsage(words[0], name, multi), category(name)
			} else if len(a.Command) > 0 && !owned[k] && kebab(name) == words[len(words)-1] {
				g.Usage = groupUsage(kebab(name), name, true) // `nodes canvas`: the canvas tool
			}
		}
	}
	for _, g := range groups {
		sort.Slice(g.Subcommands, func(i, j int) bool { return g.Subcommands[i].Name < g.Subcommands[j].Name })
		g.Usage += ": " + verbList(g.Subcommands, 8)
	}
	return top
}

// actionPath is an action's words on the command line.
func actionPath(a *tools.Action, multi bool) []string {
	if len(a.Command) > 0 {
		return a.Command
	}
	return commandPath(a.Tool, a.Verb, multi)
}

// verbList names a group's subcommands in its one-line usage, so
// `openclaw --help` says what `openclaw browser` can do without a second look.
func verbList(cmds []*cli.Command, most int) string {
	names := make([]string, 0, most)
	for i, c := range cmds {
		if i == most {
			return strings.Join(names, ", ") + fmt.Sprintf(", … (%d in all)", len(cmds))
		}
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// category titles the help section of a tool by its policy group, so
// `openclaw --help` reads by family.
func category(tool string) string {
	if g := policy.PrimaryGroup(tool); g != "" {
		return policy.GroupLabel(g)
	}
	return "Other tools"
}

func groupUsage(group, tool string, multi bool) string {
	if multi {
		return "the " + tool + " tool"
	}
	return group + " tools"
}

// actionCommand is the CLI face of one action: its schema properties as
// flags, its Args as positionals.
func (r *runtime) actionCommand(a *tools.Action, name string) *cli.Command {
	cmd := &cli.Command{
		Name:      name,
		Usage:     a.Summary,
		ArgsUsage: argsUsageLine(a),
		Action: func(c *cli.Context) error {
			params, err := buildParams(c, a, r.stdin)
			if err != nil {
				return err
			}
			if err := r.takeURLParam(c, a, params); err != nil { // urlparam.go
				return err
			}
			r.sink = newSink(r.stdout, r.stderr, c.Bool("stream"), c.Bool("json"))
			r.expectFinal = true
			res, err := r.run(c, a, params)
			r.sink.finish()
			if err != nil {
				return r.sink.liveError(err) // output shown live is not repeated (sink.go)
			}
			if toStdout, err := r.writeOut(c, res); err != nil || toStdout {
				return err
			}
			return r.emitTool(c, r.sink.liveRender(a.Render), res) // output shown live is not repeated (sink.go)
		},
	}
	r.deferDetails(cmd, func(cmd *cli.Command) { // lazyflags.go
		cmd.Description = describe(a)
		cmd.Flags = actionFlags(a)
	})
	return cmd
}

// actionFlags are a tool command's flags: output, params, connection,
// media and its schema properties.
func actionFlags(a *tools.Action) []cli.Flag {
	flags := append(outputFlags(),
		&cli.StringFlag{Name: "params", Usage: "params as a JSON object, @file, or - for stdin (flags override)"},
		&cli.BoolFlag{Name: "stream", Usage: "print progress and events as NDJSON on stdout, then the result line"})
	if a.Where != tools.Gateway {
		flags = append(flags, &cli.BoolFlag{Name: "remote", Usage: "run on the gateway instead of in this process"})
	}
	flags = append(flags, connFlags()...)
	flags = append(flags, mediaFlags(a)...) // --out (media_out.go)
	return append(flags, schemaFlags(a)...)
}

// propFlag is the flag of a schema property: its name in kebab case, or
// tool-<name> when every command already has a flag of that name (process
// poll's wait `timeout` is --tool-timeout; --timeout is the call's own
// deadline). "" when the property is only positional or stdin: its flag
// would shadow nothing and clutter the help.
func propFlag(a *tools.Action, p prop) string {
	fl := kebab(p.Name)
	if f, _ := flagSpec(a, p.Name); f != "" {
		fl = f
	}
	if !reservedFlags[fl] {
		return fl
	}
	if p.Name == a.StdinParam {
		return ""
	}
	for _, arg := range a.Args {
		if strings.TrimSuffix(arg, "...") == p.Name {
			return ""
		}
	}
	return "tool-" + fl
}

// flagSpec reads Action.Flags[param]: "name" or "name,alias..." (the
// original CLI's -m for --message).
func flagSpec(a *tools.Action, param string) (string, []string) {
	f := a.Flags[param]
	if f == "" {
		return "", nil
	}
	parts := strings.Split(f, ",")
	return parts[0], parts[1:]
}

// flagAliases are a property's short names, unless the flag was renamed
// away from the spec's name (a reserved one).
func flagAliases(a *tools.Action, p prop, fl string) []string {
	name, aliases := flagSpec(a, p.Name)
	if name != fl && kebab(p.Name) != fl {
		return nil
	}
	return aliases
}

// schemaFlags are an action's schema properties as flags (see propFlag).
func schemaFlags(a *tools.Action) []cli.Flag {
	var flags []cli.Flag
	for _, p := range schemaProps(a.Schema) {
		fl := propFlag(a, p)
		if fl == "" {
			continue
		}
		usage := p.Description
		if isFileParam(a, p.Name) {
			usage = strings.TrimSpace(usage + " (here: a FILE to read it from, - for stdin)")
		}
		if fl != kebab(p.Name) && fl == "tool-"+kebab(p.Name) {
			usage = strings.TrimSpace(usage + " (the tool's " + p.Name + " param; --" + kebab(p.Name) + " is this command's own flag)")
		}
		if len(p.Enum) > 0 {
			usage += " (" + strings.Join(p.Enum, "|") + ")"
		}
		al := flagAliases(a, p, fl)
		switch {
		case p.is("boolean") && len(p.Types) == 1:
			flags = append(flags, &cli.BoolFlag{Name: fl, Aliases: al, Usage: usage})
		case p.is("array"):
			flags = append(flags, &cli.StringSliceFlag{Name: fl, Aliases: al, Usage: usage + " (repeatable)"})
		default:
			flags = append(flags, &cli.StringFlag{Name: fl, Aliases: al, Usage: usage + typeHint(p)})
		}
	}
	return flags
}

func typeHint(p prop) string {
	if len(p.Types) == 0 {
		return ""
	}
	return " [" + strings.Join(p.Types, "|") + "]"
}

func argsUsageLine(a *tools.Action) string {
	parts := make([]string, len(a.Args))
	for i, n := range a.Args {
		parts[i] = "<" + n + ">"
	}
	return strings.Join(parts, " ")
}

// describe is the long help: description, where it runs, examples.
func describe(a *tools.Action) string {
	var b strings.Builder
	if a.Description != "" {
		b.WriteString(a.Description)
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "Agent tool: %s", a.Tool)
	if a.Verb != "" {
		fmt.Fprintf(&b, " (action %q)", a.Verb)
	}
	fmt.Fprintf(&b, ". Runs: %s.", a.Where)
	if len(a.Examples) > 0 {
		b.WriteString("\n\nEXAMPLES:\n")
		for _, e := range a.Examples {
			b.WriteString("   " + e + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
