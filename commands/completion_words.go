package commands

import (
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/urfave/cli/v2"
)

// completeMarker is the word the shell scripts append to ask for candidates
// (urfave's protocol, kept so old scripts still work).
const completeMarker = "--generate-bash-completion"

// completionRequested reports whether the line asks for completion. Main
// answers such a line itself and never hands it to urfave: urfave stops
// reading flags at "--", so `openclaw write --path x -- --generate-bash-completion`
// would run the command for real.
func completionRequested(args []string) bool {
	for _, a := range args[1:] {
		if a == completeMarker {
			return true
		}
	}
	return false
}

// complete prints the candidates for a line: the words before the marker
// are the completed words, and a last word starting with "-" is the flag
// being typed. It only reads the command tree: no action runs, no config
// is loaded. OPENCLAW_COMPLETE=zsh|fish adds descriptions in that shell's
// format.
func complete(app *cli.App, args []string, format string, w io.Writer) {
	var words []string
	for _, a := range args[1:] {
		if a == completeMarker {
			break
		}
		words = append(words, a)
	}
	flagMode := false
	if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "-") {
		flagMode = true
		words = words[:n-1]
	}

	var leaf *cli.Command
	var path []string // the command words, as named in the tree
	cmds := app.Commands
	helpMode, positional, afterDashDash, wantsValue := false, false, false, false
	for i := 0; i < len(words); i++ {
		word := words[i]
		wantsValue = false
		if word == "--" {
			afterDashDash = true
			break
		}
		if name, hasVal := flagName(word); name != "" {
			if !hasVal && completionFlagTakesValue(app, leaf, name) {
				if i+1 < len(words) {
					i++
				} else {
					wantsValue = true
				}
			}
			continue
		}
		if positional {
			continue
		}
		if leaf == nil && !helpMode && word == "help" {
			helpMode = true
			continue
		}
		if c := findCommand(cmds, word); c != nil && !c.Hidden {
			leaf, cmds = c, c.Subcommands
			path = append(path, c.Name)
			continue
		}
		positional = true
	}
	if afterDashDash {
		return // everything after "--" is a positional argument
	}
	type cand struct{ name, usage string }
	var out []cand
	switch {
	case flagMode:
		flags := app.Flags
		if leaf != nil {
			flags = leaf.Flags
		}
		for _, f := range flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			usage := ""
			if df, ok := f.(cli.DocGenerationFlag); ok {
				usage = df.GetUsage()
			}
			for _, n := range f.Names() {
				out = append(out, cand{dashes(n), usage})
			}
		}
		out = append(out, cand{"--help", "show help"}, cand{"-h", "show help"})
		if leaf == nil {
			out = append(out, cand{"--version", "print the version"}, cand{"-v", "print the version"})
		}
	case wantsValue || positional:
	default:
		if leaf != nil && len(leaf.Subcommands) == 0 && !helpMode {
			for _, w := range argChoices(strings.Join(path, " ")) {
				out = append(out, cand{w, ""})
			}
			break // otherwise nothing: the shell completes files
		}
		for _, c := range cmds {
			if !c.Hidden {
				out = append(out, cand{c.Name, c.Usage})
			}
		}
		if leaf == nil && !helpMode {
			out = append(out, cand{"help", "show help for a command (openclaw help config set)"})
		}
	}
	for _, c := range out {
		usage := strings.ReplaceAll(strings.ReplaceAll(c.usage, "\n", " "), "`", "")
		switch format {
		case "zsh":
			fmt.Fprintf(w, "%s:%s\n", strings.ReplaceAll(c.name, ":", `\:`), usage)
		case "fish":
			fmt.Fprintf(w, "%s\t%s\n", c.name, usage)
		default:
			fmt.Fprintln(w, c.name)
		}
	}
}

// argChoices are the values a leaf's first positional takes, when they
// form a closed set.
func argChoices(path string) []string {
	switch path {
	case "completion":
		return []string{"bash", "zsh", "fish"}
	case "tools schema":
		return tools.ToolNames()
	}
	return nil
}

func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// completionFlagTakesValue: global flags anywhere, leaf flags after the
// command words.
func completionFlagTakesValue(app *cli.App, leaf *cli.Command, name string) bool {
	if takes, ok := globalFlags[name]; ok {
		return takes
	}
	if leaf == nil {
		return false
	}
	return flagTakesValue(leaf, name)
}
