package commands

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// commandPaths lists every command of the tree (groups, leaves, hidden ones
// too) as its words.
func commandPaths(cmds []*cli.Command, prefix []string) [][]string {
	var out [][]string
	for _, c := range cmds {
		p := append(append([]string{}, prefix...), c.Name)
		out = append(out, p)
		out = append(out, commandPaths(c.Subcommands, p)...)
	}
	return out
}

// bashComplete runs the real bash completion function over each line (the
// last word is the one being completed) with the real binary, and returns
// COMPREPLY per line. The run is killed (and the test fails) if a line
// blocks, as `serve` would if completion started it.
func bashComplete(t *testing.T, dir string, env []string, lines [][]string) [][]string {
	t.Helper()
	var script strings.Builder
	script.WriteString("source <(openclaw completion bash) || exit 9\n")
	script.WriteString(`c() { COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); COMPREPLY=(); _openclaw_complete; echo "###"; printf '%s\n' "${COMPREPLY[@]}"; }` + "\n")
	for _, l := range lines {
		script.WriteString("c openclaw")
		for _, w := range l {
			script.WriteString(" '" + strings.ReplaceAll(w, "'", `'\''`) + "'")
		}
		script.WriteString("\n")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bash completion run: %v (a completion blocked or failed?)\nstderr: %s", err, stderr.String())
	}
	parts := strings.Split(stdout.String(), "###\n")[1:]
	if len(parts) != len(lines) {
		t.Fatalf("got %d answers for %d lines:\n%s", len(parts), len(lines), stdout.String())
	}
	out := make([][]string, len(parts))
	for i, p := range parts {
		out[i] = strings.Fields(p)
	}
	return out
}

// Completion never runs a command, whatever the words on the line: every
// command with "--", "-" and a partial flag, with and without arguments
// that would make it act, leaves no file behind and starts no server.
func TestCompletionNeverRunsACommand(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, ".openclaw"),
		"OPENCLAW_GATEWAY_PORT="+strconv.Itoa(port), "NO_COLOR=1")

	app := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{}).newApp()
	var lines [][]string
	for _, p := range commandPaths(app.Commands, nil) {
		for _, cur := range []string{"--", "-", "--p", "--h"} {
			lines = append(lines, append(append([]string{}, p...), cur))
			lines = append(lines, append(append([]string{}, p...), "new.txt", "foo.x", cur))
			lines = append(lines, append(append([]string{}, p...), "--path", "new.txt", "--content", "hi", "--dir", ".", cur))
		}
	}
	specials := [][]string{
		{"config", "set", "foo.x", "--"},
		{"write", "--content", "hi", "--path", "new.txt", "--"},
		{"serve", "--"},
		{"serve", "--port", strconv.Itoa(port), "--"},
		{"__gen-docs", "--dir", ".", "--"},
		{"read", "notes.md", "--"},
		{"--profile", "x", "read", "notes.md", "--off"},
		{"help", ""},
		{"help", "config", ""},
		{"tools", ""},
		{"read", "--", "--"},
	}
	lines = append(lines, specials...)
	got := bashComplete(t, work, env, lines)

	for _, d := range []string{home, work} {
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			t.Errorf("completion left %s behind in %s: a command ran", e.Name(), d)
		}
	}
	has := func(ws []string, w string) bool {
		for _, x := range ws {
			if x == w {
				return true
			}
		}
		return false
	}
	for i, l := range lines {
		cur := l[len(l)-1]
		if (cur == "--" || cur == "--h") && !has(l[:len(l)-1], "--") && !has(got[i], "--help") {
			t.Errorf("%q: want --help among the flags, got %q", l, got[i])
		}
	}
	n := len(lines) - len(specials)
	want := map[int]string{5: "--offset", 6: "--offset", 7: "tools", 8: "set", 9: "list"}
	for k, w := range want {
		if !has(got[n+k], w) {
			t.Errorf("%q: want %s, got %q", specials[k], w, got[n+k])
		}
	}
	if len(got[n+10]) != 0 {
		t.Errorf("after --, flags are positionals: got %q", got[n+10])
	}
}

// The zsh and fish scripts get descriptions in their own format.
func TestCompletionFormats(t *testing.T) {
	app := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{}).newApp()
	var zsh, fish, plain bytes.Buffer
	complete(app, []string{"openclaw", "tools", completeMarker}, "zsh", &zsh)
	complete(app, []string{"openclaw", "tools", completeMarker}, "fish", &fish)
	complete(app, []string{"openclaw", "tools", completeMarker}, "", &plain)
	if !strings.Contains(zsh.String(), "\nlist:every registered tool") {
		t.Errorf("zsh: %q", zsh.String())
	}
	if !strings.Contains(fish.String(), "\nlist\tevery registered tool") {
		t.Errorf("fish: %q", fish.String())
	}
	if plain.String() != "effective\nlist\nschema\n" {
		t.Errorf("bash: %q", plain.String())
	}
}
