package commands

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// devicesCommand is `openclaw devices list|approve|reject|remove|rename|
// rotate|revoke`, the original's CLI over the gateway's device.pair.* and
// device.token.* methods (operator.pairing), generated from those methods
// (methodcmds.go). A device connecting from another host waits in
// `devices list` until it is approved; the gateway's pairing hint names
// `openclaw devices approve`. The original's --device, --name and --scope
// flags work too.
func (r *runtime) devicesCommand() *cli.Command {
	// As the original: a token whose scopes exceed pairing needs a caller
	// holding them; ask again as an admin.
	asAdmin := func(denied string) func(err error) []string {
		return func(err error) []string {
			if strings.Contains(err.Error(), denied) {
				return []string{protocol.ScopeAdmin}
			}
			return nil
		}
	}
	deviceFlag := &cli.StringFlag{Name: "device", Usage: "device id (the original's spelling of <deviceId>)"}
	return r.methodGroupCommand(methodGroup{
		Name:   "devices",
		Prefix: "device.pair.",
		Also:   []string{"device.token."},
		Usage:  "device pairing and tokens: list, approve, reject, remove, rename devices; rotate or revoke their tokens",
		Description: "Devices that connect from another host with a device identity must be approved once.\n\n" +
			"EXAMPLES:\n   openclaw devices list\n   openclaw devices approve 6f1c…\n   openclaw devices reject 6f1c…\n   openclaw devices remove 3a9d…\n" +
			"   openclaw devices rename 3a9d… \"Kitchen tablet\"\n   openclaw devices rotate 3a9d… operator --scopes operator.read\n   openclaw devices revoke 3a9d… operator",
		Extras: map[string]methodExtra{
			"device.pair.approve": {
				Flags:   []cli.Flag{&cli.BoolFlag{Name: "latest", Usage: "approve the most recent pending request"}},
				Prepare: latestRequest,
				// As the original: a request for more than pairing scope (a
				// node, an admin device) needs an admin approver; ask again as one.
				Retry: asAdmin("device pairing approval denied"),
			},
			"device.pair.rename": {
				Flags:   []cli.Flag{deviceFlag, &cli.StringFlag{Name: "name", Usage: "the label (the original's spelling of <label>)"}},
				Prepare: aliasFlags(map[string]string{"device": "deviceId", "name": "label"}),
			},
			"device.token.rotate": {
				Flags: []cli.Flag{deviceFlag, &cli.StringSliceFlag{Name: "scope", Usage: "a scope of the new token (repeatable; the original's spelling of --scopes)"},
					&cli.BoolFlag{Name: "no-scopes", Usage: "rotate with an empty scope set"}},
				Prepare: func(r *runtime, c *cli.Context, params map[string]any) error {
					if c.Bool("no-scopes") {
						if c.IsSet("scope") || c.IsSet("scopes") {
							return tools.Errorf(tools.CodeUsage, "devices rotate: --no-scopes conflicts with --scope")
						}
						params["scopes"] = []any{}
					}
					return aliasFlags(map[string]string{"device": "deviceId", "scope": "scopes"}, "scope")(r, c, params)
				},
				Retry: asAdmin("device token rotation denied"),
			},
			"device.token.revoke": {
				Flags:   []cli.Flag{deviceFlag},
				Prepare: aliasFlags(map[string]string{"device": "deviceId"}),
				Retry:   asAdmin("device token revocation denied"),
			},
		},
	})
}

// aliasFlags fills params from the original CLI's flag names (flag →
// param; a name in lists is a repeatable flag); a value given both ways
// must agree.
func aliasFlags(names map[string]string, lists ...string) func(r *runtime, c *cli.Context, params map[string]any) error {
	return func(r *runtime, c *cli.Context, params map[string]any) error {
		for flag, param := range names {
			if !c.IsSet(flag) {
				continue
			}
			var v any = c.String(flag)
			if slices.Contains(lists, flag) {
				vals := []any{}
				for _, s := range c.StringSlice(flag) {
					vals = append(vals, s)
				}
				v = vals
			}
			if old, given := params[param]; given && fmt.Sprint(old) != fmt.Sprint(v) {
				return tools.Errorf(tools.CodeUsage, "%s given twice with different values (--%s)", param, flag)
			}
			params[param] = v
		}
		return nil
	}
}

// latestRequest fills approve's requestId with --latest: the newest
// pending request's.
func latestRequest(r *runtime, c *cli.Context, params map[string]any) error {
	if !c.Bool("latest") {
		return nil
	}
	if _, given := params["requestId"]; given {
		return tools.Errorf(tools.CodeUsage, "devices approve: give a requestId or --latest, not both")
	}
	res, err := r.callScopes(c, "device.pair.list", []string{protocol.ScopePairing}, json.RawMessage(`{}`), methodTimeout)
	if err != nil {
		return err
	}
	pending := gjson.GetBytes(res, "pending").Array()
	if len(pending) == 0 {
		return tools.Errorf(tools.CodeNotFound, "no pending device pairing requests")
	}
	params["requestId"] = pending[len(pending)-1].Get("requestId").String() // oldest first
	return nil
}
