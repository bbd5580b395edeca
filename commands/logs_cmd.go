package commands

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

func (r *runtime) logsCommand() *cli.Command {
	return &cli.Command{
		Name:  "logs",
		Usage: "print the gateway log (logs.tail); --follow keeps printing new lines",
		Description: "With --follow new lines are streamed as the gateway writes them (logs.follow); against a\n" +
			"gateway without it (the original OpenClaw) logs.tail is polled every --interval. The connection\n" +
			"is re-established with backoff (1 s → 30 s) when the gateway restarts; Ctrl-C exits 130.\n" +
			"In JSON mode each line is printed as {\"line\": …} (one JSON object per line).\n\n" +
			"EXAMPLES:\n   openclaw logs --limit 50\n   openclaw logs --follow | grep config.patch",
		Flags: append(append(outputFlags(),
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new lines as they are written"},
			&cli.IntFlag{Name: "limit", Value: 200, Usage: "at most `N` lines per read"},
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "poll every `DURATION` with --follow when the gateway cannot stream"}),
			connFlags()...),
		Action: r.logs,
	}
}

func (r *runtime) logs(c *cli.Context) error {
	params := map[string]any{"limit": c.Int("limit")}
	if !c.Bool("follow") {
		res, err := r.callScopes(c, "logs.tail", []string{protocol.ScopeRead}, mustJSON(params), 10*time.Second)
		if err != nil {
			return err
		}
		if r.jsonMode(c) {
			return r.emit(c, nil, res)
		}
		return r.printLogLines(c, gjson.ParseBytes(res))
	}
	return r.logsFollow(c, params)
}

func (r *runtime) printLogLines(c *cli.Context, v gjson.Result) error {
	for _, l := range v.Get("lines").Array() {
		var err error
		if r.jsonMode(c) {
			b, _ := json.Marshal(map[string]string{"line": l.String()})
			_, err = fmt.Fprintln(r.stdout, string(b))
		} else {
			_, err = fmt.Fprintln(r.stdout, l.String())
		}
		if err != nil {
			return err
		}
	}
	return nil
}
