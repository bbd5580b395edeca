package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

func asCallError(err error, ce **client.CallError) bool { return errors.As(err, ce) }

var hostCommands = []string{"system.run", "system.run.prepare", "system.which", "system.execApprovals.get",
	"system.execApprovals.set", "worker.launch.v1", "ollama.chat"}

// A node's surface waits for approval: it connects, lists as
// pending-approval with no effective commands, invoking is refused with the
// original's hint; node.pair.approve (which needs operator.admin for
// system.run) grants it, the node hears node.pair.resolved, and the command
// then reaches the node and its answer comes back.
func TestPairingFlow(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := newFakeNode(t, "build-box", hostCommands)
	n.connect(g, "build-box", hostCommands)
	entry := waitNode(t, op, n.id.DeviceID)
	if entry.Get("approvalState").String() != "pending-approval" || len(entry.Get("commands").Array()) != 0 || !entry.Get("paired").Bool() {
		t.Fatalf("before approval: %s", entry.Raw)
	}
	if d := entry.Get("declaredCommands").String(); !strings.Contains(d, "system.which") || strings.Contains(d, "worker.launch.v1") {
		t.Errorf("declared commands (private ones dropped): %s", d)
	}
	if w := entry.Get("withheldCommands").String(); !strings.Contains(w, "ollama.chat") {
		t.Errorf("a command no allowlist admits is withheld: %s", entry.Raw)
	}
	list := call(t, op, "node.pair.list", map[string]any{})
	req := list.Get("pending.0")
	if req.Get("nodeId").String() != n.id.DeviceID || req.Get("requiredApproveScopes").String() != `["operator.pairing","operator.admin"]` ||
		strings.Contains(req.Get("commands").String(), "ollama.chat") {
		t.Fatalf("pending request: %s", list.Raw)
	}
	e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "k1",
		"params": map[string]any{"bins": []string{"sh"}}})
	if e.Code != protocol.ErrInvalidRequest || !strings.Contains(e.Message, "pending approval") {
		t.Fatalf("invoke before approval: %s %s", e.Code, e.Message)
	}

	// A pairing-only approver may not grant system.run.
	pairOnly := operator(t, g, protocol.ScopePairing)
	if e := callErr(t, pairOnly, "node.pair.approve", map[string]any{"requestId": req.Get("requestId").String()}); e.Code != protocol.ErrForbidden ||
		!strings.Contains(e.Message, "operator.admin") {
		t.Fatalf("pairing-only approve: %s %s", e.Code, e.Message)
	}
	res := call(t, op, "node.pair.approve", map[string]any{"requestId": req.Get("requestId").String()})
	if res.Get("node.nodeId").String() != n.id.DeviceID || !strings.Contains(res.Get("node.commands").String(), "system.run") {
		t.Fatalf("approve: %s", res.Raw)
	}
	waitEvent(t, n, "node.pair.resolved")
	entry = waitNode(t, op, n.id.DeviceID)
	if entry.Get("approvalState").String() != "approved" || !strings.Contains(entry.Get("commands").String(), "system.which") ||
		strings.Contains(entry.Get("commands").String(), "worker.launch.v1") {
		t.Fatalf("after approval: %s", entry.Raw)
	}
	out := call(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "k2",
		"params": map[string]any{"bins": []string{"git"}}})
	if !out.Get("ok").Bool() || out.Get("payload.bins.git").String() != "/usr/bin/git" || out.Get("command").String() != "system.which" {
		t.Fatalf("invoke: %s", out.Raw)
	}
	got := <-n.requests
	if got.Get("command").String() != "system.which" || got.Get("timeoutMs").Int() != 30000 || got.Get("idempotencyKey").String() != "k2" ||
		gjson.Parse(got.Get("paramsJSON").String()).Get("bins.0").String() != "git" {
		t.Errorf("node.invoke.request the node saw: %s", got.Raw)
	}
	// system.execApprovals.* and private controls never go through node.invoke.
	for _, cmd := range []string{"system.execApprovals.get", "worker.launch.v1"} {
		if e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": cmd, "idempotencyKey": "k3" + cmd}); e.Code != protocol.ErrInvalidRequest {
			t.Errorf("%s: %s %s", cmd, e.Code, e.Message)
		}
	}
	// An undeclared command names the platform, as the original.
	if e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "camera.snap", "idempotencyKey": "k4"}); !strings.Contains(e.Message, "platform: linux") {
		t.Errorf("undeclared: %s", e.Message)
	}
}

