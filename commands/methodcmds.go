package commands

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/tools"
)

// methodGroup is a CLI group whose verbs are generated from the gateway
// methods registered under one prefix (`openclaw devices approve` →
// device.pair.approve), the way tool commands are generated from tool
// actions: the action's Summary is the usage line, its Args the
// positionals, its schema properties the flags, its Render the human output.
type methodGroup struct {
	Name, Usage, Description string
	Prefix                   string
	// Also lists further prefixes whose methods join the group
	// (device.token.rotate → `openclaw devices rotate`).
	Also []string
	// Except lists prefixes whose methods another group shows
	// (channels.pairing.* → `openclaw pairing`).
	Except []string
	// Extras adds CLI-only behaviour to a verb, by method.
	Extras map[string]methodExtra
}

// methodExtra is what a verb's command line adds to its method.
type methodExtra struct {
	Flags []cli.Flag
	// Prepare may fill params from the extra flags before the call.
	Prepare func(r *runtime, c *cli.Context, params map[string]any) error
	// Retry, given the call's error, returns scopes to ask again with (nil: no retry).
	Retry func(err error) []string
}

// methodTimeout is the default wait for a gateway method call.
const methodTimeout = 10 * time.Second

// methodGroupCommand builds the group's command from the registry.
func (r *runtime) methodGroupCommand(g methodGroup) *cli.Command {
	var verbs []*cli.Command
	for _, m := range tools.Methods() {
		a := tools.ByMethod(m)
		verb, ok := g.verb(m)
		if a == nil || a.Hidden || !ok {
			continue
		}
		verbs = append(verbs, r.methodCommand(a, verb, g.Extras[m]))
	}
	sort.Slice(verbs, func(i, j int) bool { return verbs[i].Name < verbs[j].Name })
	return &cli.Command{Name: g.Name, Usage: g.Usage, Description: g.Description, Subcommands: verbs}
}

// verb is the method's command name in the group, if the group has it.
func (g methodGroup) verb(method string) (string, bool) {
	for _, p := range g.Except {
		if strings.HasPrefix(method, p) {
			return "", false
		}
	}
	if strings.HasPrefix(method, g.Prefix) {
		return strings.TrimPrefix(method, g.Prefix), true
	}
	for _, p := range g.Also {
		if strings.HasPrefix(method, p) {
			return strings.TrimPrefix(method, p), true
		}
	}
	return "", false
}

// methodCommand is the CLI face of one gateway method: it always runs on
// the gateway, with the method's own scope; params are checked against the
// method's schema here first, so a missing argument is a usage error
// (exit 2) without a connection.
func (r *runtime) methodCommand(a *tools.Action, name string, x methodExtra) *cli.Command {
	args := argsUsageLine(a)
	if args == "" {
		args = " " // no "[arguments...]" in help
	}
	cmd := &cli.Command{
		Name:      name,
		Usage:     lowerFirst(a.Summary), // as the other built-in commands' usage lines
		ArgsUsage: args,
		Action: func(c *cli.Context) error {
			params, err := buildParams(c, a, r.stdin)
			if err != nil {
				return err
			}
			if x.Prepare != nil {
				if err := x.Prepare(r, c, params); err != nil {
					return err
				}
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
				return fmt.Errorf("%s params: %w", a.Method, err)
			}
			res, err := r.callScopes(c, a.Method, a.ScopesFor(raw), raw, methodTimeout)
			if err != nil && x.Retry != nil {
				if scopes := x.Retry(err); scopes != nil {
					res, err = r.callScopes(c, a.Method, scopes, raw, methodTimeout)
				}
			}
			if err != nil {
				return err
			}
			if err := notFoundAnswer(a, params, res); err != nil {
				return err
			}
			return r.emit(c, a.Render, res)
		},
	}
	r.deferDetails(cmd, func(cmd *cli.Command) { // lazyflags.go
		cmd.Description = describeMethod(a)
		flags := append(outputFlags(),
			&cli.StringFlag{Name: "params", Usage: "params as a JSON object, @file, or - for stdin (flags override)"})
		flags = append(flags, connFlags()...)
		flags = append(flags, x.Flags...)
		cmd.Flags = append(flags, schemaFlags(a)...)
	})
	return cmd
}

// describeMethod is a generated verb's long help.
func describeMethod(a *tools.Action) string {
	var b strings.Builder
	if a.Description != "" {
		b.WriteString(a.Description)
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "Gateway method: %s (scope %s).", a.Method, a.RequiredScope())
	if len(a.Examples) > 0 {
		b.WriteString("\n\nEXAMPLES:\n")
		for _, e := range a.Examples {
			b.WriteString("   " + e + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// lowerFirst lower-cases the first letter of a summary.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// notFoundAnswer turns an answer that reports its subject missing in the
// payload ({found:false, reason}, as tasks.cancel answers an unknown id, the
// original's shape) into the command's NOT_FOUND error, as the original
// CLI's `tasks cancel` exits 1 on it.
func notFoundAnswer(a *tools.Action, params map[string]any, res json.RawMessage) error {
	found := gjson.GetBytes(res, "found")
	if found.Type != gjson.False {
		return nil
	}
	reason := strings.TrimSuffix(gjson.GetBytes(res, "reason").String(), ".")
	if reason == "" {
		reason = "not found"
	}
	msg := lowerFirst(reason)
	if len(a.Args) > 0 {
		if v, ok := params[a.Args[0]].(string); ok && v != "" {
			msg += ": " + v
		}
	}
	return tools.Errorf(tools.CodeNotFound, "%s", msg)
}
