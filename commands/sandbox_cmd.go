package commands

import (
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/tools"
)

// sandboxCommand is `openclaw sandbox explain`, the registry's
// sandbox.explain (tools/sandbox): it runs in this process, reading this
// machine's config, unless --url or --remote relays it to a gateway, as a
// tool action does. nil when the family is not linked.
func (r *runtime) sandboxCommand() *cli.Command {
	a := tools.ByMethod("sandbox.explain")
	if a == nil {
		return nil
	}
	return &cli.Command{Name: "sandbox", Usage: "the sandbox agent commands run in: explain",
		Subcommands: []*cli.Command{r.actionCommand(a, "explain")}}
}
