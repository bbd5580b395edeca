package commands

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// devicesCommand is `openclaw devices list|approve|reject|remove`, the
// original's CLI over the gateway's device.pair.* methods (operator.pairing),
// generated from those methods (methodcmds.go). A device connecting from
// another host waits in `devices list` until it is approved; the gateway's
// pairing hint names `openclaw devices approve`.
func (r *runtime) devicesCommand() *cli.Command {
	return r.methodGroupCommand(methodGroup{
		Name:   "devices",
		Prefix: "device.pair.",
		Usage:  "device pairing: list, approve, reject or remove devices on the gateway",
		Description: "Devices that connect from another host with a device identity must be approved once.\n\n" +
			"EXAMPLES:\n   openclaw devices list\n   openclaw devices approve 6f1c…\n   openclaw devices reject 6f1c…\n   openclaw devices remove 3a9d…",
		Extras: map[string]methodExtra{"device.pair.approve": {
			Flags:   []cli.Flag{&cli.BoolFlag{Name: "latest", Usage: "approve the most recent pending request"}},
			Prepare: latestRequest,
			// As the original: a request for more than pairing scope (a
			// node, an admin device) needs an admin approver; ask again as one.
			Retry: func(err error) []string {
				if strings.Contains(err.Error(), "device pairing approval denied") {
					return []string{protocol.ScopeAdmin}
				}
				return nil
			},
		}},
	})
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
