package gateway

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// stateDirEnv makes this test binary a gateway process on that state dir
// (TestGatewayProcess), so a test can kill a real gateway.
const stateDirEnv = "OPENCLAW_TEST_GATEWAY_STATE"

// TestGatewayProcess is not a test on its own: run by TestJobsSurviveKill
// with stateDirEnv set, it serves on 127.0.0.1:0, writes its address to
// <dir>/addr and serves until killed.
func TestGatewayProcess(t *testing.T) {
	dir := os.Getenv(stateDirEnv)
	if dir == "" {
		return
	}
	s, err := New(Options{Token: testToken, Version: "test", ConfigPollInterval: -1,
		Paths:  config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")},
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "addr.tmp"), []byte(s.Addr()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "addr.tmp"), filepath.Join(dir, "addr")); err != nil {
		t.Fatal(err)
	}
	_ = s.Serve(context.Background())
}

// Job records outlive the gateway: a gateway process is killed (SIGKILL,
// nothing runs on the way out) with one job running and one cancelled; the
// next gateway on the same state dir lists both, the running one marked
// interrupted, the cancelled one as it ended.
func TestJobsSurviveKill(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestGatewayProcess$")
	cmd.Env = append(os.Environ(), stateDirEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var addr []byte
	waitFor(t, 30*time.Second, func() bool {
		addr, _ = os.ReadFile(filepath.Join(dir, "addr"))
		return len(addr) > 0
	})
	c := dialConnected(t, "ws://"+string(addr)+"/")
	long := c.call("test.job", map[string]any{"name": "long"})
	short := c.call("test.job", map[string]any{"name": "short"})
	longID, shortID := gjson.GetBytes(long.Payload, "taskId").Str, gjson.GetBytes(short.Payload, "taskId").Str
	if longID == "" || shortID == "" {
		t.Fatalf("jobs not started: %s %s", long.Payload, short.Payload)
	}
	if f := c.call("tasks.cancel", map[string]any{"taskId": shortID}); !f.OK || gjson.GetBytes(f.Payload, "task.status").Str != tools.JobCancelled {
		t.Fatalf("cancel: %s %+v", f.Payload, f.Error)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}})
	c2 := dialConnected(t, ts.url)
	f := c2.call("tasks.list", nil)
	if !f.OK {
		t.Fatalf("tasks.list: %+v", f.Error)
	}
	byID := map[string]gjson.Result{}
	for _, task := range gjson.GetBytes(f.Payload, "tasks").Array() {
		byID[task.Get("id").Str] = task
	}
	l, s := byID[longID], byID[shortID]
	if l.Get("status").Str != tools.JobInterrupted || l.Get("kind").Str != "test" || l.Get("owner").Str != "long" ||
		!strings.Contains(l.Get("error.message").Str, "interrupted") || l.Get("endedAt").Str == "" {
		t.Errorf("running job after the kill: %s", l.Raw)
	}
	if s.Get("status").Str != tools.JobCancelled || s.Get("startedAt").Str == "" || s.Get("endedAt").Str == "" {
		t.Errorf("cancelled job after the kill: %s", s.Raw)
	}
	if g := c2.call("tasks.get", map[string]any{"taskId": longID}); !g.OK || gjson.GetBytes(g.Payload, "task.status").Str != tools.JobInterrupted {
		t.Errorf("tasks.get: %s %+v", g.Payload, g.Error)
	}
}

// A graceful stop marks running work interrupted too, and its record says so.
func TestJobsSurviveStop(t *testing.T) {
	dir := t.TempDir()
	paths := config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}
	ts := startServer(t, Options{Paths: paths})
	name := uniqueName(t)
	id := startJob(t, dialConnected(t, ts.url), name)
	ts.stop()
	ts2 := startServer(t, Options{Paths: paths})
	f := dialConnected(t, ts2.url).call("tasks.get", map[string]any{"taskId": id})
	if !f.OK || gjson.GetBytes(f.Payload, "task.status").Str != tools.JobInterrupted || gjson.GetBytes(f.Payload, "task.owner").Str != name {
		t.Fatalf("after restart: %s %+v", f.Payload, f.Error)
	}
}
