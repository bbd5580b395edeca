package commands

import (
	"net/url"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/urfave/cli/v2"
)

// takeURLParam gives --url to the tool when the tool itself takes a `url`
// and the value is not a gateway address (ws:// or wss://, or a bare
// host:port): `openclaw web fetch --url https://example.com` and the
// original's `browser cookies set a b --url https://site` mean the page,
// and sending them to example.com as a gateway would offer it the gateway
// token from the environment. The flag then names no gateway.
func (r *runtime) takeURLParam(c *cli.Context, a *tools.Action, params map[string]any) error {
	v := c.String("url")
	if v == "" || !r.urlFlag || isGatewayURL(v) || !hasProp(a, "url") {
		return nil
	}
	if old, ok := params["url"]; ok && old != v {
		return tools.Errorf(tools.CodeUsage,
			"url given twice: %v and --url %s (--url names a gateway only as ws:// or wss://; see `%s --help`)", old, v, c.Command.HelpName)
	}
	params["url"] = v
	r.urlFlag = false
	// The gateway is then chosen as if --url had not been typed: the
	// environment's OPENCLAW_GATEWAY_URL (the flag's own source), else the
	// config.
	return c.Set("url", r.getenv("OPENCLAW_GATEWAY_URL"))
}

// isGatewayURL reports a WebSocket URL or a bare host:port.
func isGatewayURL(v string) bool {
	if !strings.Contains(v, "://") {
		return true
	}
	u, err := url.Parse(v)
	return err == nil && (strings.EqualFold(u.Scheme, "ws") || strings.EqualFold(u.Scheme, "wss"))
}

// hasProp reports whether the action's schema has a property name.
func hasProp(a *tools.Action, name string) bool {
	for _, p := range schemaProps(a.Schema) {
		if p.Name == name {
			return true
		}
	}
	return false
}
