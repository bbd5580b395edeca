package browser

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/tools"
)

// ssrfPolicy is browser.ssrfPolicy. Private, loopback, link-local and
// special-purpose destinations are refused unless allowed.
type ssrfPolicy struct {
	DangerouslyAllowPrivateNetwork bool     `json:"dangerouslyAllowPrivateNetwork"`
	AllowPrivateNetwork            bool     `json:"allowPrivateNetwork"` // legacy alias
	AllowedHostnames               []string `json:"allowedHostnames"`
	HostnameAllowlist              []string `json:"hostnameAllowlist"`
}

func (p ssrfPolicy) allowsPrivate() bool {
	return p.DangerouslyAllowPrivateNetwork || p.AllowPrivateNetwork
}

// hostAllowed matches exact names and "*.example.com" patterns.
func (p ssrfPolicy) hostAllowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, pat := range append(append([]string{}, p.AllowedHostnames...), p.HostnameAllowlist...) {
		pat = strings.ToLower(pat)
		if pat == host || (strings.HasPrefix(pat, "*.") && strings.HasSuffix(host, pat[1:])) {
			return true
		}
	}
	return false
}

// blocked reports addresses a page must not reach without the allowance.
func blocked(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range specialRanges() {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

var specialRanges = sync.OnceValue(func() []netip.Prefix { // parsed on first use, not in every process's init
	var out []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32", "64:ff9b::/96", "2001:db8::/32"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
})

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
	host := u.Hostname()
	if host == "" {
		return tools.Errorf(tools.CodeInvalidParams, "invalid URL %q: no host", raw)
	}
	if pol.allowsPrivate() || pol.hostAllowed(host) {
		return nil
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return tools.Errorf(tools.CodeFailed, "navigation: resolve %s: %v", host, err)
		}
		addrs = ips
	}
	for _, a := range addrs {
		if blocked(a) {
			return tools.Errorf(tools.CodeDenied, "navigation blocked: %s resolves to private/internal address %s "+
				"(allow with browser.ssrfPolicy.allowedHostnames or browser.ssrfPolicy.dangerouslyAllowPrivateNetwork)", host, a)
		}
	}
	return nil
}
