package exectool

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/tools"
)

// startTagged starts `sleep 600` in its own session carrying token, as a
// command's setsid descendant would be.
func startTagged(t *testing.T, token string) int {
	t.Helper()
	c := exec.Command("sleep", "600")
	c.Env = append(os.Environ(), tokenEnv+"="+token)
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go c.Wait()
	t.Cleanup(func() { c.Process.Kill() })
	return c.Process.Pid
}

// gatewayEnvIn is gatewayEnv on a given state dir (a restarted gateway).
func gatewayEnvIn(t *testing.T, state string) *tools.Env {
	t.Helper()
	env := &tools.Env{StateDir: state, Workspace: state}
	jobs, stop := gateway.NewJobRunner(t.Logf)
	t.Cleanup(func() { stop(5 * time.Second) })
	env.Jobs = jobs
	svc, err := newRegistry(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(context.Background()) })
	env.Services = map[string]tools.Service{serviceName: svc}
	return env
}

// `setsid sleep 313 &` leaves the command's process group, so the group
// kill missed it (issue 17 item 10). The token every descendant inherits
// reaches it: on process kill, on gateway stop, and when a foreground
// command ends.
func TestSetsidDescendantsEnd(t *testing.T) {
	t.Run("kill", func(t *testing.T) {
		env, _ := gatewayEnv(t)
		pidf := filepath.Join(env.Workspace, "pid")
		b, _ := json.Marshal(map[string]any{"command": "setsid sleep 313 & echo $! > " + pidf + "; echo up; sleep 600", "background": true})
		m, err := invoke(t, env, string(b))
		if err != nil {
			t.Fatal(err)
		}
		id := details(m)["sessionId"].(string)
		pollUntil(t, env, id, "up")
		pid := readPID(t, pidf)
		if dead(pid) {
			t.Fatal("the setsid child is not running")
		}
		if _, err := procCall(t, env, "kill", `{"sessionId":"`+id+`"}`); err != nil {
			t.Fatal(err)
		}
		if !gone(pid) {
			t.Fatal("process kill left the setsid child running")
		}
	})
	t.Run("stop", func(t *testing.T) {
		env, stopJobs := gatewayEnvJobs(t)
		pidf := filepath.Join(env.Workspace, "pid")
		b, _ := json.Marshal(map[string]any{"command": "setsid sleep 313 & echo $! > " + pidf + "; echo up; sleep 600", "background": true})
		m, err := invoke(t, env, string(b))
		if err != nil {
			t.Fatal(err)
		}
		pollUntil(t, env, details(m)["sessionId"].(string), "up")
		pid := readPID(t, pidf)
		stopJobs(5 * time.Second)
		if !gone(pid) {
			t.Fatal("gateway stop left the setsid child running")
		}
	})
	t.Run("foreground end", func(t *testing.T) {
		env := localEnv(t)
		pidf := filepath.Join(env.Workspace, "pid")
		b, _ := json.Marshal(map[string]any{"command": "setsid sleep 313 & echo $! > " + pidf})
		if _, err := invoke(t, env, string(b)); err != nil {
			t.Fatal(err)
		}
		if !gone(readPID(t, pidf)) {
			t.Fatal("a finished command left its setsid child running")
		}
	})
}

// A record left by a gateway that died: the next registry's start kills
// what carries the token and lists the session as interrupted.
func TestRecoverEndsSurvivorsAndMarksInterrupted(t *testing.T) {
	dir := t.TempDir()
	token := newToken()
	survivor := startTagged(t, token)
	recs := []record{{ID: "calm-lake", Agent: "main", Command: "sleep 600", Cwd: dir, PID: survivor, Token: token,
		StartedAt: time.Now().UnixMilli(), Background: true}}
	b, _ := json.Marshal(recs)
	os.WriteFile(filepath.Join(dir, recordsFile), b, 0o600)

	env2 := gatewayEnvIn(t, dir)
	if !gone(survivor) {
		t.Fatal("the survivor of a dead gateway still runs after the next start")
	}
	m, err := procCall(t, env2, "list", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	ss := details(m)["sessions"].([]any)
	if len(ss) != 1 || ss[0].(map[string]any)["sessionId"] != "calm-lake" || ss[0].(map[string]any)["status"] != "interrupted" {
		t.Fatalf("process list after recovery: %v", ss)
	}
	if left, _ := loadRecords(filepath.Join(dir, recordsFile)); len(left) != 0 {
		t.Fatalf("recovered records were kept as running: %v", left)
	}
}
