package commands

import (
	"io"

	"github.com/openclaw-go/openclaw/tools"
)

// runEntrypoint runs `openclaw __<name> ARGS…` when a family registered
// that entrypoint (tools.RegisterEntrypoint): a helper process the family
// starts itself. It runs before the CLI is built, so it is in neither help
// nor completion; ok is false for every other command line.
func runEntrypoint(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) < 2 {
		return 0, false
	}
	main, ok := tools.LookupEntrypoint(args[1])
	if !ok {
		return 0, false
	}
	return main(args[2:], stdin, stdout, stderr), true
}
