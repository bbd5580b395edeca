package canvas

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

func TestMatchNode(t *testing.T) {
	nodes := []nodeInfo{
		{NodeID: "a1b2c3d4e5f6", DisplayName: "Build Box", RemoteIP: "10.0.0.5", Connected: true},
		{NodeID: "a1b2c3ffffff", DisplayName: "Spare", RemoteIP: "10.0.0.6"},
		{NodeID: "mac-1234567", DisplayName: "Laptop", Connected: true},
		{NodeID: "dup-old", DisplayName: "Kiosk"},
		{NodeID: "dup-new", DisplayName: "kiosk!", Connected: true},
		{NodeID: "twin-1", DisplayName: "Twin", Connected: true},
		{NodeID: "twin-2", DisplayName: "twin", Connected: true},
		{NodeID: "Spare"}, // an id equal to another node's name
	}
	for q, want := range map[string]string{
		"a1b2c3d4e5f6":  "a1b2c3d4e5f6", // exact id
		"10.0.0.6":      "a1b2c3ffffff", // remote IP
		"build-box":     "a1b2c3d4e5f6", // display name, folded
		"  BUILD BOX  ": "a1b2c3d4e5f6",
		"a1b2c3d4":      "a1b2c3d4e5f6", // prefix of 6+
		"mac-12":        "mac-1234567",
		"kiosk":         "dup-new",      // two match; the connected one wins
		"Spare":         "Spare",        // an exact id beats a name
		"a1b2c3":        "a1b2c3d4e5f6", // two ids start with it: the connected one
	} {
		got, err := matchNode(nodes, q)
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", q, got, err, want)
		}
	}
	for q, want := range map[string]string{
		"":      "node required",
		"a1b2c": "unknown node: a1b2c (known: Build Box, Spare, Laptop, Kiosk, kiosk!, Twin, twin, Spare)", // prefix too short
		"twin":  "ambiguous node: twin (matches: Twin, twin)",
		"ghost": "unknown node: ghost",
	} {
		_, err := matchNode(nodes, q)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %q", q, err, want)
		}
	}
	if _, err := matchNode(nil, "x"); err == nil || err.Error() != "unknown node: x" {
		t.Errorf("no nodes: %v", err)
	}
	if _, err := matchNode(nodes, "ghost"); tools.AsError(err).Code != tools.CodeNotFound {
		t.Errorf("unknown node code: %v", tools.AsError(err).Code)
	}
}

func TestPickDefault(t *testing.T) {
	canvas := []string{"canvas"}
	cases := []struct {
		name  string
		nodes []nodeInfo
		want  string // "" = error
	}{
		{"none", nil, ""},
		{"no canvas cap", []nodeInfo{{NodeID: "n1", Caps: []string{"camera"}, Connected: true}}, ""},
		{"the one", []nodeInfo{{NodeID: "n1", Caps: canvas, Connected: true}, {NodeID: "n2", Caps: []string{"browser"}, Connected: true}}, "n1"},
		{"no caps listed counts", []nodeInfo{{NodeID: "n1", Connected: true}}, "n1"},
		{"connected preferred", []nodeInfo{{NodeID: "off", Caps: canvas}, {NodeID: "on", Caps: canvas, Connected: true}}, "on"},
		{"only offline ones: most recent", []nodeInfo{{NodeID: "old", Caps: canvas, LastSeenAtMs: 5}, {NodeID: "new", Caps: canvas, LastSeenAtMs: 9}}, "new"},
		{"the local mac", []nodeInfo{{NodeID: "ios-1", Caps: canvas, Connected: true, ConnectedAtMs: 9}, {NodeID: "mac-1", Platform: "macos", Caps: canvas, Connected: true, ConnectedAtMs: 1}}, "mac-1"},
		{"most recently connected", []nodeInfo{{NodeID: "a", Caps: canvas, Connected: true, ConnectedAtMs: 100}, {NodeID: "b", Caps: canvas, Connected: true, ConnectedAtMs: 300}, {NodeID: "c", Caps: canvas, Connected: true, ConnectedAtMs: 200}}, "b"},
	}
	for _, c := range cases {
		got, err := pickDefault(c.nodes)
		switch {
		case c.want == "" && (err == nil || !strings.HasPrefix(err.Error(), "node required")):
			t.Errorf("%s: %q %v", c.name, got, err)
		case c.want != "" && (err != nil || got != c.want):
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
}
