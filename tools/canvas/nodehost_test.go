package canvas

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	// The node host drives its canvas page with the browser family's
	// actions (linked into this test binary only).
	"github.com/openclaw-go/openclaw/porttest"
	_ "github.com/openclaw-go/openclaw/tools/browser"
)

// The whole chain in real processes: `openclaw serve` (the canvas host and
// node.invoke), `openclaw node run` (our node host, its canvas a headless
// Chromium page) and `openclaw nodes canvas …` from the CLI. The node
// shows the gateway's canvas host, renders an A2UI push in the gateway's
// renderer, and its snapshot is a real PNG of it.
func TestNodeHostCanvasEndToEnd(t *testing.T) {
	exe := chromium(t)
	// Token auth (the default): the node host's Chromium sends no
	// credentials; a loopback bind serves the canvas host to this machine
	// without them, as the original does (tools.OpenOnLoopback).
	g := startGateway(t, "")
	port := strings.TrimPrefix(g.base, "http://127.0.0.1:")

	// The node host: its own state dir and config (the canvas browser).
	nodeState := filepath.Join(t.TempDir(), "node")
	if err := os.MkdirAll(nodeState, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"browser": map[string]any{
		"executablePath": exe, "headless": true, "noSandbox": os.Geteuid() == 0,
		"profiles": map[string]any{"openclaw-canvas": map[string]any{"cdpPort": porttest.Free(t)}},
	}})
	if err := os.WriteFile(filepath.Join(nodeState, "openclaw.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	nodeLogs := &syncBuf{}
	node := exec.Command(os.Args[0], "node", "run", "--host", "127.0.0.1", "--port", port, "--display-name", "canvas-node")
	node.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+nodeState, "HOME="+filepath.Dir(nodeState),
		"OPENCLAW_GATEWAY_TOKEN="+testToken, "CI=")
	node.Stdout, node.Stderr = nodeLogs, nodeLogs
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = node.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = node.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = node.Process.Kill()
			<-exited
		}
	})
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\n--- node host:\n%s\n--- gateway:\n%s", append(args, nodeLogs.String(), g.logs.String())...)
	}

	// Its command surface waits in `nodes pending`; approve it.
	var rid string
	for deadline := time.Now().Add(60 * time.Second); rid == ""; {
		out, _, _ := g.cli("", "nodes", "pending", "--json")
		for _, p := range gjson.Get(out, "pending").Array() {
			if p.Get("displayName").Str == "canvas-node" {
				rid = p.Get("requestId").Str
			}
		}
		if rid != "" {
			break
		}
		select {
		case <-exited:
			fail("node host exited")
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			fail("the node host's surface never showed in nodes pending")
		}
	}
	if out, errs, code := g.cli("", "nodes", "approve", rid, "--json"); code != 0 {
		fail("nodes approve: %d %s %s", code, out, errs)
	}
	canvas := func(args ...string) string {
		t.Helper()
		out, errs, code := g.cli("", append(append([]string{"nodes", "canvas"}, args...), "--node", "canvas-node", "--json")...)
		if code != 0 {
			fail("nodes canvas %v: exit %d\n%s%s", args, code, out, errs)
		}
		return out
	}
	evalText := func(js string) string {
		t.Helper()
		return gjson.Get(canvas("eval", "--js", js), "details.result").Str
	}

	canvas("present")
	if got := evalText("location.href"); got != g.base+CanvasPath {
		fail("present showed %q, want the canvas host %s", got, g.base+CanvasPath)
	}
	if got := evalText("document.title + ' / ' + typeof openclawSendUserAction"); got != "OpenClaw Canvas / function" {
		fail("the canvas page: %q", got)
	}

	out := canvas("a2ui", "push", "--text", "Hello from the gateway")
	if gjson.Get(out, "messages").Int() != 2 || gjson.Get(out, "version").Str != "v0.8" {
		fail("push: %s", out)
	}
	if got := evalText("location.pathname + ' ' + JSON.stringify(openclawA2UI.getSurfaces()) + ' ' + document.querySelector('.a2ui-text').textContent"); got != `/__openclaw__/a2ui/ ["main"] Hello from the gateway` {
		fail("after push: %q", got)
	}
	// A second push updates the page in place (no reload wiped the first surface).
	jsonl := filepath.Join(t.TempDir(), "side.jsonl")
	write(t, jsonl, `{"surfaceUpdate":{"surfaceId":"side","components":[{"id":"r","component":{"Text":{"text":{"literalString":"second"},"usageHint":"h2"}}}]}}`+"\n"+
		`{"beginRendering":{"surfaceId":"side","root":"r"}}`+"\n")
	canvas("a2ui", "push", "--jsonl", jsonl)
	if got := evalText("JSON.stringify(openclawA2UI.getSurfaces()) + ' ' + document.querySelector('h2').textContent"); got != `["main","side"] second` {
		fail("second push: %q", got)
	}

	out = canvas("snapshot")
	path := gjson.Get(out, "details.path").Str
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) < 1000 {
		fail("snapshot %s: %v (%d bytes) %s", path, err, len(b), out)
	}

	canvas("a2ui", "reset")
	if got := evalText("JSON.stringify(openclawA2UI.getSurfaces()) + ' ' + document.querySelectorAll('.a2ui-surface').length"); got != "[] 0" {
		fail("after reset: %q", got)
	}
	canvas("navigate", "/__openclaw__/canvas/")
	if got := evalText("location.pathname"); got != CanvasPath {
		fail("navigate: %q", got)
	}
	canvas("hide")
}
