package commands

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/openclaw-go/openclaw/porttest"
)

// Issue 8 "serve start-up": on a terminal serve says how to connect and
// where the secret is — never the secret itself.
func TestServeConnectHintOnTTY(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	cmd := exec.Command(exe, "serve", "--port", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+state, "NO_COLOR=1")
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got []string
	deadline := time.After(15 * time.Second)
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve ended: %q", got)
			}
			got = append(got, l)
			done = strings.Contains(l, "Secret:")
		case <-deadline:
			t.Fatalf("no connect hint; output: %q", got)
		}
	}
	out := strings.Join(got, "\n")
	want := "openclaw health --url ws://127.0.0.1:" + strconv.Itoa(port) + " --token <token>"
	if !strings.Contains(out, want) || !strings.Contains(out, "gateway.auth.token in "+filepath.Join(state, "openclaw.json")) {
		t.Errorf("hint lacks %q or the token's location:\n%s", want, out)
	}
	b, err := os.ReadFile(filepath.Join(state, "openclaw.json"))
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.Split(strings.Split(string(b), `"token": "`)[1], `"`)[0]
	if len(tok) != 48 || strings.Contains(out, tok) {
		t.Errorf("the secret is printed (or not found: %q)", tok)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
}
