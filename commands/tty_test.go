package commands

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// On a real terminal the CLI renders for humans; piped, it prints JSON.
func TestTTYRendersHumanOutput(t *testing.T) {
	// testscript.Main (TestMain) put an `openclaw` that runs Main on PATH.
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("plain text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(useTTY bool, args ...string) string {
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, ".openclaw"), "NO_COLOR=1")
		if !useTTY {
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			return string(out)
		}
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var buf bytes.Buffer
		done := make(chan struct{})
		go func() { io.Copy(&buf, f); close(done) }()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return strings.ReplaceAll(buf.String(), "\r\n", "\n")
	}

	human := run(true, "read", "a.txt")
	if human != "plain text\n" {
		t.Errorf("tty read: got %q, want the raw text", human)
	}
	piped := run(false, "read", "a.txt")
	if !strings.HasPrefix(piped, `{"content":[`) {
		t.Errorf("piped read: got %q, want JSON", piped)
	}
	forced := run(true, "read", "a.txt", "--json")
	if !strings.HasPrefix(forced, `{"content":[`) {
		t.Errorf("tty read --json: got %q, want JSON", forced)
	}
	table := run(true, "tools", "list")
	if !strings.Contains(table, "tool") || !strings.Contains(table, "group:fs") || strings.Contains(table, "TOOL") || strings.Contains(table, "{") {
		t.Errorf("tty tools list: want a borderless table with lower-case header, got:\n%s", table)
	}
}
