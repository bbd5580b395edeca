package nodes_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
)

// toolCall runs an agent tool through tools.invoke and returns its output.
func toolCall(t testing.TB, c *client.Conn, name string, args map[string]any) gjson.Result {
	t.Helper()
	r := call(t, c, "tools.invoke", map[string]any{"name": name, "args": args})
	if !r.Get("ok").Bool() {
		t.Fatalf("%s %v: %s", name, args["action"], r.Raw)
	}
	return r.Get("output")
}

func toolError(t testing.TB, c *client.Conn, name string, args map[string]any) gjson.Result {
	t.Helper()
	r := call(t, c, "tools.invoke", map[string]any{"name": name, "args": args})
	if r.Get("ok").Bool() {
		t.Fatalf("%s %v: want a failure, got %s", name, args["action"], r.Raw)
	}
	return r.Get("error")
}

var png = []byte("\x89PNG\r\n\x1a\nnot-really-a-png")

// The nodes tool maps its actions to node.invoke with the spec's shapes:
// status lists nodes (connected shown), --node takes an id prefix or a
// name, which/invoke answer the payload, camera_snap stores the image and
// answers MEDIA:<path> with the image inline, invoke refuses system.run.
func TestNodesTool(t *testing.T) {
	g := startGateway(t, t.TempDir(), `{gateway: {nodes: {commands: {allow: ["camera.snap", "camera.list"]}}}}`, 0)
	op := operator(t, g)
	n := paired(t, g, op, "Phone", []string{"system.which", "camera.snap", "camera.list", "system.notify"})
	n.answer = func(req gjson.Result) (map[string]any, bool) {
		p := gjson.Parse(req.Get("paramsJSON").String())
		switch req.Get("command").String() {
		case "camera.snap":
			pj, _ := json.Marshal(map[string]any{"format": "png", "base64": base64.StdEncoding.EncodeToString(png), "width": 4, "height": 3, "facing": p.Get("facing").String()})
			return map[string]any{"ok": true, "payloadJSON": string(pj)}, true
		case "camera.list":
			return map[string]any{"ok": true, "payloadJSON": `{"devices":[{"id":"cam0","name":"Back","position":"back"}]}`}, true
		case "system.notify":
			return map[string]any{"ok": true, "payloadJSON": `{"ok":true}`}, true
		}
		return whichAnswer(req)
	}
	st := toolCall(t, op, "nodes", map[string]any{"action": "status"})
	if st.Get("details.nodes.0.connected").Bool() != true || st.Get("details.nodes.0.displayName").String() != "Phone" {
		t.Fatalf("status: %s", st.Raw)
	}
	which := toolCall(t, op, "nodes", map[string]any{"action": "which", "node": n.id.DeviceID[:10], "bins": []string{"git"}})
	if which.Get("details.bins.git").String() != "/usr/bin/git" {
		t.Fatalf("which by id prefix: %s", which.Raw)
	}
	inv := toolCall(t, op, "nodes", map[string]any{"action": "invoke", "node": "phone", "command": "camera.list", "params": "{}"})
	if inv.Get("details.payload.devices.0.id").String() != "cam0" {
		t.Fatalf("invoke by name: %s", inv.Raw)
	}
	snap := toolCall(t, op, "nodes", map[string]any{"action": "camera_snap", "node": "Pho"})
	if snap.Get("content.#").Int() != 4 || snap.Get("details.images.#").Int() != 2 || snap.Get("details.images.1.facing").String() != "back" {
		t.Fatalf("camera_snap both facings: %s", snap.Raw)
	}
	path := strings.TrimPrefix(snap.Get("content.0.text").String(), "MEDIA:")
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, png) || snap.Get("content.1.type").String() != "image" || snap.Get("content.1.mimeType").String() != "image/png" {
		t.Fatalf("stored image %s: %v (%q)", path, err, b)
	}
	if e := toolError(t, op, "nodes", map[string]any{"action": "invoke", "node": "phone", "command": "system.run"}); !strings.Contains(e.Get("message").String(), "nodes run") {
		t.Errorf("invoke system.run: %s", e.Raw)
	}
	if e := toolError(t, op, "nodes", map[string]any{"action": "notify", "node": "phone"}); !strings.Contains(e.Get("message").String(), "title or a body") {
		t.Errorf("empty notify: %s", e.Raw)
	}
	if out := toolCall(t, op, "nodes", map[string]any{"action": "notify", "node": "phone", "title": "Hi"}); out.Get("details.ok").Bool() != true {
		t.Errorf("notify: %s", out.Raw)
	}
	if e := toolError(t, op, "nodes", map[string]any{"action": "describe", "node": "nope"}); e.Get("code").String() != "NOT_FOUND" {
		t.Errorf("unknown node: %s", e.Raw)
	}
	// A command the node does not declare: the original's error.
	if e := toolError(t, op, "nodes", map[string]any{"action": "location_get", "node": "phone"}); !strings.Contains(e.Get("message").String(), "node command not allowed") {
		t.Errorf("location_get on a node without it: %s", e.Raw)
	}
	pend := toolCall(t, op, "nodes", map[string]any{"action": "pending"})
	if pend.Get("details.pending.#").Int() != 0 || pend.Get("details.paired.0.nodeId").String() != n.id.DeviceID {
		t.Errorf("pending: %s", pend.Raw)
	}
}

