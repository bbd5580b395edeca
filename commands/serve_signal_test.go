package commands

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

// startGateway runs `openclaw serve` as a real process on a free port.
func startGateway(t *testing.T) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "serve", "--port", strconv.Itoa(port), "--auth", "token", "--token", "sig")
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, "state"))
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + base + "/readyz")
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not ready: %s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd, "ws://" + base, &logs
}

// SIGTERM: every client gets a shutdown event, then close 1012, and the
// process exits 0. SIGUSR1: an in-place reload keeps connections.
func TestServeSignals(t *testing.T) {
	cmd, url, logs := startGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var events []string
	conn, err := client.Dial(ctx, client.Options{URL: url, Token: "sig", Scopes: []string{protocol.ScopeAdmin},
		OnEvent: func(ev protocol.Event) { mu.Lock(); events = append(events, ev.Event); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := conn.Call(ctx, "health", nil); err != nil {
		t.Fatalf("connection did not survive SIGUSR1: %v\n%s", err, logs.String())
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatal("connection not closed after SIGTERM")
	}
	var ce *client.CloseError
	if !errors.As(conn.Err(), &ce) || ce.Code != protocol.CloseServiceRestart {
		t.Errorf("close: got %v, want code 1012", conn.Err())
	}
	// Events reach OnEvent on their own goroutine: give it a moment.
	sawShutdown := false
	for i := 0; i < 100 && !sawShutdown; i++ {
		mu.Lock()
		for _, e := range events {
			sawShutdown = sawShutdown || e == "shutdown"
		}
		mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	if !sawShutdown {
		t.Errorf("no shutdown event before close; events: %v", events)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("gateway exit: %v\n%s", err, logs.String())
	}
}
