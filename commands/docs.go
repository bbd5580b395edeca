//go:build !urfave_cli_no_docs

package commands

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"
)

// generatedDocs returns every generated file (path relative to the repo
// root → content). `make docs` writes them; a test fails when the committed
// copies drift from the app.
func generatedDocs(app *cli.App) (map[string]string, error) {
	app.Setup() // adds --help/--version as a run does, so both paths agree
	files := manPages(app)
	files["completions/openclaw.bash"] = bashCompletion
	files["completions/openclaw.zsh"] = zshCompletion
	files["completions/openclaw.fish"] = fishCompletion
	return files, nil
}

func (r *runtime) docsCommand() *cli.Command {
	return &cli.Command{
		Name:   "__gen-docs",
		Hidden: true,
		Usage:  "write man/*.1 and completions/ under DIR (used by `make docs`)",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "dir", Value: ".", Usage: "repository root `DIR`"}},
		Action: func(c *cli.Context) error {
			files, err := generatedDocs(c.App)
			if err != nil {
				return err
			}
			for rel, content := range files {
				p := filepath.Join(c.String("dir"), rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return fmt.Errorf("gen-docs: %w", err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					return fmt.Errorf("gen-docs: %w", err)
				}
				fmt.Fprintln(r.stderr, "wrote", p)
			}
			return nil
		},
	}
}
