package canvas

import (
	"strings"
	"testing"
)

// Matching --node is tools/nodes' Match (resolve_test.go there).

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
