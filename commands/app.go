// Package commands builds the `openclaw` command line from the tool registry
// plus the commands that are not tools (serve, config, tools, completion).
package commands

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/urfave/cli/v2"
)

// Version is the CLI version (set with -ldflags at build time).
var Version = "2026.9.6-go"

// Main runs the CLI and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := runEntrypoint(args, stdin, stdout, stderr); ok {
		return code
	}
	r := newRuntime(stdin, stdout, stderr)
	r.io = newIOStreams(stdin, stdout, stderr, r.getenv, hasFlag(args, "no-color"))
	if !completionRequested(args) {
		r.cmdWord = commandWord(args) // build only that command's schema flags (lazyflags.go)
	}
	app := r.newApp()
	if completionRequested(args) {
		complete(app, args, r.getenv("OPENCLAW_COMPLETE"), stdout)
		return 0
	}
	args, err := helpArgs(app, args)
	if err != nil {
		return r.report(err, hasFlag(args, "json") || !isTerminal(stdout))
	}
	args = normalizeArgs(app, args)
	r.urlFlag = hasFlag(args, "url")
	jsonOut := hasFlag(args, "json") || !isTerminal(stdout)
	if err := app.Run(args); err != nil {
		var ec exitCode
		if errors.As(err, &ec) {
			return int(ec)
		}
		if isUsage(err) {
			err = tools.Errorf(tools.CodeUsage, "%s", dashFlags(err.Error()))
		}
		return r.report(err, jsonOut)
	}
	return 0
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--"+name || a == "-"+name || strings.HasPrefix(a, "--"+name+"=") {
			return true
		}
	}
	return false
}

// newApp builds the whole command tree.
func (r *runtime) newApp() *cli.App {
	app := &cli.App{
		Name:                      "openclaw",
		Usage:                     "the OpenClaw agent tools as composable commands, and their gateway",
		Description:               "Run `openclaw help COMMAND...` (or `openclaw COMMAND... --help`) for a command's flags and examples.",
		Version:                   Version,
		Writer:                    r.stdout,
		ErrWriter:                 r.stderr,
		DisableSliceFlagSeparator: true,
		HideHelpCommand:           true,
		ExitErrHandler:            func(*cli.Context, error) {},
		CustomAppHelpTemplate:     cli.AppHelpTemplate + exitCodesHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", Usage: "use the state and config of profile `NAME` (~/.openclaw-NAME)", EnvVars: []string{"OPENCLAW_PROFILE"}},
			&cli.BoolFlag{Name: "dev", Usage: "use the dev instance (~/.openclaw-dev, gateway port 19001)"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour output (NO_COLOR is honoured too)"},
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageError("%s (see `openclaw --help`)", dashFlags(err.Error()))
		},
	}
	// The instance (--profile/--dev) is known before any command runs, so
	// every hint can repeat it (profilehint.go); a bad name is reported by
	// the command that needs the paths.
	app.Before = func(c *cli.Context) error { _, _ = r.Paths(c); return nil }
	app.Commands = mergeCommands(append(r.toolCommands(), r.builtinCommands()...))
	sort.SliceStable(app.Commands, func(i, j int) bool { return app.Commands[i].Name < app.Commands[j].Name })
	app.Action = func(c *cli.Context) error {
		if c.NArg() > 0 {
			return unknownCommand("openclaw", c.Args().First(), app.Commands)
		}
		return cli.ShowAppHelp(c)
	}
	r.buildFlags(app.Commands)
	r.buildFlags(app.Commands)
	finishTree(app.Commands)
	return app
}

// finishTree gives every command the exit-code help, usage-error handling
// and, for groups, an action that rejects unknown verbs with a suggestion.
func finishTree(cmds []*cli.Command) {
	for _, c := range cmds {
		c := c
		fixFlags(c.Flags)
		if c.OnUsageError == nil {
			c.OnUsageError = func(ctx *cli.Context, err error, _ bool) error {
				return usageError("%s (see `%s --help`)", dashFlags(err.Error()), ctx.Command.HelpName)
			}
		}
		if len(c.Subcommands) > 0 {
			c.CustomHelpTemplate = subcommandHelp()
			c.HideHelpCommand = true
			if c.Action == nil {
				c.Action = func(ctx *cli.Context) error {
					if ctx.NArg() > 0 {
						return unknownCommand(ctx.Command.HelpName, ctx.Args().First(), c.Subcommands)
					}
					return cli.ShowSubcommandHelp(ctx)
				}
			}
			finishTree(c.Subcommands)
		} else {
			c.CustomHelpTemplate = commandHelp()
		}
	}
}

// The help templates are joined once and shared by every command: joining
// them per command cost ~150 KB of copies on every start.
var (
	commandHelp    = sync.OnceValue(func() string { return cli.CommandHelpTemplate + exitCodesHelp })
	subcommandHelp = sync.OnceValue(func() string { return cli.SubcommandHelpTemplate + exitCodesHelp })
)

func unknownCommand(parent, word string, cmds []*cli.Command) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q", word, parent)
	if s := tools.Closest(word, names); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", s[0])
	}
	e := tools.Errorf(tools.CodeUsage, "%s (see `%s --help`)", msg, parent)
	return e
}
