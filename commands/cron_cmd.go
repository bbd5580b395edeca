package commands

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/tools"
)

// cronCommand is `openclaw cron …`: the original's commands over the
// gateway's cron.* methods. Reading verbs (status, list, get, runs), rm,
// run, enable/disable and wake are generated from the methods
// (methodcmds.go) with the original's flag spellings added; add and edit
// are written here because the original's flags (--every 10m,
// --system-event, --announce, --exact, …) each build part of a nested job
// (cron_flags.go); next runs the scheduler's own next-run code in this
// process (the cron.next action).
func (r *runtime) cronCommand() *cli.Command {
	if tools.ByMethod("cron.list") == nil {
		return nil // a binary without the cron family (a family's own tests)
	}
	m := func(method, name string, x methodExtra) *cli.Command {
		a := tools.ByMethod(method)
		if a == nil {
			panic("commands: no method " + method)
		}
		return r.methodCommand(a, name, x)
	}
	setPatch := func(enabled bool) methodExtra {
		return methodExtra{Prepare: func(r *runtime, c *cli.Context, params map[string]any) error {
			if _, given := params["patch"]; given {
				return tools.Errorf(tools.CodeUsage, "cron %s takes no --patch", c.Command.Name)
			}
			params["patch"] = map[string]any{"enabled": enabled}
			return nil
		}}
	}
	rm := m("cron.remove", "rm", methodExtra{})
	rm.Aliases = []string{"remove"}
	enable, disable := m("cron.update", "enable", setPatch(true)), m("cron.update", "disable", setPatch(false))
	enable.Usage, disable.Usage = "enable a job", "disable a job (it stays listed with --all)"
	cmds := []*cli.Command{
		m("cron.status", "status", methodExtra{}),
		m("cron.list", "list", methodExtra{
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "all", Usage: "include disabled jobs (the original's spelling of --include-disabled)"},
				&cli.StringFlag{Name: "agent", Usage: "only the jobs of agent `ID` (the original's spelling of --agent-id)"},
			},
			Prepare: func(r *runtime, c *cli.Context, params map[string]any) error {
				if c.Bool("all") {
					params["includeDisabled"] = true
				}
				if _, ok := params["limit"]; !ok {
					params["limit"] = 200 // one page as the original CLI asks, the most a gateway serves
				}
				return aliasFlags(map[string]string{"agent": "agentId"})(r, c, params)
			},
		}),
		m("cron.get", "get", methodExtra{}),
		m("cron.runs", "runs", methodExtra{}),
		m("cron.run", "run", methodExtra{
			Flags: []cli.Flag{&cli.BoolFlag{Name: "due", Usage: "run only if the job is due (default: run now whatever its schedule)"}},
			Prepare: func(r *runtime, c *cli.Context, params map[string]any) error {
				if c.Bool("due") {
					params["mode"] = "due"
				}
				return nil
			},
		}),
		rm,
		enable, disable,
		m("wake", "wake", methodExtra{}),
		r.cronWriteCommand("add", "cron.add", "add a job",
			"A job needs one schedule (--at, --every or --cron) and one payload (--system-event for the main\n"+
				"session, --message for an isolated agent turn). --at takes an ISO time (no offset: UTC, or wall\n"+
				"time in --tz), epoch ms or a duration from now (20m); such jobs are deleted after a successful\n"+
				"run unless --keep-after-run. Durations: 500ms, 30s, 5m, 2h, 1d, 1h30m.\n\n"+
				"EXAMPLES:\n   openclaw cron add --name standup --cron '0 9 * * 1-5' --tz Europe/Berlin --system-event 'Stand-up in 10 minutes'\n"+
				"   openclaw cron add --name ping --every 10m --system-event ping --json\n"+
				"   openclaw cron add --name brief --cron '0 7 * * *' --message 'Summarize overnight updates' --announce --channel slack --to channel:C123",
			cronAddFlags(), buildCronAdd),
		r.cronWriteCommand("edit", "cron.update", "change a job (only the fields given)",
			"Takes the flags of add, plus --enable/--disable and --clear-* to unset a field.\n\n"+
				"EXAMPLES:\n   openclaw cron edit 6f1c… --every 5m\n   openclaw cron edit 6f1c… --disable\n   openclaw cron edit 6f1c… --clear-model",
			cronEditFlags(), buildCronEdit),
		r.cronNextCommand(),
	}
	return &cli.Command{
		Name:  "cron",
		Usage: "scheduled jobs on the gateway: status, list, get, add, edit, enable, disable, rm, run, runs, wake, next",
		Description: "Jobs live in the gateway's state database and run inside `openclaw serve` (cron.* methods).\n\n" +
			"EXAMPLES:\n   openclaw cron add --name ping --every 10m --system-event ping\n   openclaw cron list --all\n" +
			"   openclaw cron runs --id 6f1c…\n   openclaw cron next '0 9 * * 1-5' --tz America/New_York --count 3",
		Subcommands: cmds,
	}
}

