package gateway

import (
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// Issue 8 interop: hello-ok.server.version is the original release we are
// compatible with (the original CLI compares it), the build is in
// server.buildId and status; capabilities name exactly what we serve.
func TestHelloVersionAndCapabilities(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	h := decode[protocol.HelloOK](t, c.hello)
	if h.Server.Version != CompatibleVersion || h.Server.BuildID != "test" {
		t.Errorf("server = %+v", h.Server)
	}
	if !slices.Equal(h.Features.Capabilities, []string{"published-model-catalog"}) {
		t.Errorf("capabilities = %v", h.Features.Capabilities)
	}
	st := decode[map[string]any](t, c.call("status", nil).Payload)
	if st["version"] != "test" {
		t.Errorf("status version = %v, want the build", st["version"])
	}
}

// A capability is advertised only when every method behind it is served.
func TestCapabilitiesFollowMethods(t *testing.T) {
	saved := capabilityMethods
	defer func() { capabilityMethods = saved }()
	capabilityMethods = map[string][]string{
		"served":     {"health", "models.list"},
		"not-served": {"health", "no.such.method"},
	}
	if got := capabilities(); !slices.Equal(got, []string{"served"}) {
		t.Errorf("capabilities = %v", got)
	}
	for cp, methods := range saved {
		for _, m := range methods {
			if tools.ByMethod(m) == nil {
				t.Errorf("capability %s names unserved method %s", cp, m)
			}
		}
	}
}
