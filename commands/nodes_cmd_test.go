package commands

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

// `openclaw nodes …` end to end: a node host (a Go client speaking the node
// role) connects to a real `openclaw serve`; its surface waits in `nodes
// pending`, `nodes approve` grants it, `nodes status --json` shows it
// connected, `nodes describe/invoke/which/rename/remove` reach it by name or
// id prefix, and the human forms print tables.
func TestNodesCommands(t *testing.T) {
	g := startGateway(t, "")
	id, err := client.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	var conn *client.Conn
	dialled := make(chan struct{}) // conn is set before an answer uses it
	answer := func(ev protocol.Event) {
		if ev.Event != "node.invoke.request" {
			return
		}
		req := gjson.ParseBytes(ev.Payload)
		bins := map[string]string{}
		gjson.Parse(req.Get("paramsJSON").String()).Get("bins").ForEach(func(_, b gjson.Result) bool {
			bins[b.String()] = "/opt/bin/" + b.String()
			return true
		})
		pj, _ := json.Marshal(map[string]any{"bins": bins})
		go func() {
			<-dialled
			_, _ = conn.Call(context.Background(), "node.invoke.result", map[string]any{"id": req.Get("id").String(), "nodeId": id.DeviceID,
				"ok": true, "payloadJSON": string(pj)})
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err = client.Dial(ctx, client.Options{URL: g.url, Token: "sig", Identity: id, Role: protocol.RoleNode,
		ClientID: protocol.ClientIDNodeHost, ClientMode: protocol.ModeNode, DisplayName: "build-box", Platform: "linux",
		DeviceFamily: "Linux", Commands: []string{"system.which"}, OnEvent: answer})
	if err != nil {
		t.Fatal(err)
	}
	close(dialled)
	defer conn.Close()

	out, stderr, code := runCLI(t, g, "nodes", "pending", "--json")
	rid := gjson.Get(out, "pending.0.requestId").String()
	if code != 0 || rid == "" || gjson.Get(out, "pending.0.commands.0").String() != "system.which" {
		t.Fatalf("nodes pending: %d %s %s", code, out, stderr)
	}
	if out, stderr, code := runCLI(t, g, "nodes", "approve", rid, "--json"); code != 0 || gjson.Get(out, "node.displayName").String() != "build-box" {
		t.Fatalf("nodes approve: %d %s %s", code, out, stderr)
	}
	out, _, code = runCLI(t, g, "nodes", "status", "--json")
	if code != 0 || !gjson.Get(out, "nodes.0.connected").Bool() || gjson.Get(out, "nodes.0.approvalState").String() != "approved" {
		t.Fatalf("nodes status: %s", out)
	}
	out, _, code = runCLI(t, g, "nodes", "invoke", "--node", "build", "--command", "system.which", "--tool-params", `{"bins":["git"]}`, "--json")
	if code != 0 || gjson.Get(out, "payload.bins.git").String() != "/opt/bin/git" {
		t.Fatalf("nodes invoke: %s", out)
	}
	out, _, code = runCLI(t, g, "nodes", "which", id.DeviceID[:8], "make", "--query", "bins.make", "--raw")
	if code != 0 || strings.TrimSpace(out) != "/opt/bin/make" {
		t.Fatalf("nodes which: %q", out)
	}
	out, _, code = runCLI(t, g, "nodes", "describe", "--node", "build-box", "--json")
	if code != 0 || gjson.Get(out, "nodeId").String() != id.DeviceID {
		t.Fatalf("nodes describe: %s", out)
	}
	if _, stderr, code := runCLI(t, g, "nodes", "describe", "--node", "nosuch"); code != 1 || !strings.Contains(stderr, `unknown node "nosuch" (known: build-box)`) {
		t.Fatalf("unknown node: %d %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, g, "nodes", "invoke", "--node", "build-box", "--command", "system.run"); code != 2 || !strings.Contains(stderr, "nodes run") {
		t.Fatalf("invoke system.run: %d %s", code, stderr)
	}
	if out, _, code := runCLI(t, g, "nodes", "rename", "--node", "build-box", "--name", "ci-box", "--json"); code != 0 || gjson.Get(out, "displayName").String() != "ci-box" {
		t.Fatalf("nodes rename: %s", out)
	}
	if out, _, code := runCLI(t, g, "nodes", "remove", "--node", "ci-box", "--json"); code != 0 || gjson.Get(out, "nodeId").String() != id.DeviceID {
		t.Fatalf("nodes remove: %s", out)
	}
	select { // its node-only device was unpaired: the connection closes
	case <-conn.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the removed node stayed connected")
	}
}
