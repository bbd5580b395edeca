package commands

import (
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/tools"
)

// skillsCommand is `openclaw skills list|info|check`: the skills.*
// actions that name a command (tools/agents/skills.go), run as tool
// actions are (Where Either: in this process, or on the gateway named by
// --url, OPENCLAW_GATEWAY_URL or gateway.remote.url), so their --json
// output is the action's result either way.
func (r *runtime) skillsCommand() *cli.Command {
	var verbs []*cli.Command
	for _, m := range tools.Methods() {
		a := tools.ByMethod(m)
		if a == nil || a.Hidden || !strings.HasPrefix(m, "skills.") || len(a.Command) != 2 || a.Command[0] != "skills" {
			continue
		}
		verbs = append(verbs, r.actionCommand(a, a.Command[1]))
	}
	if len(verbs) == 0 {
		return nil // the family is not linked
	}
	sort.Slice(verbs, func(i, j int) bool { return verbs[i].Name < verbs[j].Name })
	return &cli.Command{Name: "skills", Usage: "the agent's skills (SKILL.md folders): list, info, check",
		Description: "Skills come from <workspace>/skills, <workspace>/.agents/skills, ~/.agents/skills, <state>/skills and\n" +
			"skills.load.extraDirs (highest precedence first). Eligible ones are listed in the agent's system prompt.\n\n" +
			"EXAMPLES:\n   openclaw skills list\n   openclaw skills info weather\n   openclaw skills check --json",
		Subcommands: verbs}
}
