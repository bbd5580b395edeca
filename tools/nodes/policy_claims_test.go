package nodes_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
)

// Tests for the command-policy claims the docs make (issue 30 item 17):
// each fails under a one-line mutation of the rule it names.

// A node's effective commands need approval: a reconnect that declares a
// command its approved surface lacks (and the allowlist admits) gets
// neither the listing nor the invoke of it until an operator approves.
func TestEffectiveCommandsNeedApproval(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "widening", []string{"system.which"})
	_ = n.conn.Close()
	n.connect(g, "widening", []string{"system.which", "system.notify"})
	e := waitNode(t, op, n.id.DeviceID)
	if got := e.Get("commands").String(); got != `["system.which"]` {
		t.Fatalf("effective commands before approving system.notify: %s", got)
	}
	ce := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.notify", "idempotencyKey": "a1",
		"params": map[string]any{"title": "t"}})
	if ce.Code != protocol.ErrInvalidRequest || !strings.Contains(ce.Message, "node command not allowed") {
		t.Fatalf("unapproved command: %s %s", ce.Code, ce.Message)
	}
	select {
	case req := <-n.requests:
		t.Fatalf("an unapproved command reached the node: %s", req.Raw)
	default:
	}
	// Approved, it is effective.
	call(t, op, "node.pair.approve", map[string]any{"requestId": pendingFor(t, op, n.id.DeviceID)})
	e = waitNode(t, op, n.id.DeviceID)
	if got := e.Get("commands").String(); !strings.Contains(got, "system.notify") {
		t.Fatalf("after approval: %s", got)
	}
}

// An approved command that gateway.nodes.commands.deny names is removed
// from the effective set (listing and invoke); the approval itself stays.
func TestCommandsDenyRemovesApproved(t *testing.T) {
	dir := t.TempDir()
	g := startGateway(t, dir, "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "denied", []string{"system.which", "system.notify"})
	if e := waitNode(t, op, n.id.DeviceID); !strings.Contains(e.Get("commands").String(), "system.notify") {
		t.Fatalf("approved surface: %s", e.Raw)
	}
	// Denied while the node is connected (config.patch, no restart): the
	// connected node loses it at once.
	base := call(t, op, "config.get", map[string]any{}).Get("hash").String()
	if r := call(t, op, "config.patch", map[string]any{"raw": `{gateway: {nodes: {commands: {deny: ["system.notify"]}}}}`, "baseHash": base}); !r.Get("ok").Bool() {
		t.Fatalf("config.patch: %s", r.Raw)
	}
	live := waitNode(t, op, n.id.DeviceID)
	if got := live.Get("commands").String(); got != `["system.which"]` {
		t.Fatalf("connected node with system.notify denied: %s", live.Raw)
	}
	ce := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.notify", "idempotencyKey": "d0",
		"params": map[string]any{"title": "t"}})
	if ce.Code != protocol.ErrInvalidRequest || !strings.Contains(ce.Message, "node command not allowed") {
		t.Fatalf("denied command on the connected node: %s %s", ce.Code, ce.Message)
	}
	_ = n.conn.Close()
	g.Stop()

	// And after a restart, on reconnect.
	g2 := startGateway(t, dir, `{gateway: {nodes: {commands: {deny: ["system.notify"]}}}}`, g.Port)
	op2 := operator(t, g2)
	n.connect(g2, "denied", []string{"system.which", "system.notify"})
	e := waitNode(t, op2, n.id.DeviceID)
	if got := e.Get("commands").String(); got != `["system.which"]` || e.Get("approvalState").String() != "approved" {
		t.Fatalf("with system.notify denied: %s", e.Raw)
	}
	ce = callErr(t, op2, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.notify", "idempotencyKey": "d1",
		"params": map[string]any{"title": "t"}})
	if ce.Code != protocol.ErrInvalidRequest || !strings.Contains(ce.Message, "node command not allowed") {
		t.Fatalf("denied command: %s %s", ce.Code, ce.Message)
	}
	if r := call(t, op2, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "d2",
		"params": map[string]any{"bins": []string{"sh"}}}); r.Get("payload.bins.sh").String() != "/usr/bin/sh" {
		t.Fatalf("the other approved command: %s", r.Raw)
	}
}

