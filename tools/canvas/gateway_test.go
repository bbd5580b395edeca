package canvas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/porttest"
)

// TestMain doubles as the real CLI: a test runs `openclaw` (a gateway, a
// command) as a separate process by re-executing this binary with
// OPENCLAW_TEST_CLI=1. The binary links this family, so its gateway serves
// the canvas host and the canvas tool.
func TestMain(m *testing.M) {
	if os.Getenv("OPENCLAW_TEST_CLI") == "1" {
		os.Exit(commands.Main(append([]string{"openclaw"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const testToken = "canvas-test-token"

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// gw is one `openclaw serve` process on a free loopback port.
type gw struct {
	t     *testing.T
	state string
	base  string // http://127.0.0.1:PORT
	logs  *syncBuf
	env   []string
}

// startGateway runs a gateway with config (JSON, may be "") and extra
// environment, its auth a token (testToken).
func startGateway(t *testing.T, config string, env ...string) *gw {
	t.Helper()
	return startGatewayAuth(t, []string{"--auth", "token", "--token", testToken}, config, env...)
}

// startGatewayAuth is startGateway with other auth flags.
func startGatewayAuth(t *testing.T, auth []string, config string, env ...string) *gw {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(state, "openclaw.json"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	port := porttest.Free(t)
	g := &gw{t: t, state: state, base: "http://127.0.0.1:" + strconv.Itoa(port), logs: &syncBuf{}}
	g.env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+state, "HOME="+filepath.Dir(state), "CI=")
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--port", strconv.Itoa(port)}, auth...)...)
	cmd.Env = append(append([]string{}, g.env...), env...)
	cmd.Stderr, cmd.Stdout = g.logs, g.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := http.Get(g.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return g
			}
		}
		select {
		case <-exited:
			t.Fatalf("gateway exited:\n%s", g.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not ready:\n%s", g.logs.String())
		}
	}
}

func (g *gw) get(path, token string) (int, http.Header, string) {
	g.t.Helper()
	return g.getVia(path, token, "")
}

// getVia is get as a reverse proxy on this machine would send it
// (forwardedFor: X-Forwarded-For), or directly when "".
func (g *gw) getVia(path, token, forwardedFor string) (int, http.Header, string) {
	g.t.Helper()
	req, _ := http.NewRequest("GET", g.base+path, nil)
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// cli runs one openclaw command against the gateway (named by the
// environment, so --url stays free for a tool's url).
func (g *gw) cli(stdin string, args ...string) (string, string, int) {
	g.t.Helper()
	return g.runEnv(stdin, []string{"OPENCLAW_GATEWAY_URL=ws" + strings.TrimPrefix(g.base, "http"), "OPENCLAW_GATEWAY_TOKEN=" + testToken}, args...)
}

// run runs one openclaw command in the gateway's state dir.
func (g *gw) run(stdin string, args ...string) (string, string, int) {
	g.t.Helper()
	return g.runEnv(stdin, nil, args...)
}

func (g *gw) runEnv(stdin string, env []string, args ...string) (string, string, int) {
	g.t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append([]string{}, g.env...), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		g.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// On a loopback bind the canvas host answers this machine's clients
// without credentials, as the original's does (a node host's Chromium has
// none); a request relayed by a proxy needs the gateway's auth.
func TestGatewayServesCanvasOpenOnLoopbackBehindAuthOtherwise(t *testing.T) {
	g := startGateway(t, "")
	if code, _, body := g.get("/__openclaw__/canvas/", ""); code != 200 || !strings.Contains(body, "OpenClaw Canvas") {
		t.Fatalf("no token on a loopback bind: %d", code)
	}
	if code, _, _ := g.getVia("/__openclaw__/canvas/", "", "203.0.113.9"); code != 401 {
		t.Fatalf("no token through a proxy: %d", code)
	}
	if code, _, _ := g.getVia("/__openclaw__/canvas/", "wrong", "203.0.113.9"); code != 401 {
		t.Fatalf("wrong token through a proxy: %d", code)
	}
	if code, _, _ := g.getVia("/__openclaw__/canvas/", testToken, "203.0.113.9"); code != 200 {
		t.Fatalf("token through a proxy: %d", code)
	}
	code, h, body := g.get("/__openclaw__/canvas/", testToken)
	if code != 200 || h.Get("Cache-Control") != "no-store" || !strings.Contains(body, "OpenClaw Canvas") || !strings.Contains(body, "const LIVE_RELOAD = true;") {
		t.Fatalf("canvas: %d %v\n%s", code, h, body)
	}
	if _, err := os.Stat(filepath.Join(g.state, "canvas", "index.html")); err != nil {
		t.Fatalf("the default root is <state>/canvas: %v", err)
	}
	if code, _, body := g.get("/__openclaw__/a2ui/", testToken); code != 200 || !strings.Contains(body, "a2ui.bundle.js") {
		t.Fatalf("a2ui: %d", code)
	}
	if code, _, body := g.get("/__openclaw__/ws", testToken); code != 426 || body != "upgrade required" {
		t.Fatalf("ws plain: %d %q", code, body)
	}
	ws := "ws" + strings.TrimPrefix(g.base, "http") + WSPath
	if _, resp, err := websocket.DefaultDialer.Dial(ws, http.Header{"X-Forwarded-For": {"203.0.113.9"}}); err == nil || resp.StatusCode != 401 {
		t.Fatalf("ws without token through a proxy: %v %v", err, resp)
	}
	c, _, err := websocket.DefaultDialer.Dial(ws, http.Header{"Authorization": {"Bearer " + testToken}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The socket is registered once the upgrade answered; give the edit a
	// moment of its own by writing until a reload arrives.
	done := make(chan string, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, msg, err := c.ReadMessage()
		done <- fmt.Sprint(string(msg), err)
	}()
	for i := 0; ; i++ {
		write(t, filepath.Join(g.state, "canvas", "index.html"), fmt.Sprintf("<p>edit %d</p>", i))
		select {
		case got := <-done:
			if got != "reload<nil>" {
				t.Fatalf("live reload: %s", got)
			}
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func TestCanvasHostSwitches(t *testing.T) {
	t.Run("OPENCLAW_SKIP_CANVAS_HOST", func(t *testing.T) {
		g := startGateway(t, "", "OPENCLAW_SKIP_CANVAS_HOST=1")
		for _, p := range []string{"/__openclaw__/canvas/", "/__openclaw__/a2ui/", "/__openclaw__/ws"} {
			if code, _, _ := g.get(p, testToken); code != 404 {
				t.Errorf("%s: %d", p, code)
			}
		}
		if _, err := os.Stat(filepath.Join(g.state, "canvas")); err == nil {
			t.Error("the root was created although the host is off")
		}
	})
	t.Run("enabled false", func(t *testing.T) {
		g := startGateway(t, `{"canvasHost":{"enabled":false}}`)
		if code, _, _ := g.get("/__openclaw__/canvas/", testToken); code != 404 {
			t.Errorf("canvas: %d", code)
		}
	})
	t.Run("root and liveReload", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "mine")
		write(t, filepath.Join(root, "index.html"), "<body>my page</body>")
		g := startGateway(t, `{"canvasHost":{"root":`+strconv.Quote(root)+`,"liveReload":false}}`)
		code, _, body := g.get("/__openclaw__/canvas/", testToken)
		if code != 200 || !strings.HasPrefix(body, "<body>my page\n<script>") || !strings.Contains(body, "const LIVE_RELOAD = false;") {
			t.Fatalf("%d %s", code, body)
		}
		if code, _, _ := g.get("/__openclaw__/ws", testToken); code != 404 {
			t.Errorf("ws with live reload off: %d", code)
		}
		// The keys are in the config schema: no warning, and a wrong type is an error.
		out, errs, code := g.run("", "config", "validate", "--json")
		if code != 0 || !strings.Contains(out, `"valid":true,"warnings":[]`) {
			t.Fatalf("config validate: %d %s %s", code, out, errs)
		}
		out, _, code = g.run("", "config", "set", "canvasHost.liveReload", `"yes"`)
		if code != 2 || !strings.Contains(out, "canvasHost.liveReload") {
			t.Fatalf("config set of a string: %d %s", code, out)
		}
	})
}

// A node host's Chromium reaches the host through the gateway's auth by
// sending the token as an extra header; the live-reload socket of the page
// gets it too.
func TestChromiumThroughGatewayAuth(t *testing.T) {
	g := startGateway(t, "")
	b := browser(t)
	p, err := b.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	p = p.Timeout(60 * time.Second)
	if _, err := p.SetExtraHeaders([]string{"Authorization", "Bearer " + testToken}); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(g.base + CanvasPath); err != nil {
		t.Fatal(err)
	}
	waitJS(t, p, `() => globalThis.OpenClaw && globalThis.OpenClaw.liveReload === "connected"`)
	if err := p.Navigate(g.base + A2UIPath); err != nil {
		t.Fatal(err)
	}
	waitJS(t, p, `() => typeof globalThis.openclawA2UI?.applyMessages === "function"`)
}

// The push is checked on the gateway before any node is asked: the CLI
// shows the original's messages and exits 2.
func TestCLIPushValidation(t *testing.T) {
	g := startGateway(t, "")
	dir := t.TempDir()
	v09 := filepath.Join(dir, "v09.jsonl")
	write(t, v09, `{"createSurface":{"surfaceId":"main","catalogId":"c"}}`+"\n")
	bad := filepath.Join(dir, "bad.jsonl")
	write(t, bad, "{\"surfaceUpdate\":{}}\n\n[1]\n")
	push := []string{"nodes", "canvas", "a2ui", "push", "--node", "n1"}
	for _, c := range []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"v0.9 file", "", []string{"--jsonl", v09}, 2, "Detected A2UI v0.9 JSONL (createSurface). OpenClaw currently supports v0.8 only."},
		{"bad lines", "", []string{"--jsonl", bad}, 2, "Invalid A2UI JSONL: - line 1: surfaceUpdate.surfaceId must be a non-empty string - line 3: expected JSON object"},
		{"stdin with -", "[]", []string{"--jsonl", "-"}, 2, "Invalid A2UI JSONL: - line 1: expected JSON object"},
		{"piped stdin", "\n\n", nil, 2, "jsonl or jsonlPath required"},
		{"text and jsonl", "", []string{"--text", "hi", "--jsonl", v09}, 2, "provide exactly one of --jsonl or --text"},
		{"missing file", "", []string{"--jsonl", filepath.Join(dir, "nope.jsonl")}, 2, "--jsonl " + filepath.Join(dir, "nope.jsonl") + ": open"},
		{"path outside the roots", "", []string{"--jsonl-path", v09}, 3, "jsonlPath outside allowed roots"},
	} {
		out, errs, code := g.cli(c.stdin, append(append([]string{}, push...), c.args...)...)
		if code != c.code || !strings.Contains(errs, c.stderr) {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s\nwant %d %q", c.name, code, out, errs, c.code, c.stderr)
		}
	}
	// --json: the error's shape, with the issues and a valid example.
	out, _, code := g.cli("", append(push, "--jsonl", bad, "--json")...)
	var res struct {
		OK    bool `json:"ok"`
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Details struct {
				Issues  []string `json:"issues"`
				Example string   `json:"example"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 2 || res.OK || len(res.Error.Details.Issues) != 2 ||
		!strings.Contains(res.Error.Details.Example, `"beginRendering"`) || !strings.HasPrefix(res.Error.Message, "Invalid A2UI JSONL:\n- line 1: ") {
		t.Fatalf("--json: %d %v %s", code, err, out)
	}
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"nodes", "canvas", "eval", "--node", "n1"}, "javaScript required"},
		{[]string{"nodes", "canvas", "navigate", "--node", "n1"}, "url required"},
		{[]string{"nodes", "canvas", "snapshot", "--node", "n1", "--format", "gif"}, "outputFormat"},
	} {
		if _, errs, code := g.cli("", c.args...); code != 2 || !strings.Contains(errs, c.stderr) {
			t.Errorf("%v: exit %d %s", c.args, code, errs)
		}
	}
}
