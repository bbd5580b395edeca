package gateway

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

// These pin methods_system.go lines that a one-line mutation (`make
// mutate`) could change with the other tests still passing (issue 17,
// item 20).

// connectNode connects a node with a new device key (paired silently on
// loopback).
func connectNode(t *testing.T, url string) *tclient {
	t.Helper()
	node := dial(t, url)
	np := connectParams(nodeParams)
	newDeviceKey(t).sign(np, node.challenge, true)
	if f := node.connect(np); !f.OK {
		t.Fatalf("node connect: %+v", f.Error)
	}
	return node
}

// status: the sessions summary comes from the sessions family (linked in
// this test binary), and a socket that has not connected yet counts as
// pending; health says whether config reload runs.
func TestStatusSessionsAndConnections(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	_ = dial(t, ts.url) // challenged, never connects
	connectNode(t, ts.url)
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

// gateway.reload.mode "off" turns config file watching off unless the
// caller set a poll interval itself; any other mode leaves it on.
func TestReloadModeOff(t *testing.T) {
	for _, c := range []struct {
		mode string
		poll time.Duration
		want string
	}{{"off", 0, "disabled"}, {"off", time.Second, "active"}, {"hot", 0, "active"}} {
		dir := t.TempDir()
		cfgPath := filepath.Join(dir, "openclaw.json")
		writeFile(t, cfgPath, `{gateway: {reload: {mode: "`+c.mode+`"}}}`)
		ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: c.poll})
		h := dialConnected(t, ts.url).call("health", nil)
		if got := gjson.GetBytes(h.Payload, "configReload.hotReloadStatus").Str; got != c.want {
			t.Errorf("mode %s, poll %v: %q, want %q", c.mode, c.poll, got, c.want)
		}
	}
}

// A node whose connect has answered counts as a node in status at once,
// even while the gateway's connect is paused right after hello-ok. Before,
// it counted as pending there, and CI once saw {"nodes":0,"pending":2} on
// a loaded machine.
func TestStatusCountsNodeOnceHelloIsOut(t *testing.T) {
	ts := startServer(t, Options{})
	op := dialConnected(t, ts.url)
	release := make(chan struct{})
	hook := func(c *conn) {
		if c.sess.role != protocol.RoleNode {
			return
		}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}
	ts.s.helloQueued.Store(&hook)
	defer close(release)
	connectNode(t, ts.url)
	f := op.call("status", nil)
	if !f.OK {
		t.Fatalf("status: %+v", f.Error)
	}
	if conns := gjson.GetBytes(f.Payload, "connections"); conns.Get("nodes").Int() != 1 || conns.Get("pending").Int() != 0 {
		t.Errorf("connections %s while the node's connect is paused after hello-ok, want nodes 1, pending 0", conns.Raw)
	}
}
