package commands

import (
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/route"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/urfave/cli/v2"
)

// runtime is one CLI invocation: its streams and, loaded only when a command
// needs them, the state paths and the config.
type runtime struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// io decides terminals, colour and width once (iostreams.go).
	io *IOStreams
	// urlFlag is true when --url was typed on this command line: then even
	// a local tool relays. A URL from the environment or config relays only
	// gateway and browser actions (local tools need --remote).
	urlFlag bool

	paths *config.Paths
	cfg   *config.Config
	// sink takes a running tool command's progress and events (sink.go).
	sink *cliSink
	// expectFinal makes a relayed call wait past "accepted" for the final
	// answer (tool commands always; gateway call with --expect-final).
	expectFinal bool
	// relayed is the gateway the last tool call ran on (nil: in this
	// process); --out fetches result files from it (media_out.go).
	relayed *route.Target

	// cmdWord is the top-level command this command line runs (lazyflags.go):
	// only its tool commands get their schema flags built. "" builds all.
	cmdWord string
	// details fills a generated command's flags and help on demand.
	details map[*cli.Command]func(*cli.Command)
}

func newRuntime(stdin io.Reader, stdout, stderr io.Writer) *runtime {
	return &runtime{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv,
		io: newIOStreams(stdin, stdout, stderr, os.Getenv, false)}
}

// Paths resolves the state dir and config path from --profile/--dev and the
// environment.
func (r *runtime) Paths(c *cli.Context) (config.Paths, error) {
	if r.paths != nil {
		return *r.paths, nil
	}
	p, err := config.ResolvePaths(r.getenv, c.String("profile"), c.Bool("dev"))
	if err != nil {
		return p, tools.Errorf(tools.CodeUsage, "%v", err)
	}
	r.paths = &p
	return p, nil
}

// Config loads the config file once; a missing file yields the defaults.
func (r *runtime) Config(c *cli.Context) (*config.Config, error) {
	if r.cfg != nil {
		return r.cfg, nil
	}
	p, err := r.Paths(c)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(p.ConfigPath, r.getenv)
	if err != nil {
		return nil, err
	}
	r.cfg = cfg
	return cfg, nil
}

// Env builds the tool environment for a local invocation.
func (r *runtime) Env(c *cli.Context) (*tools.Env, error) {
	cfg, err := r.Config(c)
	if err != nil {
		return nil, err
	}
	p, _ := r.Paths(c)
	// From the shell, relative paths mean the current directory: the CLI
	// user's workspace is where they stand.
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	env := &tools.Env{Config: cfg, StateDir: p.StateDir, Workspace: wd, Warn: r.stderr,
		Subject: tools.Subject{Kind: tools.CallerUser, AgentID: r.getenv("OPENCLAW_AGENT_ID")}} // the machine's user (tools/caller.go)
	if r.sink != nil {
		env.Sink = r.sink
	}
	// Result files land in <state>/media; nothing is created until a save,
	// which also sweeps old media (at most hourly, bounded).
	env.Media = media.New(p.StateDir).SweepOnSave(cfg)
	return env, nil
}

// stdoutTTY reports whether stdout is a terminal (human output).
func (r *runtime) stdoutTTY() bool { return isTerminal(r.stdout) }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// jsonMode is true with --json or when stdout is not a terminal.
func (r *runtime) jsonMode(c *cli.Context) bool {
	return c.Bool("json") || c.Bool("stream") || !r.stdoutTTY()
}
