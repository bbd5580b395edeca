package nodes_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/nodehost"
	"github.com/openclaw-go/openclaw/policy"
)

// issue 30 item 2: the node's approvals are resolved by the agentId the
// caller sends. An operator.write connection naming an agent nobody
// configured ran `system.run` on a node set to allowlist + on-miss for
// main (the unknown id fell back to the defaults, built-in security full).
// Now the gateway refuses an unknown agent id, and the node host never
// resolves an agent without an entry of its own looser than main (a
// configured gateway agent the node's file does not name).
func TestSystemRunForAnUnknownAgentIsRefused(t *testing.T) {
	g := startGateway(t, t.TempDir(), `{"agents":{"list":[{"id":"main","default":true},{"id":"work"}]}}`, 0)
	admin := operator(t, g)

	nodeState := t.TempDir()
	doc := policy.NewExecApprovals()
	doc.Agent("main").Security, doc.Agent("main").Ask = "allowlist", "on-miss" // what `openclaw approvals set` writes
	if _, err := approvalsfile.Update(context.Background(), approvalsfile.Path(nodeState), func(s *approvalsfile.Snapshot) error {
		s.Doc = doc
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h, err := nodehost.New(nodehost.Options{Host: "127.0.0.1", Port: g.Port, Token: token, StateDir: nodeState, Version: "test",
		DisplayName: "guarded", Workdir: t.TempDir(), Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("node host did not stop")
		}
	})
	nodeID := h.DeviceID()
	waitNode(t, admin, nodeID)
	rid := ""
	for deadline := time.Now().Add(20 * time.Second); rid == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rid = pendingFor(t, admin, nodeID)
	}
	if rid == "" {
		t.Fatal("the node host's surface never went pending")
	}
	call(t, admin, "node.pair.approve", map[string]any{"requestId": rid})

	writer := operator(t, g, "operator.write")
	dir := t.TempDir()
	run := func(key, agent, marker string) (gjson.Result, string) {
		t.Helper()
		params := map[string]any{"command": []string{"touch", filepath.Join(dir, marker)}, "agentId": agent}
		out, err := writer.Call(context.Background(), "node.invoke", map[string]any{"nodeId": nodeID, "command": "system.run",
			"idempotencyKey": key, "params": params})
		if err != nil {
			return gjson.Result{}, err.Error()
		}
		return gjson.ParseBytes(out), ""
	}
	// main: the node's allowlist misses and asks; nothing runs.
	if out, msg := run("main", "main", "main-ran"); !strings.Contains(msg, "approval required") {
		t.Errorf("main: %s %s", out.Raw, msg)
	}
	// An id the gateway does not know: refused at the gateway.
	if out, msg := run("zzz", "zzz", "zzz-ran"); !strings.Contains(msg, `unknown agent id "zzz"`) {
		t.Errorf("unknown agent: %s %s", out.Raw, msg)
	}
	// A configured agent the node's file does not name: no looser than main.
	if out, msg := run("work", "work", "work-ran"); !strings.Contains(msg, "approval required") {
		t.Errorf("work: %s %s", out.Raw, msg)
	}
	for _, m := range []string{"main-ran", "zzz-ran", "work-ran"} {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			t.Errorf("%s: the command ran on the node", m)
		}
	}
}
