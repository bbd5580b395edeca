package nodes

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

func TestMatch(t *testing.T) {
	list := []Listed{
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
		"Build Box":     "a1b2c3d4e5f6",
		"  BUILD BOX  ": "a1b2c3d4e5f6",
		"build_box":     "a1b2c3d4e5f6",
		"A1B2C3D4":      "a1b2c3d4e5f6", // prefix of 6+
		"mac-12":        "mac-1234567",
		"kiosk":         "dup-new",      // two match; the connected one wins
		"Spare":         "Spare",        // an exact id beats a name
		"a1b2c3":        "a1b2c3d4e5f6", // two ids start with it: the connected one
		"lap":           "mac-1234567",  // nothing else matches: a unique name prefix
		"build":         "a1b2c3d4e5f6",
	} {
		got, err := Match(list, q)
		if err != nil || got.NodeID != want {
			t.Errorf("%q: %q %v, want %q", q, got.NodeID, err, want)
		}
	}
	for q, want := range map[string]string{
		"":      "node required",
		"a1b2c": `unknown node "a1b2c" (known: Build Box, Spare, Laptop, Kiosk, kiosk!, Twin, twin, Spare)`, // prefix too short
		"twin":  `node "twin" is ambiguous: it names Twin (twin-1), twin (twin-2)`,
		"tw":    `node "tw" is ambiguous`,
		"ghost": `unknown node "ghost"`,
	} {
		_, err := Match(list, q)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %q", q, err, want)
		}
	}
	if _, err := Match(nil, "x"); err == nil || !strings.Contains(err.Error(), "no nodes are known") {
		t.Errorf("no nodes: %v", err)
	}
	if _, err := Match(list, "ghost"); tools.AsError(err).Code != tools.CodeNotFound {
		t.Errorf("unknown node code: %v", tools.AsError(err).Code)
	}
	if _, err := Match(list, "twin"); tools.AsError(err).Code != tools.CodeInvalidParams {
		t.Errorf("ambiguous node code: %v", tools.AsError(err).Code)
	}
}
