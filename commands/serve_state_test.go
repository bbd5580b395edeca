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

// An empty or corrupt openclaw.db (issue 30 item 8): `openclaw serve`
// exits 1 (an error of the state, not of its usage) with one line that
// says what to do, and leaves the file as it was. Before, the empty file
// silently became a fresh store and a corrupt one exited 2.
func TestServeRefusesUnusableDatabase(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"empty": "", "corrupt": strings.Repeat("garbage!", 1024)} {
		t.Run(name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			if err := os.MkdirAll(state, 0o700); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(state, "openclaw.db")
			if err := os.WriteFile(db, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			port, err := porttest.Pick()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "serve", "--port", strconv.Itoa(port), "--auth", "token", "--token", "sig")
			cmd.Env = append(os.Environ(), "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state)
			var se bytes.Buffer
			cmd.Stderr = &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var werr error
			select {
			case werr = <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("serve started on an unusable database\n%s", se.String())
			}
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("serve: %v, want exit 1\n%s", werr, se.String())
			}
			msg := strings.TrimSpace(se.String())
			if strings.Contains(msg, "\n") || !strings.Contains(msg, db) || !strings.Contains(msg, "move it aside") {
				t.Fatalf("serve said %q, want one line naming %s and what to do", msg, db)
			}
			if b, err := os.ReadFile(db); err != nil || string(b) != content {
				t.Fatalf("the database file changed (%d bytes, %v)", len(b), err)
			}
		})
	}
}
