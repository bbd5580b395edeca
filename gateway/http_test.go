package gateway

import (
	"net/http"
	"testing"

	"github.com/gorilla/websocket"
)

// Issue 6 test gap: a web page from a foreign origin must not drive a
// loopback gateway: its upgrade gets 403. The gateway's own origin and
// loopback pages get in; clients with no Origin (CLI, node host) too.
func TestWebSocketOriginCheck(t *testing.T) {
	ts := startServer(t, Options{})
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"https://evil.example", http.StatusForbidden},
		{"http://127.0.0.1.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://" + ts.s.Addr(), http.StatusSwitchingProtocols},
		{"http://localhost:5173", http.StatusSwitchingProtocols},
		{"", http.StatusSwitchingProtocols},
	} {
		h := http.Header{}
		if tc.origin != "" {
			h.Set("Origin", tc.origin)
		}
		ws, resp, err := websocket.DefaultDialer.Dial(ts.url, h)
		if ws != nil {
			ws.Close()
		}
		if resp == nil {
			t.Errorf("origin %q: no response: %v", tc.origin, err)
			continue
		}
		if resp.StatusCode != tc.want {
			t.Errorf("origin %q: HTTP %d, want %d", tc.origin, resp.StatusCode, tc.want)
		}
	}
}
