package agentrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/porttest"
	"github.com/openclaw-go/openclaw/protocol"
)

// TestMain doubles as the real CLI: a test runs `openclaw serve` as a
// separate process (one it can kill -9) by re-executing this binary with
// OPENCLAW_TEST_CLI=1.
func TestMain(m *testing.M) {
	if os.Getenv("OPENCLAW_TEST_CLI") == "1" {
		os.Exit(commands.Main(append([]string{"openclaw"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveProc runs `openclaw serve` (this binary) on state until /readyz
// answers and returns a kill -9 that waits for its end, and its URL.
// Only the goroutine started here calls Wait: a second Wait on the same
// command can block forever (one CI run hung here).
func serveProc(t *testing.T, state string) (kill func(), url string) {
	t.Helper()
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuf{}
	cmd := exec.Command(os.Args[0], "serve", "--port", strconv.Itoa(port), "--auth", "token", "--token", token)
	cmd.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state)
	cmd.Stdout, cmd.Stderr = logs, logs
	// A descendant that outlives the killed gateway can hold the output
	// pipe open; Wait then gives up on the copy instead of hanging the
	// test binary (one CI run of two at once hung here 6 minutes).
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	base := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := http.Get("http://" + base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not ready: %s", logs.String())
		}
		select {
		case <-exited:
			t.Fatalf("gateway exited: %s", logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return func() { _ = cmd.Process.Kill(); <-exited }, "ws://" + base
}

// A gateway killed with SIGKILL in the middle of a turn (the model call
// hangs) leaves the session "running" in the database; the next gateway
// on the same state marks it interrupted at start: sessions.list shows no
// active run, and sessions.delete (which refuses a session with a run in
// progress) deletes it. Before, the session stayed running forever:
// chat.abort answered aborted:false and delete said "abort it first".
func TestKilledGatewayLeavesNoRunningSession(t *testing.T) {
	hung := make(chan struct{})
	defer close(hung)
	m := &scripted{seen: make(chan gjson.Result, 4), script: func(gjson.Result) reply { return reply{text: "never"} },
		hold: func(gjson.Result) chan struct{} { return hung }}
	model := httptest.NewServer(m)
	defer model.Close()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	ws := filepath.Join(dir, "workspace")
	for _, d := range []string{state, ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _ := json.Marshal(map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": model.URL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1"}}}}},
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1", "workspace": ws}},
	})
	if err := os.WriteFile(filepath.Join(state, "openclaw.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	const key = "agent:main:work"
	connect := func(url string) *client.Conn {
		c, err := client.Dial(context.Background(), client.Options{URL: url, Token: token,
			Scopes: []string{protocol.ScopeRead, protocol.ScopeWrite, protocol.ScopeAdmin}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	row := func(c *client.Conn) gjson.Result {
		t.Helper()
		l, err := c.Call(ctx, "sessions.list", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		return gjson.GetBytes(l, `sessions.#(key=="`+key+`")`)
	}

	killFirst, url := serveProc(t, state)
	c := connect(url)
	if _, err := c.Call(ctx, "chat.send", map[string]any{"sessionKey": key, "message": "hello", "idempotencyKey": "r1"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.seen: // the turn is in its model call, which hangs
	case <-ctx.Done():
		t.Fatal("the model was never called")
	}
	if r := row(c); r.Get("status").String() != "running" || !r.Get("hasActiveRun").Bool() {
		t.Fatalf("before the kill: %s", r.Raw)
	}
	killFirst() // SIGKILL, then its end

	_, url = serveProc(t, state)
	c = connect(url)
	r := row(c)
	if r.Get("status").String() != "interrupted" || r.Get("hasActiveRun").Bool() {
		t.Fatalf("after the restart: %s", r.Raw)
	}
	a, err := c.Call(ctx, "chat.abort", map[string]any{"sessionKey": key})
	if err != nil || gjson.GetBytes(a, "aborted").Bool() {
		t.Fatalf("chat.abort: %s %v", a, err)
	}
	d, err := c.Call(ctx, "sessions.delete", map[string]any{"key": key})
	if err != nil || !gjson.GetBytes(d, "deleted").Bool() {
		t.Fatalf("sessions.delete: %s %v", d, err)
	}
}
