package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

// gatewayProc is a real `openclaw serve` process on a free port.
type gatewayProc struct {
	cmd    *exec.Cmd
	url    string
	state  string // OPENCLAW_STATE_DIR (the config is state/openclaw.json)
	logs   *syncBuffer
	exited chan struct{}
	err    error
}

// syncBuffer is a bytes.Buffer the process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startGateway runs `openclaw serve` with token auth ("sig") and an
// optional config file, and waits until /readyz answers.
func startGateway(t *testing.T, configJSON string) *gatewayProc {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	if configJSON != "" {
		if err := os.MkdirAll(state, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(state, "openclaw.json"), []byte(configJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return serveIn(t, state)
}

// wait returns the exit code once the process is gone.
func (g *gatewayProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-g.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("gateway did not exit\n%s", g.logs.String())
	}
	var ee *exec.ExitError
	switch {
	case g.err == nil:
		return 0
	case errors.As(g.err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("gateway killed by %v (no graceful stop)\n%s", ws.Signal(), g.logs.String())
		}
		return ee.ExitCode()
	}
	t.Fatalf("gateway wait: %v", g.err)
	return -1
}

// eventConn is an admin client whose events arrive on a channel.
func eventConn(t *testing.T, ctx context.Context, url string) (*client.Conn, chan protocol.Event) {
	t.Helper()
	events := make(chan protocol.Event, 256)
	conn, err := client.Dial(ctx, client.Options{URL: url, Token: "sig", Scopes: []string{protocol.ScopeAdmin},
		OnEvent: func(ev protocol.Event) {
			select {
			case events <- ev:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, events
}

// waitEvent returns the first event named name (others are skipped).
func waitEvent(t *testing.T, ctx context.Context, events chan protocol.Event, name string) protocol.Event {
	t.Helper()
	for {
		select {
		case ev := <-events:
			if ev.Event == name {
				return ev
			}
		case <-ctx.Done():
			t.Fatalf("no %s event", name)
		}
	}
}

// rawConn is a bare WebSocket client, so the test controls exactly which
// request frames were written before a signal.
type rawConn struct {
	ws *websocket.Conn
}

func dialRaw(t *testing.T, url string) *rawConn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, _, err := ws.ReadMessage(); err != nil { // connect.challenge
		t.Fatal(err)
	}
	c := &rawConn{ws: ws}
	c.send(t, "connect", "c", map[string]any{
		"minProtocol": 4, "maxProtocol": 4, "role": "operator", "scopes": []string{"operator.admin"}, "caps": []string{},
		"client": map[string]any{"id": "cli", "version": "test", "platform": "linux", "mode": "cli"},
		"auth":   map[string]any{"token": "sig"},
	})
	var hello struct {
		ID string
		OK bool
	}
	if err := ws.ReadJSON(&hello); err != nil || !hello.OK {
		t.Fatalf("connect: %v %+v", err, hello)
	}
	return c
}

func (c *rawConn) send(t *testing.T, method, id string, params any) {
	t.Helper()
	if err := c.ws.WriteJSON(map[string]any{"type": "req", "id": id, "method": method, "params": params}); err != nil {
		t.Fatal(err)
	}
}

// stopsGracefully sends sig to a gateway with requests in flight and checks
// the SIGTERM contract: every request sent before the signal is answered,
// a shutdown event, close 1012, exit 0.
func stopsGracefully(t *testing.T, sig syscall.Signal) {
	g := startGateway(t, "")
	c := dialRaw(t, g.url)
	// 100 requests, then a marker: the gateway reads frames in order, so
	// once the marker is answered it holds every one of them; the ones
	// still running are in flight when the signal lands.
	const n = 100
	for i := 0; i < n; i++ {
		c.send(t, "status", strconv.Itoa(i), nil)
	}
	c.send(t, "health", "marker", nil)
	answered := map[string]bool{}
	signalled, sawShutdown := false, false
	for {
		var f struct {
			Type, ID, Event string
		}
		if err := c.ws.ReadJSON(&f); err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != protocol.CloseServiceRestart {
				t.Errorf("socket ended with %v, want close 1012\n%s", err, g.logs.String())
			}
			break
		}
		switch {
		case f.Type == "res" && f.ID == "marker":
			if err := g.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			signalled = true
		case f.Type == "res":
			answered[f.ID] = true
		case f.Type == "event" && f.Event == protocol.EventShutdown:
			sawShutdown = true
		}
	}
	if !signalled {
		t.Fatal("marker never answered")
	}
	if len(answered) != n {
		t.Errorf("%d of %d requests answered before the close", len(answered), n)
	}
	if !sawShutdown {
		t.Error("no shutdown event before the close")
	}
	if code := g.wait(t); code != 0 {
		t.Errorf("exit code %d after a clean drain, want 0\n%s", code, g.logs.String())
	}
}

// SIGTERM: drain, shutdown event, close 1012, exit 0.
func TestServeSIGTERM(t *testing.T) { stopsGracefully(t, syscall.SIGTERM) }

// Issue 6 item 7: SIGHUP (terminal closed, SSH dropped) stops the gateway
// the same graceful way instead of killing it.
func TestServeSIGHUP(t *testing.T) { stopsGracefully(t, syscall.SIGHUP) }

// SIGUSR1 really reloads: with file watching off (gateway.reload.mode
// "off", as in the original) only the signal can bring the edited file
// into force, and config.changed carries the new file's hash.
func TestServeSIGUSR1Reloads(t *testing.T) {
	g := startGateway(t, `{"gateway":{"reload":{"mode":"off"}}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, events := eventConn(t, ctx, g.url)

	edited := []byte(`{"gateway":{"reload":{"mode":"off"}},"tools":{"profile":"coding"}}`)
	if err := os.WriteFile(filepath.Join(g.state, "openclaw.json"), edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := g.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	var ev protocol.Event
	func() {
		for {
			select {
			case ev = <-events:
				if ev.Event == protocol.EventConfigChanged {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no config.changed after SIGUSR1; gateway log:\n%s", g.logs.String())
			}
		}
	}()
	var p struct{ Hash string }
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		t.Fatal(err)
	}
	if want := config.HashRaw(edited); p.Hash != want {
		t.Errorf("config.changed hash %s, want the edited file's %s", p.Hash, want)
	}
	// The same connection survived the in-place restart.
	if _, err := conn.Call(ctx, "health", nil); err != nil {
		t.Fatalf("connection did not survive SIGUSR1: %v\n%s", err, g.logs.String())
	}
	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := g.wait(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// Issue 8 item 12: serve takes no positional arguments: exit 2.
func TestServeExtraArg(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "serve", "extra-arg")
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("serve extra-arg started a gateway")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit: %v, want 2\n%s", err, stderr.String())
	}
	if !bytes.Contains(stderr.Bytes(), []byte("extra-arg")) {
		t.Errorf("stderr does not name the argument: %s", stderr.String())
	}
}
