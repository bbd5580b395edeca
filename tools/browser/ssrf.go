package browser

import (
	"context"
	"net/url"
	"strings"

	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
)

// ssrfPolicy is browser.ssrfPolicy. Private, loopback, link-local and
// special-purpose destinations are refused unless allowed. The decision is
// netguard's, the guard web_fetch uses (names, odd IPv4 spellings,
// embedded IPv4 in IPv6, *.suffix on a label boundary); only the
// wording of a refusal names the browser's keys.
type ssrfPolicy struct {
	DangerouslyAllowPrivateNetwork bool     `json:"dangerouslyAllowPrivateNetwork"`
	AllowPrivateNetwork            bool     `json:"allowPrivateNetwork"` // legacy alias
	AllowedHostnames               []string `json:"allowedHostnames"`
	HostnameAllowlist              []string `json:"hostnameAllowlist"`
}

func (p ssrfPolicy) allowsPrivate() bool {
	return p.DangerouslyAllowPrivateNetwork || p.AllowPrivateNetwork
}

// guard is the policy as netguard takes it (both allow lists in one).
func (p ssrfPolicy) guard() netguard.Policy {
	return netguard.Policy{DangerouslyAllowPrivateNetwork: p.allowsPrivate(),
		AllowedHostnames: append(append([]string{}, p.AllowedHostnames...), p.HostnameAllowlist...)}
}

// checkURL is the navigation preflight: http(s) or exactly about:blank, no
// credentials, and a host that resolves only to public addresses unless
// the policy allows it.
func checkURL(ctx context.Context, pol ssrfPolicy, raw string) error {
	if raw == "about:blank" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return tools.Errorf(tools.CodeInvalidParams, "invalid URL %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return tools.Errorf(tools.CodeDenied, "navigation blocked: unsupported protocol %q (only http, https and about:blank)", u.Scheme+":")
	}
	if u.User != nil {
		return tools.Errorf(tools.CodeDenied, "navigation blocked: URLs with embedded credentials are not allowed")
	}
	if u.Hostname() == "" {
		return tools.Errorf(tools.CodeInvalidParams, "invalid URL %q: no host", raw)
	}
	if err := checkHost(ctx, pol.guard(), u.Hostname()); err != nil {
		return err
	}
	return nil
}

// checkHost runs netguard's name and address stages on host: DENIED
// (exit 3) when it or an address it resolves to is blocked, FAILED when it
// does not resolve.
func checkHost(ctx context.Context, g netguard.Policy, host string) error {
	err := g.CheckHost(host)
	if err == nil && allowedHost(g, host) {
		return nil // Chromium resolves it; an allowed name need not resolve here
	}
	if err == nil {
		_, err = g.Resolve(ctx, host)
	}
	if err == nil {
		return nil
	}
	if e := tools.AsError(err); e != nil && e.Code == tools.CodeDenied {
		why, _, _ := strings.Cut(e.Message, "; to allow it")
		return tools.Errorf(tools.CodeDenied, "navigation blocked: %s (allow with browser.ssrfPolicy.allowedHostnames or browser.ssrfPolicy.dangerouslyAllowPrivateNetwork)", strings.TrimPrefix(why, "Blocked: "))
	}
	return tools.Errorf(tools.CodeFailed, "navigation: %v", err)
}

// checkRequest is the guard on a request the page itself makes (documents,
// frames, subresources, redirects; see guard.go): http(s) and ws(s) to an
// allowed host, and the local schemes that reach no network. Anything else
// is refused.
func checkRequest(ctx context.Context, g netguard.Policy, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return tools.Errorf(tools.CodeDenied, "request blocked: unparsable URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "data", "blob", "about":
		return nil
	case "http", "https", "ws", "wss":
	default:
		return tools.Errorf(tools.CodeDenied, "request blocked: protocol %q", u.Scheme+":")
	}
	if g.DangerouslyAllowPrivateNetwork {
		return nil
	}
	return checkHost(ctx, g, u.Hostname())
}

// allowedHost: host is on the allow list (exact, or *.suffix on a label
// boundary, as netguard matches it).
func allowedHost(g netguard.Policy, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, pat := range g.AllowedHostnames {
		pat = strings.ToLower(strings.TrimSuffix(pat, "."))
		if rest, ok := strings.CutPrefix(pat, "*."); ok && strings.HasSuffix(host, "."+rest) || pat == host {
			return true
		}
	}
	return false
}
