package nodes_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

const token = "nodes-test-token"

// gw is a real gateway on a loopback port (fixed once chosen, so a restart
// comes back where its clients expect it), with its own state dir.
type gw = gatewaytest.Gateway

func startGateway(t testing.TB, dir, configJSON string, port int) *gw {
	t.Helper()
	cfgPath := filepath.Join(dir, "openclaw.json")
	if configJSON != "" {
		if err := os.WriteFile(cfgPath, []byte(configJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return gatewaytest.Start(t, dir, token, port)
}

// operator connects as a CLI operator with the given scopes.
func operator(t testing.TB, g *gw, scopes ...string) *client.Conn {
	t.Helper()
	if scopes == nil {
		scopes = []string{protocol.ScopeAdmin}
	}
	c, err := client.Dial(context.Background(), client.Options{URL: g.URL, Token: token, Scopes: scopes})
	if err != nil {
		t.Fatalf("operator dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// call runs a method and returns its payload, failing the test on error.
func call(t testing.TB, c *client.Conn, method string, params any) gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.Call(ctx, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return gjson.ParseBytes(out)
}

// callErr runs a method that must fail and returns its error.
func callErr(t testing.TB, c *client.Conn, method string, params any) *client.CallError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.Call(ctx, method, params)
	if err == nil {
		t.Fatalf("%s: want an error, got %s", method, out)
	}
	var ce *client.CallError
	if !asCallError(err, &ce) {
		t.Fatalf("%s: %T %v is not a gateway error", method, err, err)
	}
	return ce
}

// fakeNode is a node host speaking the node role over a real WebSocket:
// a signed device identity, declared commands, and an answer function for
// node.invoke.request.
type fakeNode struct {
	t        testing.TB
	id       *client.Identity
	conn     *client.Conn
	requests chan gjson.Result // every node.invoke.request
	events   chan protocol.Event
	answer   func(req gjson.Result) (result map[string]any, reply bool)
}

func newFakeNode(t testing.TB, name string, commands []string) *fakeNode {
	t.Helper()
	id, err := client.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return &fakeNode{t: t, id: id, requests: make(chan gjson.Result, 1024), events: make(chan protocol.Event, 1024),
		answer: whichAnswer}
}

// whichAnswer answers system.which like a node host: {bins:{name:path}}.
func whichAnswer(req gjson.Result) (map[string]any, bool) {
	params := gjson.Parse(req.Get("paramsJSON").String())
	bins := map[string]string{}
	params.Get("bins").ForEach(func(_, b gjson.Result) bool { bins[b.String()] = "/usr/bin/" + b.String(); return true })
	pj, _ := json.Marshal(map[string]any{"bins": bins})
	return map[string]any{"ok": true, "payloadJSON": string(pj)}, true
}

// connect dials the gateway as this node.
func (n *fakeNode) connect(g *gw, name string, commands []string) {
	n.t.Helper()
	var c *client.Conn
	opts := client.Options{URL: g.URL, Token: token, Identity: n.id, Role: protocol.RoleNode, ClientID: protocol.ClientIDNodeHost,
		ClientMode: protocol.ModeNode, DisplayName: name, Version: "test", Platform: "linux", DeviceFamily: "Linux",
		Caps: []string{"system"}, Commands: commands, MinProtocol: 3, MaxProtocol: 4,
		OnEvent: func(ev protocol.Event) {
			select {
			case n.events <- ev:
			default:
			}
			if ev.Event != "node.invoke.request" {
				return
			}
			req := gjson.ParseBytes(ev.Payload)
			n.requests <- req
			if n.answer == nil {
				return
			}
			res, reply := n.answer(req)
			if !reply {
				return
			}
			res["id"], res["nodeId"] = req.Get("id").String(), n.id.DeviceID
			go func() { _, _ = c.Call(context.Background(), "node.invoke.result", res) }()
		}}
	var err error
	c, err = client.Dial(context.Background(), opts)
	if err != nil {
		n.t.Fatalf("node dial: %v", err)
	}
	n.conn = c
	n.t.Cleanup(func() { _ = c.Close() })
}

// waitNode waits until node.list shows the node connected (its
// registration runs before its first request, but the operator may ask
// first).
func waitNode(t testing.TB, op *client.Conn, nodeID string) gjson.Result {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, n := range call(t, op, "node.list", map[string]any{}).Get("nodes").Array() {
			if n.Get("nodeId").String() == nodeID && n.Get("connected").Bool() {
				return n
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("node %s never connected", nodeID)
	return gjson.Result{}
}

// pendingFor is the node's pending surface request id.
func pendingFor(t testing.TB, op *client.Conn, nodeID string) string {
	t.Helper()
	for _, p := range call(t, op, "node.pair.list", map[string]any{}).Get("pending").Array() {
		if p.Get("nodeId").String() == nodeID {
			return p.Get("requestId").String()
		}
	}
	return ""
}

// paired connects a node and approves its surface.
func paired(t testing.TB, g *gw, op *client.Conn, name string, commands []string) *fakeNode {
	t.Helper()
	n := newFakeNode(t, name, commands)
	n.connect(g, name, commands)
	waitNode(t, op, n.id.DeviceID)
	rid := pendingFor(t, op, n.id.DeviceID)
	if rid == "" {
		t.Fatalf("no pending request for %s", name)
	}
	call(t, op, "node.pair.approve", map[string]any{"requestId": rid})
	return n
}