// A refused invoke (surface pending) never reaches the node.
func TestRefusedInvokeSendsNothing(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := newFakeNode(t, "quiet", hostCommands)
	n.connect(g, "quiet", hostCommands)
	waitNode(t, op, n.id.DeviceID)
	callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "q1"})
	call(t, op, "node.pair.approve", map[string]any{"requestId": pendingFor(t, op, n.id.DeviceID)})
	call(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "q2",
		"params": map[string]any{"bins": []string{"a"}}})
	first := <-n.requests
	if first.Get("idempotencyKey").String() != "q2" {
		t.Fatalf("the refused invoke reached the node: %s", first.Raw)
	}
}

func waitEvent(t testing.TB, n *fakeNode, name string) protocol.Event {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-n.events:
			if ev.Event == name {
				return ev
			}
		case <-timeout:
			t.Fatalf("node never got %s", name)
		}
	}
}

// A node that does not answer in timeoutMs fails the invoke with the
// original's TIMEOUT shape; its answer afterwards is acknowledged with
// ignored:true.
func TestInvokeTimeoutAndLateResult(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "slow", hostCommands)
	n.answer = nil // never answers by itself
	e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "t1",
		"timeoutMs": 200, "params": map[string]any{"bins": []string{"sh"}}})
	if e.Code != protocol.ErrUnavailable || e.Message != "TIMEOUT: node invoke timed out" ||
		gjson.Get(mustJSON(e.Details), "nodeError.code").String() != "TIMEOUT" || !gjson.Get(mustJSON(e.Details), "nodeCommandDispatched").Bool() {
		t.Fatalf("timeout: %s %s %v", e.Code, e.Message, e.Details)
	}
	req := <-n.requests
	if req.Get("timeoutMs").Int() != 200 {
		t.Errorf("timeoutMs sent to the node: %s", req.Raw)
	}
	late := call(t, n.conn, "node.invoke.result", map[string]any{"id": req.Get("id").String(), "nodeId": n.id.DeviceID, "ok": true, "payloadJSON": `{}`})
	if late.Raw != `{"ok":true,"ignored":true}` {
		t.Fatalf("late result: %s", late.Raw)
	}
	// A result must name the caller's own node.
	if e := callErr(t, n.conn, "node.invoke.result", map[string]any{"id": "x", "nodeId": "someone-else", "ok": true}); e.Message != "nodeId mismatch" {
		t.Errorf("foreign nodeId: %s", e.Message)
	}
	// Operators cannot post results; nodes cannot list nodes.
	if e := callErr(t, op, "node.invoke.result", map[string]any{"id": "x", "nodeId": n.id.DeviceID, "ok": true}); e.Message != "unauthorized role: operator" {
		t.Errorf("operator result: %s", e.Message)
	}
	if e := callErr(t, n.conn, "node.list", map[string]any{}); e.Message != "unauthorized role: node" {
		t.Errorf("node list: %s", e.Message)
	}
}

// A node that disconnects while an invoke waits fails that invoke at once
// (the original waits out the timeout). The invoke's timeout here is ten
// minutes and the call's own deadline one: only the disconnect can end it.
func TestDisconnectFailsPendingInvoke(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "flaky", hostCommands)
	n.answer = func(req gjson.Result) (map[string]any, bool) {
		go func() { _ = n.conn.Close() }()
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := op.Call(ctx, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "d1",
		"timeoutMs": 600000, "params": map[string]any{"bins": []string{"sh"}}})
	var ce *client.CallError
	if !errors.As(err, &ce) || ce.Code != protocol.ErrUnavailable || !strings.HasPrefix(ce.Message, "NOT_CONNECTED: node disconnected") {
		t.Fatalf("invoke across a disconnect: %v", err)
	}
	if !gjson.Get(mustJSON(ce.Details), "nodeCommandDispatched").Bool() {
		t.Errorf("details: %v", ce.Details)
	}
	// And a node that is not connected at all: NOT_CONNECTED at once.
	e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "d2"})
	if e.Message != "node not connected" || gjson.Get(mustJSON(e.Details), "code").String() != "NOT_CONNECTED" {
		t.Fatalf("offline node: %s %v", e.Message, e.Details)
	}
}

