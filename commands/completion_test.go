package commands

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/porttest"
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
// COMPREPLY per line. The lines are shared out over a few bash processes
// run at once (one binary run per line is the cost, and much of a run is
// waiting on exec). A run is killed (and the test fails) if a line blocks,
// as `serve` would if completion started it.
func bashComplete(t *testing.T, dir string, env []string, lines [][]string) [][]string {
	t.Helper()
	shards := min(max(2*goruntime.NumCPU(), 2), 8, len(lines))
	out := make([][]string, len(lines))
	errs := make([]error, shards)
	var wg sync.WaitGroup
	for i := range shards {
		lo, hi := i*len(lines)/shards, (i+1)*len(lines)/shards
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = bashCompleteShard(dir, env, lines[lo:hi], out[lo:hi])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// bashCompleteShard is one bash process completing lines into out.
func bashCompleteShard(dir string, env []string, lines [][]string, out [][]string) error {
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
	// A hang guard, not a timing: a line that blocks (as `serve` would)
	// keeps the shard from ever ending. It grows with the lines a shard
	// runs (every family adds commands; a line is one binary run, ~25 ms,
	// several times that under -race on a loaded machine).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute+time.Duration(len(lines))*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("bash completion run: %v (a completion blocked or failed?)\nstderr: %s", err, stderr.String())
	}
	parts := strings.Split(stdout.String(), "###\n")[1:]
	if len(parts) != len(lines) {
		return fmt.Errorf("got %d answers for %d lines:\n%s", len(parts), len(lines), stdout.String())
	}
	for i, p := range parts {
		out[i] = strings.Fields(p)
	}
	return nil
}

// quickRaceExit is the GORACE setting for the many short runs of the test
// binary a completion test makes. Under -race every process sleeps 1 s at
// exit (atexit_sleep_ms, default 1000) to let other goroutines report, so
// one run per completed line took the test past 2 minutes; with 0 a run
// takes ~25 ms. The sleep only gives goroutines still running at exit time
// to report, and the completion function discards the runs' stderr anyway.
// GORACE options already set are kept; without -race GORACE is ignored.
func quickRaceExit() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// completionLines are the lines TestCompletionNeverRunsACommand completes
// for each command: "--" (after it a flag is a positional, so a command
// that does not stop for completion would run) and "-" (stdin) on every
// command, a partial flag ("--p" or "--h", taking turns) on each, and the
// arguments that would make a command act (none, positionals, flags
// naming a file and its content) each once per command, in an order that
// shifts from one command to the next, so across the tree every word
// meets every set of arguments. Each line is one run of the binary:
// every pairing on every command (twelve runs each) took the test to Go's
// 10-minute limit on a loaded 2-core machine.
func completionLines(paths [][]string) [][]string {
	args := [][]string{nil, {"new.txt", "foo.x"}, {"--path", "new.txt", "--content", "hi", "--dir", "."}}
	var lines [][]string
	for i, p := range paths {
		partial := "--p"
		if i%2 == 1 {
			partial = "--h"
		}
		for j, cur := range []string{"--", "-", partial} {
			l := append(append([]string{}, p...), args[(i+j)%len(args)]...)
			lines = append(lines, append(l, cur))
		}
	}
	return lines
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
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, ".openclaw"),
		"OPENCLAW_GATEWAY_PORT="+strconv.Itoa(port), "NO_COLOR=1", quickRaceExit())

	app := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{}).newApp()
	lines := completionLines(commandPaths(app.Commands, nil))
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
