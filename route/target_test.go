package route

import (
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

func TestLoopback(t *testing.T) {
	for u, want := range map[string]bool{
		"ws://127.0.0.1:18789": true, "ws://localhost:1": true, "wss://[::1]:2": true, "ws://127.1.2.3": true,
		"ws://10.0.0.2:18789": false, "wss://gw.example.com": false, "::garbage": false,
	} {
		if got := (Target{URL: u}).Loopback(); got != want {
			t.Errorf("%s: got %v", u, got)
		}
	}
}

// A URL in flags is the gateway as given; remote mode names the remote one
// with its credentials; otherwise the local port with gateway.auth's.
// Credentials from flags always win, and config credentials never travel
// to a gateway the config does not describe.
func TestFromConfig(t *testing.T) {
	cfg := config.Empty()
	cfg.Doc = map[string]any{"gateway": map[string]any{
		"auth":   map[string]any{"token": "local-tok"},
		"remote": map[string]any{"url": "wss://gw.example.com", "token": "remote-tok"},
	}}
	if got := FromConfig(Target{URL: "ws://10.0.0.9:1"}, cfg, 1); got != (Target{URL: "ws://10.0.0.9:1", Named: true}) {
		t.Errorf("flag URL: %+v", got)
	}
	if got := FromConfig(Target{}, cfg, 18789); got != (Target{URL: "ws://127.0.0.1:18789", Token: "local-tok"}) {
		t.Errorf("local: %+v", got)
	}
	cfg.Doc["gateway"].(map[string]any)["mode"] = "remote"
	if got := FromConfig(Target{Password: "pw"}, cfg, 18789); got != (Target{URL: "wss://gw.example.com", Token: "remote-tok", Password: "pw", Named: true}) {
		t.Errorf("remote: %+v", got)
	}
	if got := FromConfig(Target{Token: "flag"}, cfg, 18789); got.Token != "flag" {
		t.Errorf("flag token: %+v", got)
	}
}
