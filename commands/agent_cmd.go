package commands

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/tools"
)

// agentWaitSlack is how much longer than the run's own timeout the CLI
// waits for the final answer (the gateway ends the run at its timeout).
const agentWaitSlack = 30 * time.Second

// agentCommand is `openclaw agent --message …`: one agent turn on the
// gateway through the `agent` method (accepted, then the final answer on
// the same request), as the original's CLI runs it. A terminal gets the
// reply text and a line naming the tools called and the session; piped,
// the final JSON (text under result.payloads, sessionKey, runId).
func (r *runtime) agentCommand() *cli.Command {
	return &cli.Command{
		Name:  "agent",
		Usage: "run one agent turn on the gateway and print the answer",
		Description: "The run continues on the gateway if this command is interrupted; " +
			"`openclaw sessions history --session-key K` shows it.\n\nEXAMPLES:\n" +
			"   openclaw agent --message \"What is in notes.txt?\"\n" +
			"   openclaw agent --agent ops --session-key agent:ops:main --message \"status?\" --json",
		Category: "Sessions and agents",
		Flags: append(append(outputFlags(),
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "what to ask the agent `TEXT`", Required: true},
			&cli.StringFlag{Name: "agent", Usage: "agent `ID` (default: the default agent)"},
			&cli.StringFlag{Name: "session-key", Usage: "session `KEY` (default agent:<id>:main)"},
			&cli.StringFlag{Name: "session-id", Usage: "an existing session's `ID`"},
			&cli.StringFlag{Name: "model", Usage: "`provider/model` for this run"},
			&cli.IntFlag{Name: "run-timeout", Usage: "end the run after `SECONDS` (default agents.defaults.timeoutSeconds, 600)"},
		), connFlags()...),
		Action: func(c *cli.Context) error {
			msg := strings.TrimSpace(c.String("message"))
			if msg == "" {
				return usageError("agent: --message is empty")
			}
			params := map[string]any{"message": msg, "idempotencyKey": uuid.NewString()}
			for flag, key := range map[string]string{"agent": "agentId", "session-key": "sessionKey", "session-id": "sessionId", "model": "model"} {
				if v := strings.TrimSpace(c.String(flag)); v != "" {
					params[key] = v
				}
			}
			runTimeout := 600 * time.Second
			if n := c.Int("run-timeout"); n > 0 {
				params["timeout"] = n
				runTimeout = time.Duration(n) * time.Second
			}
			a := tools.ByMethod("agent")
			if a == nil {
				return fmt.Errorf("agent: this build has no agent method")
			}
			raw, err := json.Marshal(params)
			if err != nil {
				return fmt.Errorf("agent params: %w", err)
			}
			r.expectFinal = true
			res, err := r.callScopes(c, "agent", a.ScopesFor(raw), raw, runTimeout+agentWaitSlack)
			if err != nil {
				return err
			}
			if err := r.emit(c, a.Render, res); err != nil {
				return err
			}
			if st := gjson.GetBytes(res, "status").String(); st != "ok" {
				return exitCode(1) // the run failed or timed out: the answer says how
			}
			return nil
		},
	}
}