// A dangerous command (camera.snap) is no platform's default: declared, it
// is withheld from the surface an operator can approve and refused on
// invoke until gateway.nodes.commands.allow names it.
func TestDangerousCommandsNeedCommandsAllow(t *testing.T) {
	dir := t.TempDir()
	g := startGateway(t, dir, "", 0)
	op := operator(t, g)
	cmds := []string{"system.which", "camera.snap"}
	n := newFakeNode(t, "cam", cmds)
	n.connect(g, "cam", cmds)
	e := waitNode(t, op, n.id.DeviceID)
	if !strings.Contains(e.Get("withheldCommands").String(), "camera.snap") {
		t.Errorf("camera.snap without commands.allow is not withheld: %s", e.Raw)
	}
	rid := pendingFor(t, op, n.id.DeviceID)
	for _, p := range call(t, op, "node.pair.list", map[string]any{}).Get("pending").Array() {
		if p.Get("requestId").String() == rid && strings.Contains(p.Get("commands").String(), "camera.snap") {
			t.Fatalf("camera.snap offered for approval without commands.allow: %s", p.Raw)
		}
	}
	call(t, op, "node.pair.approve", map[string]any{"requestId": rid})
	e = waitNode(t, op, n.id.DeviceID)
	if strings.Contains(e.Get("commands").String(), "camera.snap") {
		t.Fatalf("camera.snap effective without commands.allow: %s", e.Raw)
	}
	ce := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "camera.snap", "idempotencyKey": "c1"})
	if ce.Code != protocol.ErrInvalidRequest || !strings.Contains(ce.Message, "node command not allowed") {
		t.Fatalf("camera.snap without commands.allow: %s %s", ce.Code, ce.Message)
	}
	_ = n.conn.Close()
	g.Stop()

	// With commands.allow it can be approved and invoked.
	g2 := startGateway(t, dir, `{gateway: {nodes: {commands: {allow: ["camera.snap"]}}}}`, g.Port)
	op2 := operator(t, g2)
	n.answer = func(req gjson.Result) (map[string]any, bool) {
		return map[string]any{"ok": true, "payloadJSON": `{"format":"png","base64":""}`}, true
	}
	n.connect(g2, "cam", cmds)
	waitNode(t, op2, n.id.DeviceID)
	deadline := time.Now().Add(20 * time.Second)
	rid = ""
	for rid == "" && time.Now().Before(deadline) {
		rid = pendingFor(t, op2, n.id.DeviceID)
		time.Sleep(20 * time.Millisecond)
	}
	if rid == "" {
		t.Fatal("with commands.allow, camera.snap was not offered for approval")
	}
	call(t, op2, "node.pair.approve", map[string]any{"requestId": rid})
	if r := call(t, op2, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "camera.snap", "idempotencyKey": "c2"}); !r.Get("ok").Bool() {
		t.Fatalf("camera.snap allowed and approved: %s", r.Raw)
	}
}

// An invoke that times out tells the node to stop: node.invoke.cancel with
// the invoke's id.
func TestInvokeTimeoutSendsCancel(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "stuck", []string{"system.which"})
	n.answer = nil // never answers
	e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "x1",
		"timeoutMs": 200, "params": map[string]any{"bins": []string{"sh"}}})
	if !strings.HasPrefix(e.Message, "TIMEOUT") {
		t.Fatalf("want a timeout: %s", e.Message)
	}
	req := <-n.requests
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-n.events:
			if ev.Event != "node.invoke.cancel" {
				continue
			}
			p := gjson.ParseBytes(ev.Payload)
			if p.Get("invokeId").String() != req.Get("id").String() || p.Get("nodeId").String() != n.id.DeviceID {
				t.Fatalf("cancel for another invoke: %s (request %s)", ev.Payload, req.Get("id"))
			}
			return
		case <-deadline:
			t.Fatal("the node was never told to cancel the timed-out invoke (node.invoke.cancel)")
		}
	}
}
