package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/mcpclient"
	"github.com/openclaw-go/openclaw/mcpclient/mcptest"
	"github.com/openclaw-go/openclaw/porttest"
)

func resolve(t *testing.T, name string, raw map[string]any) mcpclient.Server {
	t.Helper()
	s, err := mcpclient.Resolve(name, raw)
	if err != nil {
		t.Fatalf("Resolve(%s): %v", name, err)
	}
	return s
}

// syncBuf is a goroutine-safe stderr sink.
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

// waitFor polls cond until it holds or the deadline passes (a liveness
// bound, not a timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func callText(t *testing.T, m *mcpclient.Manager, server, tool, args string) string {
	t.Helper()
	res, err := m.Call(context.Background(), server, tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("call %s/%s: %v", server, tool, err)
	}
	if res.IsError {
		t.Fatalf("call %s/%s: isError: %s", server, tool, mcpclient.Text(mcpclient.Blocks(res)))
	}
	return mcpclient.Text(mcpclient.Blocks(res))
}

// The reference test server, over stdio: its tools are listed under the
// original's projected names, calls round-trip, and the env given in the
// definition reaches the process while a loader-hijack key does not.
func TestEverythingOverStdio(t *testing.T) {
	bin := mcptest.Everything(t)
	srv := resolve(t, "everything", map[string]any{
		"command": bin, "args": []any{"stdio"},
		"env": map[string]any{"OPENCLAW_MCP_PROBE": "seen-by-server", "NODE_OPTIONS": "--require /nonexistent.js", "LD_PRELOAD": "/x.so"},
	})
	if strings.Join(srv.DroppedEnv, ",") != "LD_PRELOAD,NODE_OPTIONS" {
		t.Fatalf("dropped env = %v, want LD_PRELOAD and NODE_OPTIONS", srv.DroppedEnv)
	}
	stderr := &syncBuf{}
	m := mcpclient.NewManager(mcpclient.Options{Stderr: stderr}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "everything ready", func() bool { return len(m.Tools()) > 0 })
	names := map[string]bool{}
	for _, tl := range m.Tools() {
		names[tl.Name] = true
	}
	for _, want := range []string{"everything__echo", "everything__get-sum", "everything__get-env"} {
		if !names[want] {
			t.Errorf("tool %s not projected; have %v", want, names)
		}
	}
	if got := callText(t, m, "everything", "echo", `{"message":"hello from go"}`); !strings.Contains(got, "hello from go") {
		t.Errorf("echo = %q", got)
	}
	if got := callText(t, m, "everything", "get-sum", `{"a":2,"b":40}`); !strings.Contains(got, "42") {
		t.Errorf("get-sum = %q", got)
	}
	env := callText(t, m, "everything", "get-env", `{}`)
	if !strings.Contains(env, "seen-by-server") {
		t.Errorf("the definition's env did not reach the server: %s", env)
	}
	if strings.Contains(env, "nonexistent.js") || strings.Contains(env, "/x.so") {
		t.Errorf("a refused env key reached the server: %s", env)
	}
	// The server's own argument validation answers as an error result.
	res, err := m.Call(context.Background(), "everything", "get-sum", json.RawMessage(`{"a":"x"}`))
	if err == nil && !res.IsError {
		t.Errorf("get-sum with a string: no error: %s", mcpclient.Text(mcpclient.Blocks(res)))
	}
}

