package commands

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// readUntil collects what arrives on chunks until it contains want or the
// deadline passes; it returns everything read so far.
func readUntil(t *testing.T, chunks <-chan string, got *strings.Builder, want string, deadline time.Duration) bool {
	t.Helper()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for !strings.Contains(got.String(), want) {
		select {
		case c, ok := <-chunks:
			if !ok {
				return strings.Contains(got.String(), want)
			}
			got.WriteString(c)
		case <-timer.C:
			return false
		}
	}
	return true
}

// On a terminal, exec's output appears while the command runs (through
// the sink), not only when it ends; the final rendering does not print it
// a second time.
func TestExecStreamsLiveOnTTY(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "exec", "--command", "echo live-one; read x < "+fifo+"; echo live-two; exit 3")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, ".openclaw"), "NO_COLOR=1")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		// A command still waiting at its gate (the test failed early) is
		// let through, so it does not outlive the test.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.WriteString("go\n")
			w.Close()
		}
	})
	chunks := make(chan string, 64)
	go func() {
		defer close(chunks)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				chunks <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	var got strings.Builder
	if !readUntil(t, chunks, &got, "live-one", 10*time.Second) {
		t.Fatalf("no live output while the command runs; the terminal showed %q", got.String())
	}
	if strings.Contains(got.String(), "live-two") {
		t.Fatalf("the command ran past its gate: %q", got.String())
	}
	// Let the command go on: opening the FIFO for writing meets its read.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	if !readUntil(t, chunks, &got, "(Command exited with code 3)", 10*time.Second) {
		t.Fatalf("no end of the result: %q", got.String())
	}
	err = cmd.Wait()
	for c := range chunks {
		got.WriteString(c)
	}
	out := strings.ReplaceAll(got.String(), "\r\n", "\n")
	if strings.Count(out, "live-one") != 1 || strings.Count(out, "live-two") != 1 || strings.Contains(out, "{") {
		t.Fatalf("want each line once and no JSON, got %q", out)
	}
	if !strings.HasPrefix(out, "live-one\nlive-two\n") {
		t.Fatalf("want the output first, then the status, got %q", out)
	}
	if err != nil {
		t.Fatalf("exec with a non-zero command exit is still a result (exit 0): %v", err)
	}
}

// On a terminal, an exec that fails (here a timeout, exit 124) showed its
// output live; the error line on stderr then says only why it failed and
// does not print the output a second time.
func TestExecFailureOutputOnceOnTTY(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "exec", "--timeout-seconds", "1", "--command", "echo shown-once; printf no-newline; exec sleep 30")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, ".openclaw"), "NO_COLOR=1")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	chunks := make(chan string, 64)
	go func() {
		defer close(chunks)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				chunks <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	var got strings.Builder
	if !readUntil(t, chunks, &got, "timed out", 20*time.Second) {
		t.Fatalf("no timeout error: %q", got.String())
	}
	err = cmd.Wait()
	for c := range chunks {
		got.WriteString(c)
	}
	out := strings.ReplaceAll(got.String(), "\r\n", "\n")
	if strings.Count(out, "shown-once") != 1 || strings.Count(out, "no-newline") != 1 {
		t.Fatalf("want the output once, got %q", out)
	}
	if !strings.Contains(out, "no-newline\nopenclaw: Command timed out after 1 seconds") {
		t.Fatalf("want the error line on a line of its own after the output, got %q", out)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 124 {
		t.Fatalf("want exit 124, got %v", err)
	}
}
