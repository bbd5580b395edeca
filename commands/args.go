package commands

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// globalFlags may stand anywhere on the line, as in the original CLI.
var globalFlags = map[string]bool{"profile": true, "dev": false, "no-color": false}

// normalizeArgs lets flags follow positional arguments (urfave/cli v2 stops
// at the first positional) and lets global flags stand after the command
// word. It rewrites the line as: globals, command words, flags, "--",
// positionals.
func normalizeArgs(app *cli.App, args []string) []string {
	if len(args) == 0 {
		return args
	}
	var globals, rest []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, hasVal := flagName(a)
		if takesVal, ok := globalFlags[name]; ok && name != "" {
			globals = append(globals, a)
			if takesVal && !hasVal && i+1 < len(args) {
				i++
				globals = append(globals, args[i])
			}
			continue
		}
		rest = append(rest, a)
	}
	out := append([]string{args[0]}, globals...)

	// Descend the command words.
	cmds := app.Commands
	var leaf *cli.Command
	i := 0
	for i < len(rest) {
		c := findCommand(cmds, rest[i])
		if c == nil {
			break
		}
		out = append(out, rest[i])
		leaf = c
		cmds = c.Subcommands
		i++
	}
	if leaf == nil || leaf.SkipFlagParsing {
		return append(out, rest[i:]...)
	}
	var flags, pos []string
	for ; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		name, hasVal := flagName(a)
		if name == "" {
			pos = append(pos, a)
			continue
		}
		if name == "help" || name == "h" {
			// Help wins wherever it stands: `openclaw read notes.md --help`
			// shows read's help (urfave would look up a help topic
			// "notes.md" and fail).
			return append(out, "--help")
		}
		flags = append(flags, a)
		if !hasVal && flagTakesValue(leaf, name) && i+1 < len(rest) {
			i++
			flags = append(flags, rest[i])
		}
	}
	out = append(out, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

// flagName returns the name of a flag-looking argument ("" for positionals,
// including negative numbers and a lone "-").
func flagName(a string) (name string, hasValue bool) {
	if len(a) < 2 || a[0] != '-' {
		return "", false
	}
	if _, err := strconv.ParseFloat(a, 64); err == nil {
		return "", false
	}
	n := strings.TrimLeft(a, "-")
	if n == "" {
		return "", false
	}
	if k, _, ok := strings.Cut(n, "="); ok {
		return k, true
	}
	return n, false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, al := range c.Aliases {
			if al == name {
				return c
			}
		}
	}
	return nil
}

// flagTakesValue reports whether a leaf flag consumes the next word.
func flagTakesValue(c *cli.Command, name string) bool {
	if name == "h" || name == "help" {
		return false
	}
	for _, f := range c.Flags {
		for _, n := range flagNames(f) {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
