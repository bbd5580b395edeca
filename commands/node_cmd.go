package commands

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/nodehost"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
)

// nodeCommand is `openclaw node run|status|identity`: the headless node
// host (nodehost/) that pairs this machine with a gateway and serves its
// node.invoke commands, and what it reports about itself.
func (r *runtime) nodeCommand() *cli.Command {
	return &cli.Command{
		Name:  "node",
		Usage: "the headless node host: run it (pairs this machine with a gateway), its status and identity",
		Description: "A node host connects to a gateway with role node and serves system.run (under this machine's exec\n" +
			"approvals), system.which, fs.listDir, system.execApprovals.get|set, browser.proxy, canvas.* and\n" +
			"system.notify (with notify-send) to the gateway's operators and agents.\n\n" +
			"EXAMPLES:\n   openclaw node run --host 127.0.0.1 --port 18789\n   openclaw node status\n   openclaw node identity",
		Subcommands: []*cli.Command{r.nodeRunCommand(), r.nodeStatusCommand(), r.nodeIdentityCommand()},
	}
}

func (r *runtime) nodeRunCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run the headless node host in the foreground",
		Description: "The gateway is --host/--port (default: the last one used, else 127.0.0.1 and gateway.port);\n" +
			"its secret comes from OPENCLAW_GATEWAY_TOKEN (or OPENCLAW_GATEWAY_PASSWORD), then the device token\n" +
			"the gateway issued to this node, then gateway.auth.token/password in this machine's config.\n" +
			"The first connection asks the gateway to pair this device (approved silently on loopback) and to\n" +
			"approve its commands (`openclaw nodes approve` there). It reconnects with backoff and stops when\n" +
			"the gateway refuses its credentials for good. State: node.json, identity/device.json,\n" +
			"exec-approvals.json and node-status.json in the state dir.\n\n" +
			"EXAMPLES:\n   openclaw node run --host 127.0.0.1 --port 18789\n" +
			"   openclaw node run --host gw.example.net --port 443 --tls --tls-fingerprint 3f:9a:...\n" +
			"   openclaw node run --display-name build-box --commands system.run,system.run.prepare,system.which",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "host", Usage: "gateway `HOST` (default: the saved one, else 127.0.0.1)"},
			&cli.IntFlag{Name: "port", Usage: "gateway `PORT` (default: the saved one, else gateway.port or 18789)"},
			&cli.BoolFlag{Name: "tls", Usage: "use TLS (wss://) for the gateway connection"},
			&cli.BoolFlag{Name: "no-tls", Usage: "disable TLS for the gateway connection"},
			&cli.StringFlag{Name: "tls-fingerprint", Usage: "expected TLS certificate fingerprint (`SHA256`, hex; colons allowed)"},
			&cli.StringFlag{Name: "context-path", Usage: "gateway WebSocket context `PATH` (e.g. /openclaw-gw)"},
			&cli.StringFlag{Name: "display-name", Usage: "override the node's display `NAME` (default: the host name)"},
			&cli.StringFlag{Name: "node-id", Usage: "override the generated node instance `ID`"},
			&cli.StringSliceFlag{Name: "commands", Usage: "advertise only these exact command `IDS` (comma-separated; repeatable; saved)"},
			&cli.BoolFlag{Name: "all-commands", Usage: "advertise the full command surface and forget a saved --commands allowlist"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("tls") && c.Bool("no-tls") {
				return tools.Errorf(tools.CodeUsage, "--tls and --no-tls conflict")
			}
			if c.Bool("all-commands") && c.IsSet("commands") {
				return tools.Errorf(tools.CodeUsage, "--all-commands and --commands conflict")
			}
			opts, err := r.nodeOptions(c)
			if err != nil {
				return err
			}
			h, err := nodehost.New(opts)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return h.Run(ctx)
		},
	}
}