// The approved surface is in the store: after a gateway restart the node
// reconnects approved, with no new request; a wider surface asks again
// while the approved commands keep working; node.pair.remove forgets it.
func TestSurfacePersistsAndWidens(t *testing.T) {
	dir := t.TempDir()
	g := startGateway(t, dir, "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "keeper", []string{"system.which"})
	call(t, op, "node.rename", map[string]any{"nodeId": n.id.DeviceID, "displayName": "renamed"})
	_ = n.conn.Close()
	g.Stop()

	g2 := startGateway(t, dir, "", g.Port)
	op2 := operator(t, g2)
	offline := call(t, op2, "node.describe", map[string]any{"nodeId": n.id.DeviceID})
	if offline.Get("connected").Bool() || offline.Get("approvalState").String() != "approved" || offline.Get("displayName").String() != "renamed" {
		t.Fatalf("after restart, offline: %s", offline.Raw)
	}
	n.connect(g2, "keeper", []string{"system.which"})
	e := waitNode(t, op2, n.id.DeviceID)
	if e.Get("approvalState").String() != "approved" || pendingFor(t, op2, n.id.DeviceID) != "" {
		t.Fatalf("reconnect after restart: %s", e.Raw)
	}
	_ = n.conn.Close()
	n.connect(g2, "keeper", []string{"system.which", "system.run"})
	deadline := time.Now().Add(20 * time.Second)
	for pendingFor(t, op2, n.id.DeviceID) == "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	e = waitNode(t, op2, n.id.DeviceID)
	if e.Get("approvalState").String() != "pending-reapproval" || e.Get("commands").String() != `["system.which"]` {
		t.Fatalf("widened surface: %s", e.Raw)
	}
	call(t, op2, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "p1", "params": map[string]any{"bins": []string{"x"}}})
	call(t, op2, "node.pair.remove", map[string]any{"nodeId": n.id.DeviceID})
	select { // the node-only device is unpaired: its connection closes
	case <-n.conn.Done():
	case <-time.After(20 * time.Second):
		t.Fatalf("the removed node's connection stayed open")
	}
	deadline = time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := op2.Call(context.Background(), "node.describe", map[string]any{"nodeId": n.id.DeviceID}); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if e := callErr(t, op2, "node.describe", map[string]any{"nodeId": n.id.DeviceID}); e.Message != "unknown nodeId" {
		t.Fatalf("after remove: %s", e.Message)
	}
	devices := call(t, op2, "device.pair.list", map[string]any{})
	for _, d := range devices.Get("paired").Array() {
		if d.Get("deviceId").String() == n.id.DeviceID {
			t.Fatalf("the node-only device is still paired: %s", d.Raw)
		}
	}
}

// What a node reports is kept and shown: host stats (also saved, so an
// offline node keeps its last ones), skills, plugin tools; skills.bins
// answers; node.pending.* keep the original's shapes.
func TestNodeReports(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "reporter", hostCommands)
	stats := `{"cpuCount":4,"loadAverage":[0.5,0.4,0.3],"memoryTotalBytes":1000,"memoryFreeBytes":400}`
	ev := call(t, n.conn, "node.event", map[string]any{"event": "node.host.stats", "payloadJSON": stats})
	if ev.Raw != `{"ok":true,"event":"node.host.stats","handled":true}` {
		t.Fatalf("node.event: %s", ev.Raw)
	}
	if e := callErr(t, n.conn, "node.event", map[string]any{"event": "node.host.stats", "payloadJSON": `{"cpuCount":4,"memoryTotalBytes":1,"memoryFreeBytes":2}`}); e.Code != protocol.ErrInvalidRequest {
		t.Errorf("free > total accepted: %s", e.Message)
	}
	if ev := call(t, n.conn, "node.event", map[string]any{"event": "something.else", "payloadJSON": nil}); ev.Get("handled").Bool() {
		t.Errorf("unknown event: %s", ev.Raw)
	}
	sk := call(t, n.conn, "node.skills.update", map[string]any{"skills": []map[string]any{{"name": "deploy", "description": "Deploy", "content": "# Deploy"}}})
	if sk.Get("nodeId").String() != n.id.DeviceID || sk.Get("skills.0.name").String() != "deploy" {
		t.Fatalf("skills: %s", sk.Raw)
	}
	callErr(t, n.conn, "node.skills.update", map[string]any{"skills": []map[string]any{{"name": "a--b", "description": "x", "content": "y"}}})
	call(t, n.conn, "node.pluginTools.update", map[string]any{"tools": []map[string]any{{"pluginId": "p", "name": "grep_logs", "description": "Grep"}}})
	call(t, n.conn, "node.runnerInventory.update", map[string]any{"protocolFeatures": []string{"node-worker-supervisor-v6"}, "workerHost": map[string]any{"enabled": false}})
	if b := call(t, n.conn, "skills.bins", map[string]any{}); b.Raw != `{"bins":[]}` {
		t.Errorf("skills.bins: %s", b.Raw)
	}
	d := call(t, op, "node.describe", map[string]any{"nodeId": n.id.DeviceID})
	if d.Get("hostStats.cpuCount").Int() != 4 || d.Get("hostStats.updatedAtMs").Int() == 0 || d.Get("nodeSkills.0.name").String() != "deploy" ||
		d.Get("nodePluginTools.0.name").String() != "grep_logs" || d.Get("runnerInventory.workerHost.enabled").Exists() == false {
		t.Fatalf("describe: %s", d.Raw)
	}
	q := call(t, op, "node.pending.enqueue", map[string]any{"nodeId": n.id.DeviceID, "type": "location.request", "priority": "high"})
	if q.Get("queued.type").String() != "location.request" || q.Get("wakeTriggered").Bool() {
		t.Fatalf("enqueue: %s", q.Raw)
	}
	dr := call(t, n.conn, "node.pending.drain", map[string]any{})
	if dr.Get("items.#").Int() != 2 || dr.Get("items.0.type").String() != "location.request" || dr.Get("items.1.id").String() != "baseline-status" || dr.Get("hasMore").Bool() {
		t.Fatalf("drain: %s", dr.Raw)
	}
	if again := call(t, n.conn, "node.pending.drain", map[string]any{}); again.Get("items.#").Int() != 1 {
		t.Errorf("drained work came back: %s", again.Raw)
	}
	if pl := call(t, n.conn, "node.pending.pull", map[string]any{}); pl.Raw != `{"actions":[],"nodeId":"`+n.id.DeviceID+`"}` {
		t.Errorf("pull: %s", pl.Raw)
	}
	_ = n.conn.Close()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		d = call(t, op, "node.describe", map[string]any{"nodeId": n.id.DeviceID})
		if !d.Get("connected").Bool() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d.Get("connected").Bool() || d.Get("hostStats.cpuCount").Int() != 4 || d.Get("lastDisconnectedAtMs").Int() == 0 {
		t.Fatalf("offline describe keeps the last host stats: %s", d.Raw)
	}
}

