// Package netguard is the SSRF guard every outbound fetch of a
// user-supplied URL goes through (web_fetch, web_search, and the URLs pdf
// and image accept): it refuses private, loopback, link-local, metadata and
// special-use addresses unless an operator allows them, resolves a name once
// and dials only the checked addresses (no DNS rebinding), and re-checks
// every redirect hop. It is a leaf: tool families import it, not each other.
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/failure"
)

// Policy is the SSRF guard's configuration (tools.web.fetch.ssrfPolicy):
// private, loopback, link-local, CGNAT and metadata addresses and the
// blocked host names are refused unless an operator allows them.
type Policy struct {
	// DangerouslyAllowPrivateNetwork turns the address checks off (the
	// original's key; allowPrivateNetwork is its older alias).
	DangerouslyAllowPrivateNetwork bool `json:"dangerouslyAllowPrivateNetwork"`
	AllowPrivateNetwork            bool `json:"allowPrivateNetwork"`
	// AllowedHostnames are exact hosts (or *.suffix) exempt from the
	// private-address and blocked-name checks.
	AllowedHostnames []string `json:"allowedHostnames"`
	// BlockedHostnames are refused first, on every hop.
	BlockedHostnames []string `json:"blockedHostnames"`
}

// PolicyKey is where the policy lives in openclaw.json; the image and pdf
// tools read the same key, so one allowance covers every fetch.
const PolicyKey = "tools.web.fetch.ssrfPolicy"

const policyKey = PolicyKey

// howToAllow is the hint every refusal ends with.
func howToAllow(host string) string {
	return fmt.Sprintf("to allow it, add %q to %s.allowedHostnames or set %s.dangerouslyAllowPrivateNetwork to true",
		host, policyKey, policyKey)
}

// blockedError is a refusal: DENIED (exit 3), never retried elsewhere.
func blockedError(format string, args ...any) error {
	return failure.Errorf(failure.CodeDenied, format, args...)
}

func matchHost(pattern, host string) bool {
	pattern = strings.ToLower(strings.TrimSuffix(pattern, "."))
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(host, "."+rest)
	}
	return pattern == host
}

func (p Policy) allowed(host string) bool {
	if p.DangerouslyAllowPrivateNetwork || p.AllowPrivateNetwork {
		return true
	}
	for _, a := range p.AllowedHostnames {
		if matchHost(a, host) {
			return true
		}
	}
	return false
}

// blockedNames are refused before any DNS lookup.
var blockedNames = []string{"localhost", "localhost.localdomain", "metadata.google.internal"}
var blockedSuffixes = []string{".localhost", ".local", ".internal"}

// CheckHost is the hostname stage: operator block list, blocked names,
// odd IPv4 spellings and IP literals in blocked ranges.
func (p Policy) CheckHost(host string) error {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, b := range p.BlockedHostnames {
		if matchHost(b, host) {
			return blockedError("Blocked: host %s is in %s.blockedHostnames", host, policyKey)
		}
	}
	if p.allowed(host) {
		return nil
	}
	for _, n := range blockedNames {
		if host == n {
			return blockedError("Blocked: host name %s is internal; %s", host, howToAllow(host))
		}
	}
	for _, s := range blockedSuffixes {
		if strings.HasSuffix(host, s) {
			return blockedError("Blocked: host name %s ends in %s (internal); %s", host, s, howToAllow(host))
		}
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if rule := BlockedRange(a); rule != "" {
			return blockedError("Blocked: %s is a private/internal/special-use IP address (%s); %s", a, rule, howToAllow(host))
		}
		return nil
	}
	if oddIPv4(host) {
		return blockedError("Blocked: %s is a non-canonical IPv4 literal; write the address as a.b.c.d", host)
	}
	return nil
}

// oddIPv4 reports a host that every part of is a number (127.1, 0x7f.1,
// 2130706433, 0177.0.0.1): resolvers read them as IPv4 addresses, so the
// guard refuses them outright rather than guess which one.
func oddIPv4(host string) bool {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return false
	}
	for _, s := range parts {
		if s == "" {
			return false
		}
		if _, err := strconv.ParseUint(s, 0, 32); err != nil {
			return false
		}
	}
	return true
}