// A server process that dies is restarted (with backoff) and serves again;
// meanwhile its calls fail at once with one line naming the server.
func TestCrashedServerIsRestarted(t *testing.T) {
	bin := mcptest.Everything(t)
	srv := resolve(t, "ev", map[string]any{"command": bin, "args": []any{"stdio"}})
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "ready", func() bool { st := m.Statuses(); return len(st) == 1 && st[0].State == "ready" })
	callText(t, m, "ev", "echo", `{"message":"before"}`)
	pid := m.Statuses()[0].PID
	if pid == 0 {
		t.Fatal("no pid for a stdio server")
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	waitFor(t, "the crash noticed", func() bool { return m.Statuses()[0].State != "ready" || m.Statuses()[0].PID != pid })
	if st := m.Statuses()[0]; st.State != "ready" {
		_, err := m.Call(context.Background(), "ev", "echo", json.RawMessage(`{"message":"x"}`))
		if err == nil || !strings.Contains(err.Error(), `MCP server "ev"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("call while down: %v, want one line naming the server", err)
		}
	}
	waitFor(t, "restarted", func() bool {
		st := m.Statuses()[0]
		return st.State == "ready" && st.PID != pid && st.Restarts >= 1
	})
	if got := callText(t, m, "ev", "echo", `{"message":"after"}`); !strings.Contains(got, "after") {
		t.Errorf("echo after restart = %q", got)
	}
}

// A call the server does not answer within requestTimeoutMs fails with a
// TimeoutError, and the hung server is restarted so later calls work.
func TestHungCallTimesOutAndRestarts(t *testing.T) {
	bin := mcptest.Everything(t)
	srv := resolve(t, "slow", map[string]any{"command": bin, "args": []any{"stdio"}, "requestTimeoutMs": 1500})
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "ready", func() bool { st := m.Statuses(); return len(st) == 1 && st[0].State == "ready" })
	pid := m.Statuses()[0].PID
	_, err := m.Call(context.Background(), "slow", "trigger-long-running-operation", json.RawMessage(`{"duration":600,"steps":2}`))
	var te *mcpclient.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("long call: %v, want a TimeoutError", err)
	}
	waitFor(t, "restart after the timeout", func() bool {
		st := m.Statuses()[0]
		return st.State == "ready" && st.PID != pid
	})
	callText(t, m, "slow", "echo", `{"message":"alive"}`)
}

// Cancelling the caller's ctx ends a call at once with ctx's error.
func TestCallHonoursContext(t *testing.T) {
	bin := mcptest.Everything(t)
	srv := resolve(t, "c", map[string]any{"command": bin, "args": []any{"stdio"}})
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "ready", func() bool { st := m.Statuses(); return len(st) == 1 && st[0].State == "ready" })
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	_, err := m.Call(ctx, "c", "trigger-long-running-operation", json.RawMessage(`{"duration":600,"steps":2}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v, want context.Canceled", err)
	}
}

// The filesystem reference server reads a file in the directory it was
// given, and its toolFilter hides what is excluded.
func TestFilesystemServerWithToolFilter(t *testing.T) {
	bin := mcptest.Filesystem(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("filesystem says hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := resolve(t, "files", map[string]any{
		"command": bin, "args": []any{dir},
		"toolFilter": map[string]any{"include": []any{"read_*", "list_*"}, "exclude": []any{"read_media_file"}},
	})
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "ready", func() bool { return len(m.Tools()) > 0 })
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Name)
		if !strings.HasPrefix(tl.MCP.Name, "read_") && !strings.HasPrefix(tl.MCP.Name, "list_") || tl.MCP.Name == "read_media_file" {
			t.Errorf("tool %s passed the filter", tl.MCP.Name)
		}
	}
	if !strings.Contains(strings.Join(names, ","), "files__read_text_file") {
		t.Fatalf("files__read_text_file missing from %v", names)
	}
	args, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, "note.txt")})
	if got := callText(t, m, "files", "read_text_file", string(args)); !strings.Contains(got, "filesystem says hi") {
		t.Errorf("read_text_file = %q", got)
	}
}

// loopbackPreload makes a Node server that listens on a bare port bind
// 127.0.0.1 only (the tests never open a port beyond loopback).
const loopbackPreload = `const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...a) {
  if (typeof a[0] === 'number' || (typeof a[0] === 'string' && /^\d+$/.test(a[0]))) {
    const cb = a.find((x) => typeof x === 'function');
    return listen.call(this, { port: Number(a[0]), host: '127.0.0.1' }, cb);
  }
  return listen.apply(this, a);
};
`

// startEverythingHTTP runs the reference server's streamable HTTP mode on
// a loopback port and returns its /mcp URL.
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	url, _ := startEverythingHTTPOn(t, porttest.Free(t))
	return url
}

// startEverythingHTTPOn runs it on port; stop kills it.
func startEverythingHTTPOn(t *testing.T, port int) (url string, stop func()) {
	t.Helper()
	bin := mcptest.Everything(t)
	pre := filepath.Join(t.TempDir(), "loopback.cjs")
	if err := os.WriteFile(pre, []byte(loopbackPreload), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "--require", pre, bin, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	out := &syncBuf{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	t.Cleanup(stop)
	waitFor(t, "the HTTP server listening", func() bool { return strings.Contains(out.String(), "listening") })
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", stop
}

// An HTTP server that goes away and comes back (a restart loses its
// sessions) is followed: calls fail with one line meanwhile, then work
// again on a new session.
func TestHTTPServerRestartIsFollowed(t *testing.T) {
	port := porttest.Free(t)
	url, stop := startEverythingHTTPOn(t, port)
	srv := resolve(t, "web", map[string]any{"url": url, "transport": "streamable-http", "requestTimeoutMs": 5000})
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "ready", func() bool { return len(m.Tools()) > 0 })
	callText(t, m, "web", "echo", `{"message":"one"}`)
	stop()
	_, err := m.Call(context.Background(), "web", "echo", json.RawMessage(`{"message":"two"}`))
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("call to a stopped server: %v", err)
	}
	startEverythingHTTPOn(t, port)
	waitFor(t, "calls working again", func() bool {
		res, err := m.Call(context.Background(), "web", "echo", json.RawMessage(`{"message":"three"}`))
		return err == nil && !res.IsError && strings.Contains(mcpclient.Text(mcpclient.Blocks(res)), "three")
	})
}

