package commands

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/porttest"
	"github.com/openclaw-go/openclaw/protocol"
)

// lineReader hands a process's output lines to a test as they come.
type lineReader struct {
	lines chan string
	seen  strings.Builder
}

func readLines(r io.Reader) *lineReader {
	lr := &lineReader{lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lr.lines <- sc.Text()
		}
		close(lr.lines)
	}()
	return lr
}

// waitLine waits for a line matching want (a substring) within d.
func (lr *lineReader) waitLine(t *testing.T, want string, d time.Duration) string {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-lr.lines:
			if !ok {
				t.Fatalf("output ended without %q; got:\n%s", want, lr.seen.String())
			}
			lr.seen.WriteString(l + "\n")
			if strings.Contains(l, want) {
				return l
			}
		case <-timeout:
			t.Fatalf("no line with %q within %s; got:\n%s", want, d, lr.seen.String())
		}
	}
}

// procExitCode waits for cmd and returns its exit code.
func procExitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("process did not exit")
		return -1
	}
}

func followCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, append([]string{"logs", "--follow"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, ".openclaw"), "NO_COLOR=1")
	t.Cleanup(func() {
		if cmd.ProcessState == nil && cmd.Process != nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

// logs --follow prints a line written after it started, as it is
// written: polling is set to an hour, so only the stream can deliver it.
// Ctrl-C then exits 130.
func TestLogsFollowStreams(t *testing.T) {
	g := startGateway(t, "")
	url, gwLogs := g.url, g.logs
	cmd := followCmd(t, "--interval", "1h", "--url", url, "--token", "sig")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(out)
	lines.waitLine(t, "listening on", 10*time.Second) // the tail: following has started

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, client.Options{URL: url, Token: "sig", Scopes: []string{protocol.ScopeAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Call(ctx, "config.patch", map[string]any{"raw": `{ui:{prefs:{theme:"dark"}}}`, "note": "follow-marker"}); err != nil {
		t.Fatalf("config.patch: %v\n%s", err, gwLogs.String())
	}
	lines.waitLine(t, "follow-marker", 10*time.Second)

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := procExitCode(t, cmd); code != 130 {
		t.Errorf("Ctrl-C: exit %d, want 130", code)
	}
}

// With no gateway, follow says so once per retry with a rounded delay and
// clean punctuation ("…`openclaw serve`; reconnecting in 1s").
func TestLogsFollowReconnectMessage(t *testing.T) {
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	cmd := followCmd(t, "--url", "ws://127.0.0.1:"+strconv.Itoa(port), "--token", "x")
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(errOut)
	l := lines.waitLine(t, "reconnecting in", 10*time.Second)
	if !regexp.MustCompile(`^openclaw logs: .*[^.;]; reconnecting in [0-9]+(s|ms)$`).MatchString(l) {
		t.Errorf("reconnect line: %q", l)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := procExitCode(t, cmd); code != 130 {
		t.Errorf("Ctrl-C while reconnecting: exit %d, want 130", code)
	}
}
