package commands

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Building every generated command's flags and long help (schema
// properties by a gjson walk, output and connection flags, examples) is
// most of what building the command tree costs (~100 actions), and a
// command line runs one command. So they are built only for the top-level
// command the arguments name, and for everything when they name none we
// know (help on its own, completion, docs, tests). The others keep what
// listings show: name, usage, category.

// deferDetails records how to fill cmd's flags and description.
func (r *runtime) deferDetails(cmd *cli.Command, fill func(*cli.Command)) {
	if r.details == nil {
		r.details = map[*cli.Command]func(*cli.Command){}
	}
	r.details[cmd] = fill
}

// buildFlags fills the deferred details: of the subtree of the command
// r.cmdWord names, or of every command when it names none of them.
func (r *runtime) buildFlags(cmds []*cli.Command) {
	if r.cmdWord != "" {
		if c := findCommand(cmds, r.cmdWord); c != nil {
			cmds = []*cli.Command{c}
		}
	}
	var walk func([]*cli.Command)
	walk = func(cs []*cli.Command) {
		for _, c := range cs {
			if fill := r.details[c]; fill != nil {
				fill(c)
				delete(r.details, c)
			}
			walk(c.Subcommands)
		}
	}
	walk(cmds)
}

// commandWord is the first command word of args (after global flags), the
// word after `help`, or "".
func commandWord(args []string) string {
	i := afterGlobalFlags(args)
	if i < len(args) && args[i] == "help" {
		i++
	}
	// Hidden "__" commands (the docs generator) work on the whole tree.
	if i >= len(args) || strings.HasPrefix(args[i], "-") || strings.HasPrefix(args[i], "__") {
		return ""
	}
	return args[i]
}
