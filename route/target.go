package route

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/config"
)

// Target is the gateway relayed calls go to and how they authenticate.
type Target struct {
	URL, Token, Password string
	// Named is true when the user named this gateway (a URL flag,
	// OPENCLAW_GATEWAY_URL, gateway.remote.url in remote mode) rather than
	// falling back to the local one: then Either actions relay too.
	Named bool
}

// FromConfig completes the target a caller's flags give: a URL in flags
// wins as it is; else gateway.remote.url in remote mode, with the remote
// credentials; else the local gateway on localPort with gateway.auth's.
// Config credentials apply only to the gateway the config describes, and
// credentials in flags always win.
func FromConfig(flags Target, cfg *config.Config, localPort int) Target {
	t := flags
	if t.URL != "" {
		t.Named = true
		return t
	}
	fill := func(token, password string) {
		if t.Token == "" {
			t.Token = cfg.String(token, "")
		}
		if t.Password == "" {
			t.Password = cfg.String(password, "")
		}
	}
	if cfg.String("gateway.mode", "") == "remote" {
		if u := cfg.String("gateway.remote.url", ""); u != "" {
			t.URL, t.Named = u, true
			fill("gateway.remote.token", "gateway.remote.password")
			return t
		}
	}
	t.URL = "ws://127.0.0.1:" + strconv.Itoa(localPort)
	fill("gateway.auth.token", "gateway.auth.password")
	return t
}

// Loopback reports a gateway on this host (its files are this host's).
func (t Target) Loopback() bool {
	u, err := url.Parse(t.URL)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Secret is the shared secret for the gateway's HTTP routes (media), sent
// as a bearer token: the token, else the password.
func (t Target) Secret() string {
	if t.Token != "" {
		return t.Token
	}
	return t.Password
}