// The reference server over streamable HTTP, with a header from the
// definition: probe sees it, calls round-trip.
func TestEverythingOverStreamableHTTP(t *testing.T) {
	url := startEverythingHTTP(t)
	srv := resolve(t, "remote", map[string]any{"url": url, "transport": "streamable-http", "headers": map[string]any{"X-Test": "1"}})
	res := mcpclient.Probe(context.Background(), []mcpclient.Server{srv}, mcpclient.Options{})
	if len(res.Diagnostics) > 0 {
		t.Fatalf("probe: %+v", res.Diagnostics)
	}
	if p := res.Servers["remote"]; p.Tools == 0 || !strings.HasPrefix(p.Launch, "streamable-http http://127.0.0.1") {
		t.Fatalf("probe entry = %+v", p)
	}
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "ready", func() bool { return len(m.Tools()) > 0 })
	if got := callText(t, m, "remote", "echo", `{"message":"over http"}`); !strings.Contains(got, "over http") {
		t.Errorf("echo = %q", got)
	}
}

// Probe reports a server that cannot start as a diagnostic, one line,
// without failing the others.
func TestProbeDiagnostics(t *testing.T) {
	bin := mcptest.Everything(t)
	good := resolve(t, "good", map[string]any{"command": bin, "args": []any{"stdio"}})
	bad := resolve(t, "bad", map[string]any{"command": "openclaw-no-such-mcp-server"})
	res := mcpclient.Probe(context.Background(), []mcpclient.Server{good, bad}, mcpclient.Options{})
	if _, ok := res.Servers["good"]; !ok {
		t.Errorf("good server missing: %+v", res)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].ServerName != "bad" || !strings.Contains(res.Diagnostics[0].Message, "not found") {
		t.Errorf("diagnostics = %+v", res.Diagnostics)
	}
}

// A stdio server inherits only HOME, LOGNAME, PATH, SHELL, TERM and USER
// from the process that starts it (the gateway), plus its own env: the
// gateway's secrets stay out of third-party servers.
func TestStdioServerInheritsOnlyTheDefaultEnvironment(t *testing.T) {
	bin := mcptest.Everything(t)
	parent := append(os.Environ(), "OPENCLAW_GATEWAY_TOKEN=gw-secret-token", "OPENAI_API_KEY=sk-parent-secret")
	srv := resolve(t, "envcheck", map[string]any{"command": bin, "args": []any{"stdio"},
		"env": map[string]any{"GITHUB_TOKEN": "given-on-purpose"}})
	m := mcpclient.NewManager(mcpclient.Options{Environ: func() []string { return parent }}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "ready", func() bool { return len(m.Tools()) > 0 })
	env := callText(t, m, "envcheck", "get-env", `{}`)
	if strings.Contains(env, "gw-secret-token") || strings.Contains(env, "sk-parent-secret") {
		t.Fatalf("a parent secret reached the server: %s", env)
	}
	if !strings.Contains(env, "given-on-purpose") || !strings.Contains(env, `"PATH"`) {
		t.Fatalf("the server lacks its own env or PATH: %s", env)
	}
}

// A server that never answers the handshake (a real process that reads
// nothing) fails within connectionTimeoutMs, is ended with its process
// group, and is retried with backoff; the probe reports it in one line.
func TestHandshakeHangIsBounded(t *testing.T) {
	srv := resolve(t, "mute", map[string]any{"command": "sleep", "args": []any{"600"}, "connectionTimeoutMs": 800})
	res := mcpclient.Probe(context.Background(), []mcpclient.Server{srv}, mcpclient.Options{})
	if len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "no MCP handshake within") {
		t.Fatalf("probe: %+v", res.Diagnostics)
	}
	// The probe left no sleep 600 of ours running.
	out, err := exec.Command("pgrep", "-f", "-P", strconv.Itoa(os.Getpid()), "^sleep 600$").Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("pgrep: %v", err)
	}
	if len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("the mute server is still running: %s", out)
	}
	m := mcpclient.NewManager(mcpclient.Options{}, nil)
	defer m.Close()
	m.Sync([]mcpclient.Server{srv})
	waitFor(t, "backoff after the hang", func() bool {
		st := m.Statuses()
		return len(st) == 1 && st[0].State == "backoff" && strings.Contains(st[0].LastError, "no MCP handshake")
	})
	_, err = m.Call(context.Background(), "mute", "anything", json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), `MCP server "mute" is not connected`) {
		t.Fatalf("call to a mute server: %v", err)
	}
}
