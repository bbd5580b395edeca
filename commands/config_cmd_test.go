package commands

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"

	"github.com/openclaw-go/openclaw/config"
)

// ocResult is one run of the real CLI in its own process.
type ocResult struct {
	stdout, stderr string
	code           int
}

// runOC runs `openclaw args...` (the test binary, via TestMain) with home
// as HOME and its state dir.
func runOC(t *testing.T, home string, args ...string) ocResult {
	t.Helper()
	cmd := exec.Command("openclaw", args...)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, ".openclaw"),
		"OPENCLAW_CONFIG_PATH=", "OPENCLAW_PROFILE=", "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("openclaw %v: %v", args, err)
	}
	return ocResult{out.String(), errb.String(), code}
}

func cfgFile(home string) string { return filepath.Join(home, ".openclaw", "openclaw.json") }

// Two CLI processes writing different keys at once never lose a write:
// config set reads, changes and writes under the config file lock.
func TestConfigSetConcurrentProcessesLoseNothing(t *testing.T) {
	home := t.TempDir()
	const perProc = 8
	var wg sync.WaitGroup
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perProc; i++ {
				if r := runOC(t, home, "config", "set", fmt.Sprintf("env.vars.P%d_%d", p, i), "v", "--json"); r.code != 0 {
					t.Errorf("config set: exit %d: %s", r.code, r.stderr)
				}
			}
		}()
	}
	wg.Wait()
	cfg, err := config.Load(cfgFile(home), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	vars, _ := cfg.Get("env.vars")
	if m, _ := vars.(map[string]any); len(m) != 2*perProc {
		t.Errorf("env.vars has %d of %d keys: %v", len(m), 2*perProc, vars)
	}
}

