package commands

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/porttest"
)

// serveIn runs `openclaw serve` on state (token "sig") until /readyz
// answers: a gateway that a test can kill -9 and start again on the same
// state dir.
func serveIn(t *testing.T, state string) *gatewayProc {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	g := &gatewayProc{state: state, logs: &syncBuffer{}, exited: make(chan struct{})}
	g.cmd = exec.Command(exe, "serve", "--port", strconv.Itoa(port), "--auth", "token", "--token", "sig")
	g.cmd.Env = append(os.Environ(), "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state)
	g.cmd.Stderr = g.logs
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { g.err = g.cmd.Wait(); close(g.exited) }()
	t.Cleanup(func() { _ = g.cmd.Process.Kill(); <-g.exited })
	base := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(20 * time.Second); ; {
		if resp, err := http.Get("http://" + base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not ready: %s", g.logs.String())
		}
		select {
		case <-g.exited:
			t.Fatalf("gateway exited: %v\n%s", g.err, g.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	g.url = "ws://" + base
	return g
}

// procGone waits (up to 10 s: a killed process takes a moment) until pid
// no longer runs; a zombie counts as gone.
func procGone(pid int) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return true
		}
	}
	return false
}

// waitPID reads a pid file a command writes.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
			return pid
		}
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// kill -9 of the gateway (issue 17 item 9): the shell of a background exec
// dies with it, and the next gateway on the same state dir kills what the
// shell started (a child in its group and a setsid child) and lists the
// session as interrupted.
func TestGatewayKill9EndsExecChildren(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	g := serveIn(t, state)
	work := t.TempDir()
	p1, p2 := filepath.Join(work, "setsid.pid"), filepath.Join(work, "child.pid")
	out, stderr, code := runGwCLI(t, g, "exec", "--remote", "--background", "--json", "--command",
		"setsid sleep 313 & echo $! > "+p1+"; sleep 314 & echo $! > "+p2+"; wait")
	if code != 0 {
		t.Fatalf("background exec: %d %s %s", code, out, stderr)
	}
	sid, shell := gjson.Get(out, "details.sessionId").String(), int(gjson.Get(out, "details.pid").Int())
	setsidPID, childPID := waitPID(t, p1), waitPID(t, p2)
	t.Cleanup(func() { syscall.Kill(setsidPID, syscall.SIGKILL); syscall.Kill(childPID, syscall.SIGKILL) })

	if err := g.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-g.exited
	if !procGone(shell) {
		t.Fatal("the command's shell outlived its gateway (no parent death signal)")
	}

	g2 := serveIn(t, state)
	if !procGone(setsidPID) || !procGone(childPID) {
		t.Fatalf("after the restart: setsid child gone %v, group child gone %v", procGone(setsidPID), procGone(childPID))
	}
	list, stderr, code := runGwCLI(t, g2, "process", "list", "--json")
	if code != 0 {
		t.Fatalf("process list: %d %s", code, stderr)
	}
	s := gjson.Get(list, `details.sessions.#(sessionId=="`+sid+`")`)
	if s.Get("status").String() != "interrupted" {
		t.Fatalf("process list after the restart does not mark %s interrupted: %s", sid, list)
	}
}

// SIGTERM of the gateway (issue 17 item 10): `setsid sleep 313 &` left the
// process group and survived the group kill; it ends with the gateway now.
func TestGatewaySigtermEndsSetsidChild(t *testing.T) {
	g := serveIn(t, filepath.Join(t.TempDir(), "state"))
	pidf := filepath.Join(t.TempDir(), "setsid.pid")
	if out, stderr, code := runGwCLI(t, g, "exec", "--remote", "--background", "--json", "--command",
		"setsid sleep 313 & echo $! > "+pidf+"; sleep 600"); code != 0 {
		t.Fatalf("background exec: %d %s %s", code, out, stderr)
	}
	pid := waitPID(t, pidf)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-g.exited
	if !procGone(pid) {
		t.Fatal("the setsid child outlived a gateway stopped by SIGTERM")
	}
}
