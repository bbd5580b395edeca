package commands

import (
	"bytes"
	"errors"
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

// Two gateways on one state dir (issue 30 item 7): the second `openclaw
// serve` exits 1 with one line naming the first one's pid and port, before
// it recovers anything, so the first one's background exec keeps running.
// Before, the second started, and its exec recovery killed the first one's
// command.
func TestSecondGatewayOnStateDirExits(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	first := serveIn(t, state)
	pidf := filepath.Join(t.TempDir(), "sleep.pid")
	out, stderr, code := runGwCLI(t, first, "exec", "--remote", "--background", "--json", "--command",
		"echo $$ > "+pidf+"; exec sleep 317")
	if code != 0 {
		t.Fatalf("background exec: %d %s %s", code, out, stderr)
	}
	sid := gjson.Get(out, "details.sessionId").String()
	pid := waitPID(t, pidf)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })

	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	second := exec.Command(exe, "serve", "--port", strconv.Itoa(port), "--auth", "token", "--token", "sig")
	second.Env = append(os.Environ(), "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state)
	var so, se bytes.Buffer
	second.Stdout, second.Stderr = &so, &se
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- second.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(30 * time.Second):
		_ = second.Process.Kill()
		<-done
		t.Fatalf("a second gateway on the same state dir kept running\n%s", se.String())
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("second gateway: %v, want exit 1\n%s", werr, se.String())
	}
	firstPort := strings.TrimPrefix(first.url, "ws://127.0.0.1:")
	msg := strings.TrimSpace(se.String())
	want := "(pid " + strconv.Itoa(first.cmd.Process.Pid) + ", port " + firstPort + ")"
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, want) || !strings.Contains(msg, state) {
		t.Fatalf("second gateway said %q, want one line naming %s and the state dir", msg, want)
	}

	if syscall.Kill(pid, 0) != nil {
		t.Fatal("the first gateway's background command was killed by the second gateway")
	}
	list, stderr, code := runGwCLI(t, first, "process", "list", "--json")
	if code != 0 {
		t.Fatalf("process list: %d %s", code, stderr)
	}
	if st := gjson.Get(list, `details.sessions.#(sessionId=="`+sid+`").status`).String(); st != "running" {
		t.Fatalf("the first gateway lists its command as %q, want running: %s", st, list)
	}
}
