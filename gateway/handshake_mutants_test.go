package gateway

import (
	"strings"
	"testing"
)

// These tests pin handshake lines that a one-line mutation (gremlins,
// `make mutate`) could change with every other test still passing (issue
// 17, item 20).

// client.id and client.mode must not be empty; client.version and
// client.platform may be (the original's schema).
func TestConnectClientFieldsNonEmpty(t *testing.T) {
	ts := startServer(t, Options{})
	for field, ok := range map[string]bool{"id": false, "mode": false, "version": true, "platform": true} {
		c := dial(t, ts.url)
		f := c.call("connect", connectParams(func(p map[string]any) { p["client"].(map[string]any)[field] = "" }))
		if f.OK != ok {
			t.Errorf("client.%s empty: ok=%v (%+v), want %v", field, f.OK, f.Error, ok)
		}
		if !ok && (f.Error == nil || !strings.Contains(f.Error.Message, "/client/"+field+" must NOT have fewer than 1 characters")) {
			t.Errorf("client.%s empty: %+v", field, f.Error)
		}
		c.close()
	}
}
