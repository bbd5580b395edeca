package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// devicesCommand is `openclaw devices list|approve|reject|remove`, the
// original's CLI over the gateway's device.pair.* methods (operator.pairing).
// A device connecting from another host waits in `devices list` until it is
// approved; the gateway's pairing hint names `openclaw devices approve`.
func (r *runtime) devicesCommand() *cli.Command {
	flags := func() []cli.Flag { return append(outputFlags(), connFlags()...) }
	return &cli.Command{
		Name:  "devices",
		Usage: "device pairing: list, approve, reject or remove devices on the gateway",
		Description: "Devices that connect from another host with a device identity must be approved once.\n\n" +
			"EXAMPLES:\n   openclaw devices list\n   openclaw devices approve 6f1c…\n   openclaw devices reject 6f1c…\n   openclaw devices remove 3a9d…",
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list pending and paired devices",
				Flags:     flags(),
				ArgsUsage: " ",
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return tools.Errorf(tools.CodeUsage, "devices list takes no arguments, got %q", c.Args().First())
					}
					return r.devicesCall(c, "device.pair.list", nil, renderDevices)
				},
			},
			{
				Name:      "approve",
				Usage:     "approve a pending pairing request",
				ArgsUsage: "<requestId>",
				Flags:     append(flags(), &cli.BoolFlag{Name: "latest", Usage: "approve the most recent pending request"}),
				Action: func(c *cli.Context) error {
					id, err := r.requestID(c)
					if err != nil {
						return err
					}
					params := mustJSON(map[string]any{"requestId": id})
					res, err := r.callScopes(c, "device.pair.approve", []string{protocol.ScopePairing}, params, 10*time.Second)
					if err != nil && strings.Contains(err.Error(), "device pairing approval denied") {
						// As the original: a request for more than pairing
						// scope (a node, an admin device) needs an admin
						// approver; ask again as one.
						res, err = r.callScopes(c, "device.pair.approve", []string{protocol.ScopeAdmin}, params, 10*time.Second)
					}
					if err != nil {
						return err
					}
					return r.emit(c, func(w io.Writer, v gjson.Result) error {
						_, err := fmt.Fprintf(w, "Approved %s (%s)\n", v.Get("device.deviceId").String(), strings.Join(strs(v.Get("device.roles")), ", "))
						return err
					}, res)
				},
			},
			{
				Name:      "reject",
				Usage:     "reject a pending pairing request",
				ArgsUsage: "<requestId>",
				Flags:     flags(),
				Action: func(c *cli.Context) error {
					id, err := oneArg(c, "requestId")
					if err != nil {
						return err
					}
					return r.devicesCall(c, "device.pair.reject", map[string]any{"requestId": id}, func(w io.Writer, v gjson.Result) error {
						_, err := fmt.Fprintf(w, "Rejected request %s (device %s)\n", v.Get("requestId").String(), v.Get("deviceId").String())
						return err
					})
				},
			},
			{
				Name:      "remove",
				Usage:     "remove a paired device (its connections are closed)",
				ArgsUsage: "<deviceId>",
				Flags:     flags(),
				Action: func(c *cli.Context) error {
					id, err := oneArg(c, "deviceId")
					if err != nil {
						return err
					}
					return r.devicesCall(c, "device.pair.remove", map[string]any{"deviceId": id}, func(w io.Writer, v gjson.Result) error {
						_, err := fmt.Fprintf(w, "Removed device %s\n", v.Get("deviceId").String())
						return err
					})
				},
			},
		},
	}
}

func (r *runtime) devicesCall(c *cli.Context, method string, params map[string]any, render tools.Renderer) error {
	raw := json.RawMessage(`{}`)
	if params != nil {
		raw = mustJSON(params)
	}
	res, err := r.callScopes(c, method, []string{protocol.ScopePairing}, raw, 10*time.Second)
	if err != nil {
		return err
	}
	return r.emit(c, render, res)
}

// requestID is approve's positional id, or with --latest the newest
// pending request's.
func (r *runtime) requestID(c *cli.Context) (string, error) {
	if !c.Bool("latest") {
		return oneArg(c, "requestId")
	}
	if c.NArg() > 0 {
		return "", tools.Errorf(tools.CodeUsage, "devices approve: give a requestId or --latest, not both")
	}
	res, err := r.callScopes(c, "device.pair.list", []string{protocol.ScopePairing}, json.RawMessage(`{}`), 10*time.Second)
	if err != nil {
		return "", err
	}
	pending := gjson.GetBytes(res, "pending").Array()
	if len(pending) == 0 {
		return "", tools.Errorf(tools.CodeNotFound, "no pending device pairing requests")
	}
	return pending[len(pending)-1].Get("requestId").String(), nil // oldest first
}

func oneArg(c *cli.Context, name string) (string, error) {
	if c.NArg() != 1 || strings.TrimSpace(c.Args().First()) == "" {
		return "", tools.Errorf(tools.CodeUsage, "%s: expected one <%s> argument (see `openclaw devices --help`)", c.Command.HelpName, name)
	}
	return strings.TrimSpace(c.Args().First()), nil
}

func strs(v gjson.Result) []string {
	var out []string
	for _, e := range v.Array() {
		out = append(out, e.String())
	}
	return out
}

func renderDevices(w io.Writer, v gjson.Result) error {
	pending, paired := v.Get("pending").Array(), v.Get("paired").Array()
	if len(pending) == 0 {
		if _, err := fmt.Fprintln(w, "No pending pairing requests."); err != nil {
			return err
		}
	} else {
		rows := make([][]string, 0, len(pending))
		for _, p := range pending {
			rows = append(rows, []string{p.Get("requestId").String(), short12(p.Get("deviceId").String()), p.Get("role").String(),
				strings.Join(strs(p.Get("scopes")), ","), p.Get("remoteIp").String(), firstOf(p.Get("displayName").String(), p.Get("clientId").String())})
		}
		if _, err := fmt.Fprintln(w, "Pending (approve with: openclaw devices approve <requestId>):"); err != nil {
			return err
		}
		if err := writeTable(w, Palette{}, []string{"REQUEST", "DEVICE", "ROLE", "SCOPES", "FROM", "CLIENT"}, rows); err != nil {
			return err
		}
	}
	if len(paired) == 0 {
		_, err := fmt.Fprintln(w, "No paired devices.")
		return err
	}
	rows := make([][]string, 0, len(paired))
	for _, d := range paired {
		rows = append(rows, []string{d.Get("deviceId").String(), strings.Join(strs(d.Get("roles")), ","),
			strings.Join(strs(d.Get("scopes")), ","), firstOf(d.Get("displayName").String(), d.Get("clientId").String())})
	}
	if _, err := fmt.Fprintln(w, "Paired:"); err != nil {
		return err
	}
	return writeTable(w, Palette{}, []string{"DEVICE", "ROLES", "SCOPES", "CLIENT"}, rows)
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