// cronWriteCommand is add or edit: its own flags build the method's
// params; output and connection flags as every gateway command has.
func (r *runtime) cronWriteCommand(name, method, usage, desc string, flags []cli.Flag,
	build func(r *runtime, c *cli.Context, now int64) (map[string]any, error)) *cli.Command {
	a := tools.ByMethod(method)
	if a == nil {
		panic("commands: no method " + method)
	}
	args := " "
	if name == "edit" {
		args = "<id>"
	}
	cmd := &cli.Command{
		Name: name, Usage: usage, ArgsUsage: args,
		Action: func(c *cli.Context) error {
			params, err := build(r, c, nowMs())
			if err != nil {
				return err
			}
			issues, err := a.ValidateValue(params)
			if err != nil {
				return err
			}
			if len(issues) > 0 {
				return tools.Errorf(tools.CodeUsage, "%s: %s (see `%s --help`)", c.Command.HelpName, tools.FormatIssues(issues), c.Command.HelpName)
			}
			raw, err := json.Marshal(params)
			if err != nil {
				return fmt.Errorf("%s params: %w", method, err)
			}
			res, err := r.callScopes(c, method, []string{a.RequiredScope()}, raw, methodTimeout)
			if err != nil {
				return err
			}
			return r.emit(c, a.Render, res)
		},
	}
	if name == "add" {
		cmd.Aliases = []string{"create"}
	}
	r.deferDetails(cmd, func(cmd *cli.Command) {
		cmd.Description = desc + fmt.Sprintf("\n\nGateway method: %s (scope %s).", a.Method, a.RequiredScope())
		cmd.Flags = append(append(outputFlags(), connFlags()...), flags...)
	})
	return cmd
}

// cronNextCommand is `openclaw cron next EXPR`: the cron.next action in
// this process (no gateway).
func (r *runtime) cronNextCommand() *cli.Command {
	a := tools.ByMethod("cron.next")
	if a == nil {
		panic("commands: no method cron.next")
	}
	cmd := &cli.Command{
		Name: "next", Usage: lowerFirst(a.Summary), ArgsUsage: "<expr>",
		Action: func(c *cli.Context) error {
			params, err := buildParams(c, a, r.stdin)
			if err != nil {
				return err
			}
			issues, err := a.ValidateValue(params)
			if err != nil {
				return err
			}
			if len(issues) > 0 {
				return tools.Errorf(tools.CodeUsage, "%s: %s (see `%s --help`)", c.Command.HelpName, tools.FormatIssues(issues), c.Command.HelpName)
			}
			res, err := r.run(c, a, params)
			if err != nil {
				return err
			}
			return r.emit(c, a.Render, res)
		},
	}
	r.deferDetails(cmd, func(cmd *cli.Command) {
		var b strings.Builder
		b.WriteString(a.Description + "\n\nEXAMPLES:\n")
		for _, e := range a.Examples {
			b.WriteString("   " + e + "\n")
		}
		cmd.Description = strings.TrimRight(b.String(), "\n")
		cmd.Flags = append(outputFlags(), schemaFlags(a)...)
	})
	return cmd
}
