package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// cliDefaultScopes are requested for methods this CLI does not know, as the
// original CLI does.
var cliDefaultScopes = []string{protocol.ScopeAdmin, protocol.ScopeRead, protocol.ScopeWrite,
	protocol.ScopeApprovals, protocol.ScopeQuestions, protocol.ScopePairing, protocol.ScopeTalkSecr}

func (r *runtime) gatewayCommand() *cli.Command {
	return &cli.Command{
		Name:  "gateway",
		Usage: "run, query and call the gateway (and the gateway agent tool's actions)",
		Subcommands: []*cli.Command{
			{
				Name:      "call",
				Usage:     "call any gateway method and print its payload",
				ArgsUsage: "<method>",
				Description: "EXAMPLES:\n   openclaw gateway call health\n   openclaw gateway call config.get --query hash\n" +
					"   openclaw gateway call config.patch --params '{\"raw\":\"{tools:{profile:\\\"coding\\\"}}\",\"baseHash\":\"…\"}'",
				Flags: append(append(outputFlags(),
					&cli.StringFlag{Name: "params", Value: "{}", Usage: "params as JSON, @file, or - for stdin"},
					&cli.BoolFlag{Name: "expect-final", Usage: "wait past an \"accepted\" answer for the final result (agent runs)"}),
					connFlags()...),
				Action: r.gatewayCall,
			},
			r.serveCommand("run"),
			r.gatewayStatusCommand(),
		},
	}
}

func (r *runtime) gatewayCall(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("gateway call takes one method name, e.g. `openclaw gateway call health`")
	}
	method := c.Args().First()
	raw, err := readParamsSource(c.String("params"), r.stdin)
	if err != nil {
		return err
	}
	if !json.Valid(raw) {
		return usageError("--params is not valid JSON")
	}
	scopes := cliDefaultScopes
	if a := tools.ByMethod(method); a != nil && a.Scope != "" {
		scopes = a.ScopesFor(raw)
	}
	r.expectFinal = c.Bool("expect-final")
	res, err := r.callScopes(c, method, scopes, raw, 10*time.Second)
	if err != nil {
		return err
	}
	var render tools.Renderer
	if a := tools.ByMethod(method); a != nil {
		render = a.Render
	}
	if err := r.emit(c, render, res); err != nil {
		return err
	}
	return r.payloadFailure(method, res)
}

// payloadFailure makes a tool's failure inside a tools.invoke answer
// ({"ok":false,"error":{code,message}}) the command's failure: the payload
// is printed as it came, the message goes to stderr and the exit code
// follows the error's code, as it would for the same tool run directly.
func (r *runtime) payloadFailure(method string, res json.RawMessage) error {
	if method != "tools.invoke" {
		return nil
	}
	v := gjson.ParseBytes(res)
	if ok := v.Get("ok"); !ok.Exists() || ok.Bool() {
		return nil
	}
	code, msg := v.Get("error.code").String(), v.Get("error.message").String()
	if msg == "" {
		msg = "tool failed on the gateway"
	}
	fmt.Fprintf(r.stderr, "%s %s\n", r.io.Palette(true).Red("openclaw:"), stderrLine(msg))
	return exitCode(failure.ExitCode(code))
}

// callScopes sends one request to the resolved gateway, on a connection of
// its own that asks for scopes.
func (r *runtime) callScopes(c *cli.Context, method string, scopes []string, params json.RawMessage, def time.Duration) (json.RawMessage, error) {
	d := c.Duration("timeout")
	if d <= 0 {
		d = def
	}
	rt, err := r.router(c, d)
	if err != nil {
		return nil, err
	}
	return rt.Call(c.Context, method, scopes, params)
}

func (r *runtime) healthCommand() *cli.Command {
	return &cli.Command{
		Name:        "health",
		Usage:       "ask the gateway for its health snapshot",
		Description: "EXAMPLES:\n   openclaw health\n   openclaw health --json --url ws://127.0.0.1:18789 --token T",
		Flags:       append(append(outputFlags(), &cli.BoolFlag{Name: "verbose", Usage: "force a fresh probe"}), connFlags()...),
		Action: func(c *cli.Context) error {
			params := json.RawMessage(`{}`)
			if c.Bool("verbose") {
				params = json.RawMessage(`{"probe":true}`)
			}
			res, err := r.callScopes(c, "health", []string{protocol.ScopeRead}, params, 10*time.Second)
			if err != nil {
				return err
			}
			return r.emit(c, r.renderHealth, res)
		},
	}
}

func (r *runtime) renderHealth(w io.Writer, v gjson.Result) error {
	status := "ok"
	if !v.Get("ok").Bool() {
		status = "not ok"
	}
	_, err := fmt.Fprintf(w, "Gateway: %s (default agent %s, %d agents, %d sessions)\n", r.io.Palette(false).Status(status),
		v.Get("defaultAgentId").String(), len(v.Get("agents").Array()), v.Get("sessions.count").Int())
	return err
}