// A stale --base-hash is refused and nothing is written; the current hash
// is accepted.
func TestConfigSetBaseHash(t *testing.T) {
	home := t.TempDir()
	if r := runOC(t, home, "config", "set", "tools.profile", "coding", "--json"); r.code != 0 {
		t.Fatalf("set: %d %s", r.code, r.stderr)
	}
	before, _ := os.ReadFile(cfgFile(home))
	r := runOC(t, home, "config", "set", "tools.profile", "full", "--base-hash", config.HashRaw([]byte("stale")))
	if r.code != 1 || !strings.Contains(r.stderr, "config changed since last load") {
		t.Errorf("stale base hash: exit %d %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(cfgFile(home)); string(after) != string(before) {
		t.Errorf("a stale write changed the file")
	}
	r = runOC(t, home, "config", "set", "tools.profile", "full", "--base-hash", config.HashRaw(before), "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"hash":"`) {
		t.Errorf("current base hash: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
}

// config get of an unset path with a schema default prints the default
// (exit 0); only a path neither set nor defaulted fails. Unsetting an
// unset key is not an error.
func TestConfigGetDefaultsAndUnsetNothing(t *testing.T) {
	home := t.TempDir()
	r := runOC(t, home, "config", "get", "gateway.port")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "18789" {
		t.Errorf("config get gateway.port on a fresh install: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := runOC(t, home, "config", "get", "gateway.port", "--json"); r.code != 0 || strings.TrimSpace(r.stdout) != "18789" {
		t.Errorf("--json: exit %d %q", r.code, r.stdout)
	}
	if r := runOC(t, home, "config", "get", "gateway.auth.token"); r.code != 1 || !strings.Contains(r.stderr, "unset") {
		t.Errorf("unset, no default: exit %d %q", r.code, r.stderr)
	}
	if r := runOC(t, home, "config", "get", "gateway.nope"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("unknown path: exit %d %q", r.code, r.stderr)
	}
	r = runOC(t, home, "config", "unset", "gateway.port")
	if r.code != 0 || !strings.Contains(strings.ToLower(r.stdout+r.stderr), "nothing to unset") {
		t.Errorf("unset of an unset key: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(cfgFile(home)); err == nil {
		t.Errorf("unset of an unset key created the config file")
	}
}

// A key unknown to the schema is refused (exit 2) with a did-you-mean,
// unless --force; a forced write prints the warning validate prints.
func TestConfigSetUnknownKey(t *testing.T) {
	home := t.TempDir()
	r := runOC(t, home, "config", "set", "gateway.prot", "1")
	if r.code != 2 || !strings.Contains(r.stderr, "did you mean gateway.port?") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("unknown key: exit %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(cfgFile(home)); err == nil {
		t.Errorf("a refused set wrote the config")
	}
	r = runOC(t, home, "config", "set", "gateway.prot", "1", "--force")
	if r.code != 0 || !strings.Contains(r.stderr, `warning: gateway: Unrecognized key: "prot"`) {
		t.Errorf("--force: exit %d %q", r.code, r.stderr)
	}
	if v := runOC(t, home, "config", "validate"); !strings.Contains(v.stderr, `warning: gateway: Unrecognized key: "prot"`) {
		t.Errorf("validate warning differs: %q", v.stderr)
	}
}

// validate with no config file says so (exit 0); a broken file makes an
// unrelated command fail with a hint to validate and the .bak.
func TestConfigValidateMissingAndBrokenHint(t *testing.T) {
	home := t.TempDir()
	r := runOC(t, home, "config", "validate")
	if r.code != 0 || strings.Contains(r.stdout, "Config valid") || !strings.Contains(r.stdout, "No config file") ||
		!strings.Contains(r.stdout, cfgFile(home)) {
		t.Errorf("validate without a file: exit %d %q", r.code, r.stdout)
	}
	if r := runOC(t, home, "config", "set", "tools.profile", "coding"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := runOC(t, home, "config", "set", "tools.profile", "full"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if err := os.WriteFile(cfgFile(home), []byte(`{tools: {profile: "full"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runOC(t, home, "read", "notes.txt")
	if r.code == 0 || !strings.Contains(r.stderr, "openclaw config validate") || !strings.Contains(r.stderr, cfgFile(home)+".bak") {
		t.Errorf("broken config: exit %d %q", r.code, r.stderr)
	}
}

// The "comments will be lost" warning comes only from real comments, not
// from "//" inside a string such as a URL.
func TestConfigSetCommentWarning(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Dir(cfgFile(home)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgFile(home), []byte(`{gateway: {remote: {url: "wss://gw.example/*x*/"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runOC(t, home, "config", "set", "tools.profile", "coding"); r.code != 0 || strings.Contains(r.stderr, "comments") {
		t.Errorf("URL flagged as a comment: exit %d %q", r.code, r.stderr)
	}
	if err := os.WriteFile(cfgFile(home), []byte("{\n  // mine\n  tools: {profile: \"coding\"}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runOC(t, home, "config", "set", "tools.profile", "full"); r.code != 0 || !strings.Contains(r.stderr, "strip JSON5 comments") {
		t.Errorf("real comment not warned: exit %d %q", r.code, r.stderr)
	}
}

// On a terminal, config get of a defaulted path says it is the default.
func TestConfigGetDefaultOnTTY(t *testing.T) {
	home := t.TempDir()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "config", "get", "gateway.port")
	cmd.Env = append(os.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, ".openclaw"),
		"OPENCLAW_CONFIG_PATH=", "OPENCLAW_PROFILE=", "NO_COLOR=1")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&buf, f); close(done) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("config get on a tty: %v", err)
	}
	<-done
	out := strings.ReplaceAll(buf.String(), "\r\n", "\n")
	if !strings.HasPrefix(out, "18789\n") || !strings.Contains(out, "(default: gateway.port is not set in ") {
		t.Errorf("tty output %q", out)
	}
}

// The CLI write path removes temp files left by an interrupted write.
func TestConfigSetRemovesInterruptedTempFiles(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Dir(cfgFile(home))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(dir, ".openclaw.json.tmp-4242")
	if err := os.WriteFile(left, []byte(`{"half":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runOC(t, home, "config", "set", "tools.profile", "coding"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("%s survived a config write", left)
	}
}
