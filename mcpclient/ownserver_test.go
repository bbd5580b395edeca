package mcpclient_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/mcpclient"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// openclawBin builds this module's binary once for the tests.
func openclawBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..")
		dir, err := os.MkdirTemp("", "mcpclient-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "openclaw")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/openclaw")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/openclaw: %v\n%s", buildErr, binPath)
	}
	return binPath
}

// Our own `openclaw mcp serve` as a saved stdio server: its tools are
// projected under the server's name and a call reads a real file.
func TestOwnMCPServeOverStdio(t *testing.T) {
	bin := openclawBin(t)
	home := t.TempDir()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hello from our own server"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := resolve(t, "oc", map[string]any{
		"command": bin, "args": []any{"mcp", "serve", "--toolsets", "fs", "--workspace", ws},
		"env": map[string]any{"HOME": home, "OPENCLAW_STATE_DIR": filepath.Join(home, ".openclaw")},
	})
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "oc ready", func() bool { return len(m.Tools()) > 0 })
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "oc__read") {
		t.Fatalf("tools = %v", names)
	}
	if got := callText(t, m, "oc", "read", `{"path":"hello.txt"}`); !strings.Contains(got, "hello from our own server") {
		t.Errorf("read = %q", got)
	}
}

// Our gateway's streamable HTTP endpoint (POST /mcp) as a saved HTTP
// server: the definition's Authorization header authenticates it, and
// without it the probe fails with a diagnostic.
func TestOwnGatewayOverStreamableHTTP(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gatewaytest.Start(t, dir, "own-gw-token", 0)
	url := strings.Replace(g.URL, "ws://", "http://", 1) + "/mcp"
	good := resolve(t, "gw", map[string]any{"url": url, "transport": "streamable-http",
		"headers": map[string]any{"Authorization": "Bearer own-gw-token"}})
	res := mcpclient.Probe(context.Background(), []mcpclient.Server{good}, mcpclient.Options{})
	if len(res.Diagnostics) > 0 || res.Servers["gw"].Tools == 0 {
		t.Fatalf("probe with the token: %+v", res)
	}
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{good})
	waitFor(t, "gw ready", func() bool { return len(m.Tools()) > 0 })
	out, err := m.Call(context.Background(), "gw", "sessions_list", json.RawMessage(`{}`))
	if err != nil || out.IsError {
		t.Fatalf("sessions_list over HTTP: %v %+v", err, out)
	}
	bad := resolve(t, "nogw", map[string]any{"url": url, "transport": "streamable-http"})
	res = mcpclient.Probe(context.Background(), []mcpclient.Server{bad}, mcpclient.Options{})
	if len(res.Diagnostics) != 1 {
		t.Fatalf("probe without the token connected: %+v", res)
	}
}
