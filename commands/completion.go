package commands

import (
	_ "embed"
	"io"

	"github.com/urfave/cli/v2"
)

// The three scripts ask the binary for candidates (see completion_words.go),
// so what a user gets is what the binary prints: completions/ holds copies
// written by `make docs` and checked by a test.

//go:embed completion.bash
var bashCompletion string

//go:embed completion.zsh
var zshCompletion string

//go:embed completion.fish
var fishCompletion string

func (r *runtime) completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "EXAMPLES:\n   source <(openclaw completion bash)\n   openclaw completion zsh > \"${fpath[1]}/_openclaw\"\n" +
			"   openclaw completion fish > ~/.config/fish/completions/openclaw.fish",
		Action: func(c *cli.Context) error {
			script, err := completionScript(c.Args().First())
			if err != nil {
				return err
			}
			_, err = io.WriteString(r.stdout, script)
			return err
		},
	}
}

func completionScript(shell string) (string, error) {
	switch shell {
	case "bash":
		return bashCompletion, nil
	case "zsh":
		return zshCompletion, nil
	case "fish":
		return fishCompletion, nil
	case "":
		return "", usageError("completion needs a shell: bash, zsh or fish")
	}
	return "", usageError("unsupported shell %q: use bash, zsh or fish", shell)
}
