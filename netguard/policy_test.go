package netguard

import (
	"net/netip"
	"strings"
	"testing"
)

func TestBlockedRanges(t *testing.T) {
	blocked := []string{"127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1",
		"100.100.100.200", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254",
		"::ffff:127.0.0.1", "64:ff9b::a00:1", "2002:7f00:1::", "2001:0:4136:e378:8000:63bf:80ff:fffe", "ff02::1"}
	for _, s := range blocked {
		if BlockedRange(netip.MustParseAddr(s)) == "" {
			t.Errorf("%s not blocked", s)
		}
	}
	for _, s := range []string{"93.184.216.34", "8.8.8.8", "2606:4700::1111", "1.1.1.1"} {
		if r := BlockedRange(netip.MustParseAddr(s)); r != "" {
			t.Errorf("%s blocked (%s)", s, r)
		}
	}
}

func TestCheckHostNames(t *testing.T) {
	var p Policy
	for _, h := range []string{"localhost", "LOCALHOST.", "printer.local", "metadata.google.internal", "x.internal",
		"a.localhost", "127.1", "0x7f000001", "2130706433", "0177.0.0.1", "[::1]"} {
		err := p.CheckHost(h)
		if err == nil || !strings.Contains(err.Error(), "Blocked") {
			t.Errorf("%s: %v", h, err)
		}
	}
	for _, h := range []string{"example.com", "cafe.be", "1.1.1.1", "docs.openclaw.ai"} {
		if err := p.CheckHost(h); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	p.BlockedHostnames = []string{"*.example.com"}
	if err := p.CheckHost("a.example.com"); err == nil || !strings.Contains(err.Error(), "blockedHostnames") {
		t.Errorf("blockedHostnames: %v", err)
	}
	allow := Policy{AllowedHostnames: []string{"localhost"}}
	if err := allow.CheckHost("localhost"); err != nil {
		t.Errorf("allowlisted localhost: %v", err)
	}
}
