package commands

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// `openclaw help [command...]` works as in git, gh and cargo: Main rewrites
// the line to `openclaw command... --help` before urfave parses it. It is
// not a registered command, because urfave drops its --help flag when the
// app has a command named help.

// helpArgs turns `openclaw [global flags] help a b` into `openclaw a b
// --help`, after checking that a b names a command (an unknown word is a
// usage error with a suggestion, as for any command).
func helpArgs(app *cli.App, args []string) ([]string, error) {
	i := afterGlobalFlags(args)
	if i >= len(args) || args[i] != "help" {
		return args, nil
	}
	out := append([]string{}, args[:i]...)
	cmds, parent := app.Commands, "openclaw"
	for _, w := range args[i+1:] {
		if strings.HasPrefix(w, "-") || (w == "help" && parent == "openclaw" && len(out) == i) {
			continue // `openclaw help help` is the top-level help
		}
		if cmds == nil {
			break // the rest are arguments of a leaf command
		}
		c := findCommand(cmds, w)
		if c == nil || c.Hidden {
			return args, unknownCommand(parent, w, cmds)
		}
		out = append(out, w)
		cmds, parent = c.Subcommands, parent+" "+c.Name
		if len(cmds) == 0 {
			cmds = nil
		}
	}
	return append(out, "--help"), nil
}

// afterGlobalFlags is the index of the first argument after the global
// flags (and their values) that lead the command line.
func afterGlobalFlags(args []string) int {
	i := 1
	for i < len(args) {
		name, hasVal := flagName(args[i])
		if name == "" {
			break
		}
		if takes := globalFlags[name]; takes && !hasVal {
			i++
		}
		i++
	}
	return i
}
