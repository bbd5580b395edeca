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
	// A tool without a renderer of its own shows its text; a text that is
	// a JSON object (browser status) as key: value lines.
	if got := run(true, "browser", "status"); !strings.Contains(got, "\nrunning: false\n") || strings.Contains(got, `\"`) ||
		strings.Contains(got, `"content"`) {
		t.Errorf("tty browser status: want key: value lines, got:\n%s", got)
	}
	// Issue 30 item 23: lists are tables on a terminal, not a line of JSON.
	if got := run(true, "browser", "profiles"); !strings.HasPrefix(strings.TrimLeft(got, " "), "Profile") ||
		!strings.Contains(got, "openclaw") || !strings.Contains(got, "#FF4500") || strings.Contains(got, "{") {
		t.Errorf("tty browser profiles: want a table, got:\n%s", got)
	}
	if got := run(true, "approvals", "get"); !strings.HasPrefix(got, "Approvals file: ") || strings.Contains(got, "{") {
		t.Errorf("tty approvals get: want text, got:\n%s", got)
	}
	// `openclaw version` on a terminal is the line -v prints; piped, JSON.
	if v, dash := run(true, "version"), run(true, "-v"); v != dash || !strings.HasPrefix(v, "OpenClaw ") {
		t.Errorf("tty version %q, -v %q: want the same 'OpenClaw VERSION' line", v, dash)
	}
	if piped := run(false, "version"); !strings.HasPrefix(piped, `{"version":`) {
		t.Errorf("piped version: want JSON, got %q", piped)
	}
}

// Colour: on a terminal by default; never with NO_COLOR, --no-color or
// CLICOLOR=0; never in piped output unless CLICOLOR_FORCE asks for it, and
// never inside JSON.
func TestColourOnlyOnATerminal(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := []string{"HOME=" + dir, "OPENCLAW_STATE_DIR=" + filepath.Join(dir, ".openclaw"), "TERM=xterm-256color"}
	var clean []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "CLICOLOR") && !strings.HasPrefix(kv, "TERM=") {
			clean = append(clean, kv)
		}
	}
	run := func(useTTY bool, env []string, args ...string) (string, string) {
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		cmd.Env = append(append(append([]string{}, clean...), base...), env...)
		if !useTTY {
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			cmd.Run()
			return out.String(), errb.String()
		}
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var buf bytes.Buffer
		done := make(chan struct{})
		go func() { io.Copy(&buf, f); close(done) }()
		cmd.Wait()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return buf.String(), ""
	}
	const esc = "\x1b["
	if out, _ := run(true, nil, "tools", "list"); !strings.Contains(out, esc+"1mtool"+esc+"0m") {
		t.Errorf("tty tools list: want a bold header, got %q", out)
	}
	if out, _ := run(true, nil, "tools", "effective"); !strings.Contains(out, esc+"32mallowed") {
		t.Errorf("tty tools effective: want a green status, got %q", out)
	}
	if out, _ := run(true, nil, "read", "missing.txt"); !strings.Contains(out, esc+"31mopenclaw:") {
		t.Errorf("tty error: want a red prefix, got %q", out)
	}
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{[]string{"NO_COLOR=1"}, []string{"tools", "list"}},
		{[]string{"CLICOLOR=0"}, []string{"tools", "list"}},
		{nil, []string{"tools", "list", "--no-color"}},
		{nil, []string{"--no-color", "tools", "effective"}},
		{[]string{"NO_COLOR=1"}, []string{"read", "missing.txt"}},
	} {
		if out, _ := run(true, c.env, c.args...); strings.Contains(out, esc) {
			t.Errorf("tty %v %v: want no colour, got %q", c.env, c.args, out)
		}
	}
	if out, errOut := run(false, nil, "read", "missing.txt"); strings.Contains(out+errOut, esc) {
		t.Errorf("piped: want no colour, got %q / %q", out, errOut)
	}
	out, errOut := run(false, []string{"CLICOLOR_FORCE=1"}, "read", "missing.txt")
	if !strings.Contains(errOut, esc+"31mopenclaw:") {
		t.Errorf("CLICOLOR_FORCE piped: want a red error prefix, got %q", errOut)
	}
	if strings.Contains(out, esc) {
		t.Errorf("CLICOLOR_FORCE piped: JSON must stay plain, got %q", out)
	}
	if out, _ := run(false, []string{"CLICOLOR_FORCE=1"}, "tools", "list"); strings.Contains(out, esc) {
		t.Errorf("CLICOLOR_FORCE piped tools list: JSON must stay plain, got %q", out)
	}
}

// A table on a narrow terminal is cut to its width (the PTY says 50).
func TestTableFitsTheTerminal(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "tools", "list")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, ".openclaw"), "NO_COLOR=1")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&buf, f); close(done) }()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	out := strings.ReplaceAll(buf.String(), "\r\n", "\n")
	cut := false
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := len([]rune(l)); n > 50 {
			t.Errorf("line of %d columns on a 50-column terminal: %q", n, l)
		}
		cut = cut || strings.HasSuffix(l, "…")
	}
	if !cut {
		t.Errorf("no line was cut on a 50-column terminal:\n%s", out)
	}
}
