//go:build urfave_cli_no_docs

package commands

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// Release builds (make build) leave out urfave's man-page generator, whose
// Markdown engine costs start-up time on every call; `make docs` builds
// without the tag.
func (r *runtime) docsCommand() *cli.Command {
	return &cli.Command{
		Name:   "__gen-docs",
		Hidden: true,
		Action: func(*cli.Context) error {
			return errors.New("this build has no docs generator: run `make docs` from the source tree")
		},
	}
}
