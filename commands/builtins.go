package commands

import (
	"fmt"

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
		r.approvalsCommand(),
		r.logsCommand(),
		r.tasksCommand(),
		r.configureCommand(),
		r.docsCommand(),
		r.doctorCommand(),
		{
			Name:  "version",
			Usage: "print the version",
			Flags: outputFlags(),
			Action: func(c *cli.Context) error {
				if r.jsonMode(c) {
					return r.emit(c, nil, mustJSON(map[string]string{"version": Version}))
				}
				_, err := fmt.Fprintln(r.stdout, "openclaw "+Version)
				return err
			},
		},
	}
	for _, c := range cmds {
		switch c.Name {
		case "gateway", "serve", "health", "logs", "devices", "tasks":
			c.Category = policy.GroupLabel("group:automation")
		default:
			c.Category = "Setup"
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
		panic("commands: two commands named " + c.Name)
	}
	for _, c := range out {
		sort.Slice(c.Subcommands, func(i, j int) bool { return c.Subcommands[i].Name < c.Subcommands[j].Name })
	}
	return out
}