// nodeOptions gathers node run's settings: flags, the environment's
// secret, else the config's (the saved device token is the host's own).
func (r *runtime) nodeOptions(c *cli.Context) (nodehost.Options, error) {
	p, err := r.Paths(c)
	if err != nil {
		return nodehost.Options{}, err
	}
	cfg, err := r.Config(c)
	if err != nil {
		return nodehost.Options{}, err
	}
	o := nodehost.Options{
		Host: c.String("host"), Port: c.Int("port"), TLS: c.Bool("tls"), TLSFingerprint: c.String("tls-fingerprint"),
		ContextPath: c.String("context-path"), DisplayName: c.String("display-name"), NodeID: c.String("node-id"),
		StateDir: p.StateDir, Config: cfg, Version: Version, Log: r.stderr, Getenv: r.getenv,
		Media: media.New(p.StateDir).SweepOnSave(cfg),
	}
	if c.IsSet("commands") {
		o.Commands = []string{}
		for _, s := range c.StringSlice("commands") {
			for _, id := range strings.Split(s, ",") {
				if id = strings.TrimSpace(id); id != "" {
					o.Commands = append(o.Commands, id)
				}
			}
		}
		if len(o.Commands) == 0 {
			return o, tools.Errorf(tools.CodeUsage, "--commands needs at least one command id")
		}
	}
	if c.Bool("all-commands") {
		nf, _, err := nodehost.LoadNodeFile(p.StateDir)
		if err != nil {
			return o, err
		}
		if nf.Commands != nil {
			nf.Commands = nil
			if err := nf.Save(p.StateDir); err != nil {
				return o, err
			}
		}
	}
	o.NoTLS = c.Bool("no-tls")
	o.Token, o.Password = r.getenv("OPENCLAW_GATEWAY_TOKEN"), r.getenv("OPENCLAW_GATEWAY_PASSWORD")
	prefix := "gateway.auth."
	if cfg.String("gateway.mode", "") == "remote" {
		prefix = "gateway.remote."
	}
	// Used only when neither the environment gives a secret nor the
	// gateway issued this node a device token (nodehost decides).
	o.ConfigToken, o.ConfigPassword = cfg.String(prefix+"token", ""), cfg.String(prefix+"password", "")
	return o, nil
}

func (r *runtime) nodeStatusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the node host: whether it runs, its gateway, connection and commands",
		Flags: outputFlags(),
		Action: func(c *cli.Context) error {
			p, err := r.Paths(c)
			if err != nil {
				return err
			}
			out := map[string]any{"stateDir": p.StateDir, "running": nodehost.Running(p.StateDir)}
			if id, err := nodehost.LoadIdentity(p.StateDir); err == nil {
				out["deviceId"] = id.DeviceID
			}
			nf, exists, err := nodehost.LoadNodeFile(p.StateDir)
			if err != nil {
				return err
			}
			if exists {
				out["node"] = nf.Redacted()
			}
			if st, ok, err := nodehost.ReadStatus(p.StateDir); err == nil && ok {
				if !out["running"].(bool) {
					st.Connected = false
				}
				out["status"] = st
			}
			return r.emit(c, renderNodeStatus, mustJSON(out))
		},
	}
}

func renderNodeStatus(w io.Writer, res gjson.Result) error {
	state := "not running"
	if res.Get("running").Bool() {
		state = fmt.Sprintf("running (pid %d)", res.Get("status.pid").Int())
	}
	fmt.Fprintf(w, "Node host: %s\n", state)
	if !res.Get("node").Exists() {
		fmt.Fprintf(w, "Not set up yet: start it with `openclaw node run --host <gateway host> --port <port>`.\n")
		return nil
	}
	fmt.Fprintf(w, "Name:      %s\n", res.Get("node.displayName").String())
	fmt.Fprintf(w, "Device:    %s\n", res.Get("deviceId").String())
	if g := res.Get("node.gateway"); g.Exists() {
		fmt.Fprintf(w, "Gateway:   %s\n", res.Get("status.gatewayUrl").String())
	}
	if res.Get("running").Bool() {
		conn := "disconnected"
		if res.Get("status.connected").Bool() {
			conn = "connected since " + time.UnixMilli(res.Get("status.lastConnectedAtMs").Int()).Format(time.RFC3339)
		} else if e := res.Get("status.lastError").String(); e != "" {
			conn += ": " + e
		}
		fmt.Fprintf(w, "Link:      %s\n", conn)
		var cmds []string
		for _, c := range res.Get("status.commands").Array() {
			cmds = append(cmds, c.String())
		}
		fmt.Fprintf(w, "Commands:  %s\n", strings.Join(cmds, ", "))
	} else if s := res.Get("status.stopped").String(); s != "" {
		fmt.Fprintf(w, "Last run:  %s\n", s)
	}
	return nil
}

func (r *runtime) nodeIdentityCommand() *cli.Command {
	return &cli.Command{
		Name:  "identity",
		Usage: "print the node host's device identity (device id and public key)",
		Flags: outputFlags(),
		Action: func(c *cli.Context) error {
			p, err := r.Paths(c)
			if err != nil {
				return err
			}
			id, err := nodehost.LoadIdentity(p.StateDir)
			if err != nil {
				if os.IsNotExist(err) {
					return tools.Errorf(tools.CodeNotFound, "no node device identity found (start the node host once with `openclaw node run`)")
				}
				return err
			}
			return r.emit(c, func(w io.Writer, res gjson.Result) error {
				fmt.Fprintf(w, "deviceId:  %s\npublicKey: %s\n", res.Get("deviceId").String(), res.Get("publicKey").String())
				return nil
			}, mustJSON(map[string]string{"deviceId": id.DeviceID, "publicKey": id.PublicKeyString()}))
		},
	}
}