// Scopes as the original: node.list needs operator.read, node.invoke
// operator.write, and admin for browser.proxy and fs.listDir.
func TestScopes(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "scoped", []string{"system.which", "browser.proxy", "fs.listDir"})
	reader := operator(t, g, protocol.ScopeRead)
	call(t, reader, "node.list", map[string]any{})
	if e := callErr(t, reader, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "s1"}); e.Code != protocol.ErrForbidden {
		t.Errorf("read invoke: %s", e.Message)
	}
	if e := callErr(t, reader, "node.pair.list", map[string]any{}); e.Code != protocol.ErrForbidden {
		t.Errorf("read pair.list: %s", e.Message)
	}
	writer := operator(t, g, protocol.ScopeWrite)
	call(t, writer, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "s2", "params": map[string]any{"bins": []string{"a"}}})
	for _, cmd := range []string{"browser.proxy", "fs.listDir"} {
		if e := callErr(t, writer, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": cmd, "idempotencyKey": "s3" + cmd}); e.Code != protocol.ErrForbidden ||
			!strings.Contains(e.Message, "operator.admin") {
			t.Errorf("%s as writer: %s %s", cmd, e.Code, e.Message)
		}
	}
	if e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "browser.proxy", "idempotencyKey": "s4",
		"params": map[string]any{"method": "POST", "path": "/profiles/create"}}); !strings.Contains(e.Message, "cannot mutate persistent browser profiles") {
		t.Errorf("profile mutation: %s", e.Message)
	}
	// A reader does not see pending requests or declared surfaces.
	if strings.Contains(call(t, reader, "node.list", map[string]any{}).Raw, "declaredCommands") {
		t.Errorf("a reader sees the declared surface")
	}
}

