package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

func (r *runtime) logsCommand() *cli.Command {
	return &cli.Command{
		Name:  "logs",
		Usage: "print the gateway log (logs.tail); --follow keeps printing new lines",
		Description: "With --follow the connection is re-established with backoff (1 s → 30 s) when the gateway\n" +
			"restarts. In JSON mode each line is printed as {\"line\": …} (one JSON object per line).\n\n" +
			"EXAMPLES:\n   openclaw logs --limit 50\n   openclaw logs --follow | grep config.patch",
		Flags: append(append(outputFlags(),
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep polling for new lines"},
			&cli.IntFlag{Name: "limit", Value: 200, Usage: "at most `N` lines per read"},
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "poll every `DURATION` with --follow"}),
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
	t, err := r.target(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	sess := client.Connect(ctx, client.Options{
		URL: t.url, Token: t.token, Password: t.password,
		ClientID: "cli", ClientMode: "cli", Version: Version,
		Scopes: []string{protocol.ScopeRead},
		OnDisconnect: func(err error, retryIn time.Duration) {
			fmt.Fprintf(r.stderr, "openclaw logs: %v; reconnecting in %s\n", err, retryIn.Round(time.Millisecond))
		},
	}, nil)
	defer sess.Close()
	var cursor *int64
	tick := time.NewTicker(c.Duration("interval"))
	defer tick.Stop()
	for {
		if cursor != nil {
			params["cursor"] = *cursor
		}
		res, err := sess.Call(ctx, "logs.tail", params)
		if err == nil {
			v := gjson.ParseBytes(res)
			if err := r.printLogLines(c, v); err != nil {
				return err
			}
			n := v.Get("cursor").Int()
			cursor = &n
		} else if ctx.Err() == nil {
			if se := sess.Err(); se != nil {
				return se
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
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