// Resolve is the resolution stage: every address the name resolves to
// must pass, and the ones returned are the only ones dialled (pinning), so
// a second DNS answer cannot move the connection.
func (p Policy) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if a, err := netip.ParseAddr(h); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	lookup := resolverFrom(ctx)
	if lookup == nil {
		lookup = func(ctx context.Context, h string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", h)
		}
	}
	addrs, err := lookup(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", h, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", h)
	}
	if !p.allowed(h) {
		for _, a := range addrs {
			if rule := BlockedRange(a); rule != "" {
				return nil, blockedError("Blocked: %s resolves to private/internal/special-use IP address %s (%s); %s",
					h, a.Unmap(), rule, howToAllow(h))
			}
		}
	}
	// IPv4 first, as the original prefers.
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if a.Unmap().Is4() {
			out = append(out, a.Unmap())
		}
	}
	for _, a := range addrs {
		if !a.Unmap().Is4() {
			out = append(out, a)
		}
	}
	return out, nil
}

type namedPrefix struct {
	p    netip.Prefix
	name string
}

func prefixes(pairs ...string) []namedPrefix {
	out := make([]namedPrefix, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, namedPrefix{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

var blocked4 = prefixes(
	"0.0.0.0/8", "unspecified",
	"10.0.0.0/8", "private",
	"100.64.0.0/10", "CGNAT",
	"100.100.100.200/32", "cloud metadata",
	"127.0.0.0/8", "loopback",
	"169.254.0.0/16", "link-local (cloud metadata)",
	"172.16.0.0/12", "private",
	"192.0.0.0/24", "IETF protocol assignments",
	"192.0.2.0/24", "documentation",
	"192.168.0.0/16", "private",
	"198.18.0.0/15", "benchmarking",
	"198.51.100.0/24", "documentation",
	"203.0.113.0/24", "documentation",
	"224.0.0.0/4", "multicast",
	"240.0.0.0/4", "reserved",
	"255.255.255.255/32", "broadcast",
)

var blocked6 = prefixes(
	"::/128", "unspecified",
	"::1/128", "loopback",
	"100::/64", "discard",
	"2001:2::/48", "benchmarking",
	"2001:10::/28", "ORCHID",
	"2001:20::/28", "ORCHIDv2",
	"2001:db8::/32", "documentation",
	"fc00::/7", "unique-local",
	"fe80::/10", "link-local",
	"fec0::/10", "site-local",
	"ff00::/8", "multicast",
	"64:ff9b:1::/48", "NAT64 local-use",
	"fd00:ec2::254/128", "cloud metadata",
)

// BlockedRange names the blocked range a is in, or "". IPv6 addresses that
// carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo, ISATAP)
// are judged by that IPv4 address.
func BlockedRange(a netip.Addr) string {
	a = a.WithZone("")
	if a.Is4In6() {
		a = a.Unmap()
	}
	if a.Is4() {
		for _, b := range blocked4 {
			if b.p.Contains(a) {
				return b.name + " " + b.p.String()
			}
		}
		return ""
	}
	for _, b := range blocked6 {
		if b.p.Contains(a) {
			return b.name + " " + b.p.String()
		}
	}
	if v4, how, ok := embedded4(a); ok {
		if r := BlockedRange(v4); r != "" {
			return how + " of " + v4.String() + ", " + r
		}
	}
	return ""
}

func embedded4(a netip.Addr) (netip.Addr, string, bool) {
	b := a.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case netip.MustParsePrefix("::/96").Contains(a):
		return last, "IPv4-compatible", true
	case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
		return last, "NAT64", true
	case netip.MustParsePrefix("2002::/16").Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4", true
	case netip.MustParsePrefix("2001::/32").Contains(a):
		return netip.AddrFrom4([4]byte{b[12] ^ 0xff, b[13] ^ 0xff, b[14] ^ 0xff, b[15] ^ 0xff}), "Teredo", true
	case (b[8]|0x02) == 0x02 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe:
		return last, "ISATAP", true
	}
	return netip.Addr{}, "", false
}