// system.run's approval flags pass only with a real exec approval for this
// node and command; approved:true alone is refused.
func TestSystemRunApprovalBinding(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "runner", hostCommands)
	var seen gjson.Result
	n.answer = func(req gjson.Result) (map[string]any, bool) {
		seen = gjson.Parse(req.Get("paramsJSON").String())
		return map[string]any{"ok": true, "payloadJSON": `{"exitCode":0,"timedOut":false,"success":true,"stdout":"ok\n","stderr":"","error":null}`}, true
	}
	argv := []string{"/bin/sh", "-lc", "echo ok"}
	e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.run", "idempotencyKey": "r1",
		"params": map[string]any{"command": argv, "approved": true, "runId": "made-up"}})
	if gjson.Get(mustJSON(e.Details), "code").String() != "UNKNOWN_APPROVAL_ID" {
		t.Fatalf("forged approval: %s %v", e.Message, e.Details)
	}
	// An approval for this node and command, allowed once: it passes once.
	req := call(t, op, "exec.approval.request", map[string]any{"command": "echo ok", "commandArgv": argv, "host": "node",
		"nodeId": n.id.DeviceID, "twoPhase": true, "timeoutMs": 60000})
	id := req.Get("id").String()
	call(t, op, "exec.approval.resolve", map[string]any{"id": id, "decision": "allow-once"})
	run := map[string]any{"command": argv, "rawCommand": "echo ok", "approved": true, "approvalDecision": "allow-once", "runId": id, "ignored": "x"}
	out := call(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.run", "idempotencyKey": "r2", "params": run})
	if out.Get("payload.stdout").String() != "ok\n" || !seen.Get("approved").Bool() || seen.Get("runId").String() != id || seen.Get("ignored").Exists() {
		t.Fatalf("approved run: %s; node saw %s", out.Raw, seen.Raw)
	}
	if e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.run", "idempotencyKey": "r3", "params": run}); gjson.Get(mustJSON(e.Details), "code").String() != "APPROVAL_REQUIRED" {
		t.Fatalf("allow-once used twice: %s %v", e.Message, e.Details)
	}
	// Another command under the same approval: refused.
	other := call(t, op, "exec.approval.request", map[string]any{"command": "echo ok", "host": "node", "nodeId": n.id.DeviceID, "twoPhase": true})
	call(t, op, "exec.approval.resolve", map[string]any{"id": other.Get("id").String(), "decision": "allow-always"})
	bad := map[string]any{"command": []string{"/bin/sh", "-lc", "rm -rf /"}, "rawCommand": "rm -rf /", "approved": true, "runId": other.Get("id").String()}
	if e := callErr(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.run", "idempotencyKey": "r4", "params": bad}); gjson.Get(mustJSON(e.Details), "code").String() != "APPROVAL_REQUEST_MISMATCH" {
		t.Fatalf("mismatched command: %s %v", e.Message, e.Details)
	}
	// Without flags the node's own approvals decide; the runId is added.
	call(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.run", "idempotencyKey": "r5", "params": map[string]any{"command": argv}})
	if seen.Get("approved").Exists() || seen.Get("runId").String() == "" {
		t.Fatalf("plain run: %s", seen.Raw)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// exec.approvals.node.get|set relay to the node's system.execApprovals.*
// (which node.invoke refuses), with the node found by name too.
func TestApprovalsNode(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "guarded", hostCommands)
	file := `{"version":1,"defaults":{"security":"full","ask":"off"}}`
	n.answer = func(req gjson.Result) (map[string]any, bool) {
		p := gjson.Parse(req.Get("paramsJSON").String())
		switch req.Get("command").String() {
		case "system.execApprovals.get":
			pj, _ := json.Marshal(map[string]any{"path": "/home/n/.openclaw/exec-approvals.json", "exists": true, "hash": "h1", "file": json.RawMessage(file)})
			return map[string]any{"ok": true, "payloadJSON": string(pj)}, true
		case "system.execApprovals.set":
			if p.Get("baseHash").String() != "h1" {
				return map[string]any{"ok": false, "error": map[string]any{"code": "INVALID_REQUEST", "message": "exec approvals changed since last load"}}, true
			}
			file = p.Get("file").Raw
			pj, _ := json.Marshal(map[string]any{"path": "/home/n/.openclaw/exec-approvals.json", "exists": true, "hash": "h2", "file": json.RawMessage(file)})
			return map[string]any{"ok": true, "payloadJSON": string(pj)}, true
		}
		return whichAnswer(req)
	}
	got := call(t, op, "exec.approvals.node.get", map[string]any{"nodeId": "guarded"})
	if got.Get("hash").String() != "h1" || got.Get("file.defaults.security").String() != "full" {
		t.Fatalf("get: %s", got.Raw)
	}
	set := call(t, op, "exec.approvals.node.set", map[string]any{"nodeId": n.id.DeviceID[:12], "baseHash": "h1",
		"file": map[string]any{"version": 1, "defaults": map[string]any{"security": "allowlist", "ask": "on-miss"}}})
	if set.Get("hash").String() != "h2" || set.Get("file.defaults.ask").String() != "on-miss" {
		t.Fatalf("set: %s", set.Raw)
	}
	if e := callErr(t, op, "exec.approvals.node.set", map[string]any{"nodeId": "guarded", "baseHash": "stale", "file": map[string]any{}}); !strings.Contains(e.Message, "changed since last load") {
		t.Errorf("stale hash: %s", e.Message)
	}
	writer := operator(t, g, protocol.ScopeWrite)
	if e := callErr(t, writer, "exec.approvals.node.get", map[string]any{"nodeId": "guarded"}); e.Code != protocol.ErrForbidden {
		t.Errorf("writer: %s", e.Message)
	}
}
