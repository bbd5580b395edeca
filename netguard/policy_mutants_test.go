package netguard

import (
	"context"
	"net/netip"
	"strings"
	"testing"
)

// These tests pin guard lines that a one-line mutation could remove with
// every other test still passing (issue 17, item 20).

// An allowed "*.example.com" exempts names below example.com, and only at
// a label boundary: "evilexample.com" is someone else's domain, and its
// private address stays refused.
func TestAllowedSuffixPatternNeedsLabelBoundary(t *testing.T) {
	p := Policy{AllowedHostnames: []string{"*.example.com"}}
	ctx := WithResolver(context.Background(), func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	})
	for _, h := range []string{"api.example.com", "a.b.example.com", "API.Example.COM."} {
		if _, err := p.Resolve(ctx, h); err != nil {
			t.Errorf("%s is allowed by *.example.com, got %v", h, err)
		}
	}
	for _, h := range []string{"evilexample.com", "example.com.evil.net", "xexample.com"} {
		_, err := p.Resolve(ctx, h)
		if err == nil || !strings.Contains(err.Error(), "Blocked") {
			t.Errorf("%s is not below example.com, yet its loopback address passed: %v", h, err)
		}
	}
	// The allowance also lifts the blocked-name suffixes.
	p = Policy{AllowedHostnames: []string{"*.internal"}}
	if err := p.CheckHost("svc.internal"); err != nil {
		t.Errorf("svc.internal is allowed by *.internal: %v", err)
	}
}

// An ISATAP address (interface id 0000:5efe or 0200:5efe, then an IPv4
// address) is judged by its IPv4 address, under any /64 prefix.
func TestISATAPEmbeddedIPv4(t *testing.T) {
	for _, s := range []string{"2600::5efe:7f00:1", "2600:1:2:3:200:5efe:a00:1", "2a00::5efe:a9fe:a9fe"} {
		r := BlockedRange(netip.MustParseAddr(s))
		if !strings.HasPrefix(r, "ISATAP of ") {
			t.Errorf("%s carries a private IPv4 address (ISATAP), got %q", s, r)
		}
	}
	if r := BlockedRange(netip.MustParseAddr("2600::5efe:808:808")); r != "" {
		t.Errorf("ISATAP of public 8.8.8.8 is not blocked, got %q", r)
	}
	var p Policy
	if err := p.CheckHost("[2600::5efe:7f00:1]"); err == nil || !strings.Contains(err.Error(), "ISATAP") {
		t.Errorf("an ISATAP literal of 127.0.0.1: %v", err)
	}
}
