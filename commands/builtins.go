package commands

import (
	"fmt"
	"io"
	"slices"

	"github.com/openclaw-go/openclaw/policy"
	"sort"

	"github.com/urfave/cli/v2"
)

// builtinCommands are the commands that are not tool actions.
func (r *runtime) builtinCommands() []*cli.Command {
	cmds := []*cli.Command{
		r.toolsCommand(),
		r.configCommand(),
		r.completionCommand(),
		r.gatewayCommand(),
		r.serveCommand("serve"),
		r.healthCommand(),
		r.devicesCommand(),
		r.nodeCommand(),
		r.approvalsCommand(),
		r.logsCommand(),
		r.tasksCommand(),
		r.channelsCommand(),
		r.pairingCommand(),
		r.sandboxCommand(),
		r.cronCommand(),
		r.agentCommand(),
		r.configureCommand(),
		r.docsCommand(),
		r.doctorCommand(),
		r.mcpCommand(),
		r.skillsCommand(),
		{
			Name:  "version",
			Usage: "print the version (on a terminal the line -v prints; piped or with --json {\"version\"})",
			Flags: outputFlags(),
			Action: func(c *cli.Context) error {
				if r.jsonMode(c) { // piped: one JSON shape, as every command
					return r.emit(c, nil, mustJSON(map[string]string{"version": Version}))
				}
				return r.printVersion()
			},
		},
	}
	cmds = slices.DeleteFunc(cmds, func(c *cli.Command) bool { return c == nil }) // a family not linked
	for _, c := range cmds {
		switch c.Name {
		case "gateway", "serve", "health", "logs", "devices", "tasks", "node", "cron":
			c.Category = policy.GroupLabel("group:automation")
		default:
			if c.Category == "" { // agent names its own (Sessions and agents)
				c.Category = "Setup"
			}
		}
	}
	return cmds
}

// mergeCommands folds commands that share a name into one group, so the
// `gateway` agent tool's verbs and `gateway call` live side by side.
func mergeCommands(cmds []*cli.Command) []*cli.Command {
	byName := map[string]*cli.Command{}
	var out []*cli.Command
	for _, c := range cmds {
		prev, ok := byName[c.Name]
		if !ok {
			byName[c.Name] = c
			out = append(out, c)
			continue
		}
		if len(c.Subcommands) > 0 && prev.Action == nil {
			prev.Subcommands = append(prev.Subcommands, c.Subcommands...)
			if c.Usage != "" && len(c.Usage) > len(prev.Usage) {
				prev.Usage = c.Usage
			}
			continue
		}
		if len(prev.Subcommands) > 0 && c.Action == nil {
			prev.Subcommands = append(prev.Subcommands, c.Subcommands...)
			continue
		}
		if len(prev.Subcommands) == 0 && len(c.Subcommands) > 0 && c.Action == nil {
			// A group of built-in verbs named like a single-action agent
			// tool (cron) takes its place on the command line; the tool
			// stays an agent tool (tools.invoke, tools schema).
			for i := range out {
				if out[i] == prev {
					out[i] = c
				}
			}
			byName[c.Name] = c
			continue
		}
		panic("commands: two commands named " + c.Name)
	}
	for _, c := range out {
		sort.Slice(c.Subcommands, func(i, j int) bool { return c.Subcommands[i].Name < c.Subcommands[j].Name })
	}
	return out
}

// printVersion writes the one version line, the same for `openclaw -v`,
// `--version` and `openclaw version`, in the original's form ("OpenClaw
// 2026.9.6 (eb377ac)" there).
func (r *runtime) printVersion() error { return versionLine(r.stdout) }

func versionLine(w io.Writer) error {
	_, err := fmt.Fprintln(w, "OpenClaw "+Version)
	return err
}

// urfave's -v/--version goes through its package-level printer: set once,
// not per app, so apps built in parallel (tests) do not race on it.
func init() { cli.VersionPrinter = func(c *cli.Context) { versionLine(c.App.Writer) } }
