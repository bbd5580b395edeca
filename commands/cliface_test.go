package commands

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// The hooks an action has on its command line (tools.Action Command, Flags,
// FileParams), through the canvas tool, which uses all three: its actions
// live under `openclaw nodes canvas` (a2ui_push is `nodes canvas a2ui
// push`), timeoutMs is --invoke-timeout, javaScript --js, outputFormat
// --format, and --jsonl names a file the CLI reads.

func commandAt(cmds []*cli.Command, words ...string) *cli.Command {
	var found *cli.Command
	for _, w := range words {
		found = nil
		for _, c := range cmds {
			if c.Name == w {
				found = c
			}
		}
		if found == nil {
			return nil
		}
		cmds = found.Subcommands
	}
	return found
}

func TestActionCommandPaths(t *testing.T) {
	app := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{}).newApp()
	for _, words := range [][]string{
		{"nodes", "canvas", "present"}, {"nodes", "canvas", "hide"}, {"nodes", "canvas", "navigate"},
		{"nodes", "canvas", "eval"}, {"nodes", "canvas", "snapshot"},
		{"nodes", "canvas", "a2ui", "push"}, {"nodes", "canvas", "a2ui", "reset"},
	} {
		c := commandAt(app.Commands, words...)
		if c == nil || c.Action == nil {
			t.Errorf("no command %v", words)
		}
	}
	if c := commandAt(app.Commands, "canvas"); c != nil {
		t.Errorf("canvas also at the top: %v", c.Name)
	}
	if c := commandAt(app.Commands, "nodes", "canvas"); c == nil || !strings.HasPrefix(c.Usage, "the canvas tool: a2ui, eval, hide") {
		t.Errorf("nodes canvas usage: %+v", c)
	}
	if c := commandAt(app.Commands, "nodes", "canvas", "a2ui"); c == nil || c.Usage != "the canvas tool's a2ui actions: push, reset" || c.Category != "" {
		t.Errorf("nodes canvas a2ui: %+v", c)
	}
	// Default paths are unchanged.
	if c := commandAt(app.Commands, "web", "fetch"); c == nil || c.Action == nil {
		t.Error("web fetch moved")
	}
	if c := commandAt(app.Commands, "browser"); c == nil || !strings.HasPrefix(c.Usage, "the browser tool: ") {
		t.Errorf("browser group: %+v", c)
	}
	if c := commandAt(app.Commands, "web"); c == nil || !strings.HasPrefix(c.Usage, "web tools: ") {
		t.Errorf("web group: %+v", c)
	}
	r := runOC(t, t.TempDir(), "tools", "list", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"name":"canvas","command":"openclaw nodes canvas <action>"`) {
		t.Errorf("tools list: %d %s", r.code, r.stdout)
	}
}

func TestActionFlagNames(t *testing.T) {
	home := t.TempDir()
	for words, want := range map[string][]string{
		"eval":      {"--js value", "--invoke-timeout value"},
		"snapshot":  {"--format value", "--max-width value", "--out FILE"},
		"a2ui push": {"--jsonl value", "(here: a FILE to read it from, - for stdin)", "--jsonl-path value", "--text value"},
	} {
		args := append(append([]string{"nodes", "canvas"}, strings.Fields(words)...), "--help")
		r := runOC(t, home, args...)
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%s --help lacks %q:\n%s", words, w, r.stdout)
			}
		}
		for _, gone := range []string{"--java-script", "--output-format", "--timeout-ms"} {
			if strings.Contains(r.stdout, gone) {
				t.Errorf("%s --help still has %s", words, gone)
			}
		}
	}
}

// --jsonl FILE is read by the CLI: the gateway checks the content (its
// line errors prove it got the lines, not the path); - reads stdin; a
// missing file is a usage error before any connection.
func TestFileParamReadByTheCLI(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ui.jsonl")
	if err := os.WriteFile(file, []byte("{\"deleteSurface\":{}}\n[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runOC(t, dir, "nodes", "canvas", "a2ui", "push", "--jsonl", filepath.Join(dir, "absent.jsonl")); r.code != 2 ||
		!strings.Contains(r.stderr, "--jsonl "+filepath.Join(dir, "absent.jsonl")+": open") {
		t.Fatalf("absent file: %d %s", r.code, r.stderr)
	}
	if r := runOC(t, dir, "nodes", "canvas", "a2ui", "push", "--jsonl", dir); r.code != 2 || !strings.Contains(r.stderr, "is a directory") {
		t.Fatalf("directory: %d %s", r.code, r.stderr)
	}
	g := startGateway(t, "")
	_, errs, code := runGwCLI(t, g, "nodes", "canvas", "a2ui", "push", "--node", "n", "--jsonl", file)
	if code != 2 || !strings.Contains(errs, "line 1: deleteSurface.surfaceId must be a non-empty string - line 2: expected JSON object") {
		t.Fatalf("file: %d %s", code, errs)
	}
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "nodes", "canvas", "a2ui", "push", "--node", "n", "--jsonl", "-", "--url", g.url, "--token", "sig")
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, "st"))
	cmd.Stdin = strings.NewReader("\n\n42\n")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err == nil || !strings.Contains(errb.String(), "line 3: expected JSON object") {
		t.Fatalf("stdin: %v %s", err, errb.String())
	}
	cmd = exec.Command(exe, "nodes", "canvas", "a2ui", "push", "--jsonl", "-", "--params", "-", "--url", g.url, "--token", "sig")
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, "st"))
	cmd.Stdin = strings.NewReader("{}")
	errb.Reset()
	cmd.Stderr = &errb
	if err := cmd.Run(); err == nil || !strings.Contains(errb.String(), "--jsonl - and --params - both want stdin") {
		t.Fatalf("two stdins: %v %s", err, errb.String())
	}
}
