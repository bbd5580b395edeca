package canvas

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"

	// The gateway's node registry and node.invoke (another family: linked
	// into this test binary only).
	_ "github.com/openclaw-go/openclaw/tools/nodes"
)

var canvasCommands = []string{"canvas.present", "canvas.hide", "canvas.navigate", "canvas.eval", "canvas.snapshot",
	"canvas.a2ui.push", "canvas.a2ui.pushJSONL", "canvas.a2ui.reset"}

// onePixelPNG is a valid 1x1 PNG.
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

// invocation is one node.invoke.request a node received.
type invocation struct {
	Command string
	Params  json.RawMessage
	Timeout int64
	IdemKey string
}

// wireNode is a node on a real WebSocket connection speaking the node
// role's protocol (what a node host does on the wire), answering canvas
// commands with canned payloads and recording what it was asked.
type wireNode struct {
	conn *client.Conn
	id   string
	mu   sync.Mutex
	got  []invocation
}

func (n *wireNode) calls() []invocation {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]invocation(nil), n.got...)
}

func connectNode(t *testing.T, g *gw, name string) *wireNode {
	t.Helper()
	ident, err := client.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	n := &wireNode{id: ident.DeviceID}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var connMu sync.Mutex
	answer := func(req gjson.Result) {
		cmd := req.Get("command").Str
		inv := invocation{Command: cmd, Timeout: req.Get("timeoutMs").Int(), IdemKey: req.Get("idempotencyKey").Str}
		if p := req.Get("paramsJSON"); p.Type == gjson.String {
			inv.Params = json.RawMessage(p.Str)
		}
		n.mu.Lock()
		n.got = append(n.got, inv)
		n.mu.Unlock()
		res := map[string]any{"id": req.Get("id").Str, "nodeId": n.id, "ok": true}
		switch cmd {
		case "canvas.eval":
			js := gjson.GetBytes(inv.Params, "javaScript").Str
			if js == "fail()" {
				res["ok"] = false
				res["error"] = map[string]any{"code": "EVAL_FAILED", "message": "ReferenceError: fail is not defined"}
				break
			}
			b, _ := json.Marshal(map[string]any{"result": "ran " + js})
			res["payloadJSON"] = string(b)
		case "canvas.snapshot":
			b, _ := json.Marshal(map[string]any{"format": gjson.GetBytes(inv.Params, "format").Str, "base64": base64.StdEncoding.EncodeToString(onePixelPNG)})
			res["payloadJSON"] = string(b)
		default:
			res["payloadJSON"] = `{"ok":true}`
		}
		connMu.Lock()
		c := n.conn
		connMu.Unlock()
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		if _, err := c.Call(cctx, "node.invoke.result", res); err != nil {
			t.Errorf("node.invoke.result: %v", err)
		}
	}
	connMu.Lock()
	n.conn, err = client.Dial(ctx, client.Options{URL: "ws" + strings.TrimPrefix(g.base, "http"), Token: testToken, Identity: ident,
		ClientID: "node-host", ClientMode: "node", Role: protocol.RoleNode, DisplayName: name, Platform: "linux",
		Caps: []string{"canvas"}, Commands: canvasCommands,
		OnEvent: func(ev protocol.Event) {
			if ev.Event == "node.invoke.request" {
				go answer(gjson.ParseBytes(ev.Payload))
			}
		}})
	connMu.Unlock()
	if err != nil {
		t.Fatalf("node connect: %v\n%s", err, g.logs.String())
	}
	t.Cleanup(func() { n.conn.Close() })
	if got := n.conn.Hello().CanvasHostURL; got != g.base {
		t.Errorf("hello-ok canvasHostUrl %q, want %q", got, g.base)
	}
	// Approve the node's command surface as an operator would (an admin
	// connection: approving canvas commands needs operator.write too).
	op, err := client.Dial(ctx, client.Options{URL: "ws" + strings.TrimPrefix(g.base, "http"), Token: testToken,
		Scopes: []string{protocol.ScopeAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	// The request is filed once the gateway has seen the node's hello.
	var req string
	var list json.RawMessage
	for req == "" && ctx.Err() == nil {
		if list, err = op.Call(ctx, "node.pair.list", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		for _, p := range gjson.GetBytes(list, "pending").Array() {
			if p.Get("nodeId").Str == n.id {
				req = p.Get("requestId").Str
			}
		}
		if req == "" {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if req == "" {
		t.Fatalf("no pending surface for the node: %s", list)
	}
	if _, err := op.Call(ctx, "node.pair.approve", map[string]any{"requestId": req}); err != nil {
		t.Fatalf("approve: %v", err)
	}
	return n
}

func TestCanvasToolThroughNodeInvoke(t *testing.T) {
	g := startGateway(t, "")
	// No node yet: the default pick has nothing to choose.
	if _, errs, code := g.cli("", "nodes", "canvas", "hide"); code != 2 || !strings.Contains(errs, "node required: no node with the canvas capability") {
		t.Fatalf("no nodes: %d %s", code, errs)
	}
	n := connectNode(t, g, "Canvas Box")

	steps := []struct {
		args    []string
		stdout  string // human output (--json off: not a terminal, so compare JSON fields instead below)
		command string
		params  string
	}{
		{[]string{"present", "--target", "http://example.test/x", "--x", "10", "--width", "640"}, "", "canvas.present",
			`{"placement":{"width":640,"x":10},"url":"http://example.test/x"}`},
		{[]string{"present"}, "", "canvas.present", `{}`},
		{[]string{"hide", "--invoke-timeout", "4000"}, "", "canvas.hide", ``},
		{[]string{"navigate", "http://example.test/a2ui/"}, "", "canvas.navigate", `{"url":"http://example.test/a2ui/"}`},
		{[]string{"navigate", "--url", "https://example.test/page"}, "", "canvas.navigate", `{"url":"https://example.test/page"}`},
		{[]string{"eval", "--js", "document.title"}, "", "canvas.eval", `{"javaScript":"document.title"}`},
		{[]string{"snapshot", "--format", "jpg", "--max-width", "800", "--quality", "80"}, "", "canvas.snapshot",
			`{"format":"jpeg","maxWidth":800,"quality":0.8}`},
		{[]string{"a2ui", "push", "--text", "Hello"}, "", "canvas.a2ui.pushJSONL", ``},
		{[]string{"a2ui", "reset"}, "", "canvas.a2ui.reset", ``},
	}
	for i, s := range steps {
		args := append([]string{"nodes", "canvas"}, s.args...)
		if i%2 == 0 {
			args = append(args, "--node", "canvas-box") // the display name; else the default pick
		}
		out, errs, code := g.cli("", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s\n%s", s.args, code, out, errs, g.logs.String())
		}
		got := n.calls()
		if len(got) != i+1 {
			t.Fatalf("%v: node saw %d calls", s.args, len(got))
		}
		inv := got[i]
		if inv.Command != s.command || (s.params != "" && string(inv.Params) != s.params) || len(inv.IdemKey) < 16 {
			t.Fatalf("%v: node got %s %s (key %q), want %s %s", s.args, inv.Command, inv.Params, inv.IdemKey, s.command, s.params)
		}
		r := gjson.Parse(out)
		switch inv.Command {
		case "canvas.eval":
			if r.Get("content.0.text").Str != "ran document.title" || r.Get("details.result").Str != "ran document.title" {
				t.Fatalf("eval result: %s", out)
			}
		case "canvas.snapshot":
			path := r.Get("details.path").Str
			b, err := os.ReadFile(path)
			if err != nil || string(b) != string(onePixelPNG) || r.Get("content.0.text").Str != "MEDIA:"+path ||
				r.Get("content.1.type").Str != "image" || r.Get("details.format").Str != "jpeg" || r.Get("details.media.mimeType").Str != "image/jpeg" {
				t.Fatalf("snapshot: %v %s", err, out)
			}
		case "canvas.a2ui.pushJSONL":
			if gjson.GetBytes(inv.Params, "jsonl").Str != strings.Join([]string{
				`{"surfaceUpdate":{"surfaceId":"main","components":[{"id":"root","component":{"Column":{"children":{"explicitList":["text"]}}}},{"id":"text","component":{"Text":{"text":{"literalString":"Hello"},"usageHint":"body"}}}]}}`,
				`{"beginRendering":{"surfaceId":"main","root":"root"}}`}, "\n") {
				t.Fatalf("pushed %s", inv.Params)
			}
			if r.Get("version").Str != "v0.8" || r.Get("messages").Int() != 2 || !r.Get("ok").Bool() {
				t.Fatalf("push result: %s", out)
			}
		default:
			if !r.Get("ok").Bool() || r.Get("node").Str != n.id {
				t.Fatalf("%s result: %s", inv.Command, out)
			}
		}
		if inv.Command == "canvas.hide" && inv.Timeout != 4000 {
			t.Fatalf("--invoke-timeout: node told %d ms", inv.Timeout)
		}
	}
	// A node-side failure comes back as the command's error.
	if _, errs, code := g.cli("", "nodes", "canvas", "eval", "fail()"); code == 0 || !strings.Contains(errs, "ReferenceError: fail is not defined") {
		t.Fatalf("node error: %d %s", code, errs)
	}
	// An unknown node names the known ones.
	if _, errs, code := g.cli("", "nodes", "canvas", "hide", "--node", "nope"); code == 0 || !strings.Contains(errs, `unknown node "nope" (known: Canvas Box)`) {
		t.Fatalf("unknown node: %d %s", code, errs)
	}
	// The human lines, as the original CLI prints them.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a2ui", "push", "--text", "Hi"}, "canvas a2ui push ok (v0.8, 2 messages)\n"},
		{[]string{"a2ui", "reset"}, "canvas a2ui reset ok\n"},
		{[]string{"eval", "1+1"}, "ran 1+1\n"},
		{[]string{"present"}, "canvas present ok\n"},
	} {
		out, errs := ttyRun(t, g, append([]string{"nodes", "canvas"}, c.args...)...)
		if out != c.want {
			t.Errorf("%v on a terminal: %q (stderr %q), want %q", c.args, out, errs, c.want)
		}
	}
	out, _ := ttyRun(t, g, "nodes", "canvas", "snapshot")
	if !strings.HasPrefix(out, "MEDIA:") || !strings.HasSuffix(out, ".png\n") {
		t.Errorf("snapshot on a terminal: %q", out)
	}
}

// ttyRun runs one command against the gateway with stdin and stdout on a
// terminal (human output), stderr apart.
func ttyRun(t *testing.T, g *gw, args ...string) (string, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append([]string{}, g.env...), "NO_COLOR=1", "OPENCLAW_GATEWAY_URL=ws"+strings.TrimPrefix(g.base, "http"), "OPENCLAW_GATEWAY_TOKEN="+testToken)
	var errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, ptmx); close(done) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %v %s", args, err, errb.String())
	}
	<-done // the pty reports EIO once the last writer has gone
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), errb.String()
}
