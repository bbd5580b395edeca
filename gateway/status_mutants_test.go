package gateway

import (
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// These pin methods_system.go lines that a one-line mutation (`make
// mutate`) could change with the other tests still passing (issue 17,
// item 20).

// status: the sessions summary comes from the sessions family (linked in
// this test binary), and a socket that has not connected yet counts as
// pending; health says whether config reload runs.
func TestStatusSessionsAndConnections(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	_ = dial(t, ts.url) // challenged, never connects
	node := dial(t, ts.url)
	np := connectParams(nodeParams)
	newDeviceKey(t).sign(np, node.challenge, true)
	if f := node.connect(np); !f.OK {
		t.Fatalf("node connect: %+v", f.Error)
	}
	f := c.call("status", nil)
	if !f.OK {
		t.Fatalf("status: %+v", f.Error)
	}
	st := gjson.ParseBytes(f.Payload)
	if n := len(st.Get("sessions.paths").Array()); n != 1 {
		t.Errorf("status.sessions is not the sessions family's (paths %s)", st.Get("sessions.paths").Raw)
	}
	if conns := st.Get("connections"); conns.Get("total").Int() != 3 || conns.Get("operators").Int() != 1 ||
		conns.Get("nodes").Int() != 1 || conns.Get("pending").Int() != 1 {
		t.Errorf("connections %s, want total 3, operators 1, nodes 1, pending 1", conns.Raw)
	}
	for _, c2 := range []struct {
		poll time.Duration
		want string
	}{{0, "active"}, {-1, "disabled"}} {
		ts := startServer(t, Options{ConfigPollInterval: c2.poll})
		h := dialConnected(t, ts.url).call("health", nil)
		if got := gjson.GetBytes(h.Payload, "configReload.hotReloadStatus").Str; got != c2.want {
			t.Errorf("poll %v: hotReloadStatus %q, want %q", c2.poll, got, c2.want)
		}
	}
}