// nodeHost answers prepare and system.run as the original node host does
// (security full, ask off), recording what it ran.
func nodeHost(n *fakeNode, ran chan gjson.Result) func(req gjson.Result) (map[string]any, bool) {
	return func(req gjson.Result) (map[string]any, bool) {
		p := gjson.Parse(req.Get("paramsJSON").String())
		switch req.Get("command").String() {
		case "system.run.prepare":
			pj, _ := json.Marshal(map[string]any{"plan": map[string]any{"argv": jsonAny(p.Get("command")), "cwd": "/srv", "commandText": p.Get("rawCommand").String()},
				"execPolicy": map[string]any{"security": "full", "ask": "off"}})
			return map[string]any{"ok": true, "payloadJSON": string(pj)}, true
		case "system.run":
			ran <- p
			pj, _ := json.Marshal(map[string]any{"exitCode": 0, "timedOut": false, "success": true, "stdout": "ran: " + p.Get("rawCommand").String() + "\n", "stderr": "", "error": nil})
			return map[string]any{"ok": true, "payloadJSON": string(pj)}, true
		}
		return whichAnswer(req)
	}
}

func jsonAny(r gjson.Result) any {
	var v any
	_ = json.Unmarshal([]byte(r.Raw), &v)
	return v
}

// exec host=node: prepare, then system.run on the node; with ask=always an
// operator's approval is held first and the run carries its id; nodes run
// goes the same way.
func TestExecHostNode(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "runner", hostCommands)
	ran := make(chan gjson.Result, 8)
	n.answer = nodeHost(n, ran)

	out := toolCall(t, op, "exec", map[string]any{"command": "uname -a", "host": "node", "node": "runner"})
	p := <-ran
	if out.Get("details.stdout").String() != "ran: uname -a\n" || out.Get("details.host").String() != "node" || out.Get("details.cwd").String() != "/srv" ||
		p.Get("command").String() != `["/bin/sh","-lc","uname -a"]` || p.Get("approved").Exists() || p.Get("systemRunPlan.cwd").String() != "/srv" {
		t.Fatalf("exec host=node: %s; node ran %s", out.Raw, p.Raw)
	}

	// ask=always: held for an operator, exit 8 with the approval's id.
	e := toolError(t, op, "exec", map[string]any{"command": "make deploy", "host": "node", "node": "runner", "ask": "always"})
	id := e.Get("details.approvalId").String()
	if e.Get("code").String() != "PENDING_APPROVAL" || id == "" || e.Get("details.host").String() != "node" {
		t.Fatalf("held: %s", e.Raw)
	}
	select {
	case p := <-ran:
		t.Fatalf("ran before the approval: %s", p.Raw)
	default:
	}
	call(t, op, "exec.approval.resolve", map[string]any{"id": id, "decision": "allow-once"})
	select {
	case p = <-ran:
	case <-time.After(30 * time.Second):
		t.Fatal("the approved command never reached the node")
	}
	if !p.Get("approved").Bool() || p.Get("runId").String() != id || p.Get("approvalDecision").String() != "allow-once" {
		t.Fatalf("approved run: %s", p.Raw)
	}

	// awaitApproval waits for the decision and answers the result.
	done := make(chan gjson.Result, 1)
	go func() {
		r, _ := op.Call(context.Background(), "tools.invoke", map[string]any{"name": "nodes", "args": map[string]any{"action": "run", "node": "runner",
			"command": []string{"echo", "two words"}, "ask": "always", "awaitApproval": true}})
		done <- gjson.ParseBytes(r)
	}()
	var pending string
	deadline := time.Now().Add(30 * time.Second)
	for pending == "" && time.Now().Before(deadline) {
		for _, a := range call(t, op, "exec.approval.list", map[string]any{}).Array() {
			if a.Get("request.host").String() == "node" {
				pending = a.Get("id").String()
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	call(t, op, "exec.approval.resolve", map[string]any{"id": pending, "decision": "allow-once"})
	r := <-done
	if r.Get("output.details.stdout").String() != "ran: echo 'two words'\n" || r.Get("output.details.exitCode").Int() != 0 {
		t.Fatalf("nodes run: %s", r.Raw)
	}
	// A node without system.run in its surface is refused, never run here.
	m := paired(t, g, op, "plain", []string{"system.which"})
	_ = m
	if e := toolError(t, op, "exec", map[string]any{"command": "true", "host": "node", "node": "plain"}); !strings.Contains(e.Get("message").String(), "system.run is not in its approved surface") {
		t.Errorf("node without system.run: %s", e.Raw)
	}
}

// browser with target:"node" sends the control route to the node as
// browser.proxy; files it returns are stored and named.
func TestBrowserTargetNode(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "desk", []string{"browser.proxy"})
	seen := make(chan gjson.Result, 8)
	n.answer = func(req gjson.Result) (map[string]any, bool) {
		p := gjson.Parse(req.Get("paramsJSON").String())
		seen <- p
		var payload map[string]any
		switch p.Get("path").String() {
		case "/":
			payload = map[string]any{"result": map[string]any{"running": true, "profile": "openclaw"}}
		case "/screenshot":
			payload = map[string]any{"result": map[string]any{"ok": true, "path": "/tmp/node/shot.png"},
				"files": []map[string]any{{"path": "/tmp/node/shot.png", "base64": base64.StdEncoding.EncodeToString(png), "mimeType": "image/png"}}}
		default:
			payload = map[string]any{"error": map[string]any{"status": 404, "body": map[string]any{"error": "not found"}}}
		}
		pj, _ := json.Marshal(payload)
		return map[string]any{"ok": true, "payloadJSON": string(pj)}, true
	}
	st := toolCall(t, op, "browser", map[string]any{"action": "status", "target": "node", "node": "desk"})
	if st.Get("details.running").Bool() != true {
		t.Fatalf("status on node: %s", st.Raw)
	}
	if p := <-seen; p.Get("method").String() != "GET" || p.Get("path").String() != "/" {
		t.Fatalf("proxy request: %s", p.Raw)
	}
	shot := toolCall(t, op, "browser", map[string]any{"action": "screenshot", "target": "node", "node": "desk", "fullPage": true})
	path := strings.TrimPrefix(shot.Get("content.0.text").String(), "MEDIA:")
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, png) || shot.Get("details.result.path").String() != path {
		t.Fatalf("screenshot on node: %s (%v)", shot.Raw, err)
	}
	if p := <-seen; p.Get("body.fullPage").Bool() != true || p.Get("method").String() != "POST" {
		t.Fatalf("screenshot request: %s", p.Raw)
	}
	if e := toolError(t, op, "browser", map[string]any{"action": "console", "target": "node", "node": "desk"}); !strings.Contains(e.Get("message").String(), "not found") {
		t.Errorf("route error: %s", e.Raw)
	}
	// browser.proxy is operator.admin: a writer's relay is refused.
	w := operator(t, g, "operator.write")
	if e := toolError(t, w, "browser", map[string]any{"action": "status", "target": "node", "node": "desk"}); !strings.Contains(e.Get("message").String(), "operator.admin") {
		t.Errorf("writer: %s", e.Raw)
	}
}
