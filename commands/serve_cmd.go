package commands

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/urfave/cli/v2"
)

func serveFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "port", Usage: "listen on `PORT` (default OPENCLAW_GATEWAY_PORT, gateway.port, 18789; 19001 with --dev; with --profile NAME one derived from NAME: `openclaw --profile NAME config get gateway.port` prints it)"},
		&cli.StringFlag{Name: "bind", Usage: "loopback|lan|custom (default gateway.bind, loopback)"},
		&cli.StringFlag{Name: "host", Usage: "address to bind with --bind custom (gateway.customBindHost)"},
		&cli.StringFlag{Name: "auth", Usage: "none|token|password (default gateway.auth.mode)"},
		&cli.StringFlag{Name: "token", Usage: "shared `TOKEN` clients must present (env OPENCLAW_GATEWAY_TOKEN)", EnvVars: []string{"OPENCLAW_GATEWAY_TOKEN"}},
		&cli.StringFlag{Name: "password", Usage: "shared `PASSWORD` (env OPENCLAW_GATEWAY_PASSWORD)", EnvVars: []string{"OPENCLAW_GATEWAY_PASSWORD"}},
		&cli.StringFlag{Name: "password-file", Usage: "read the password from `FILE`"},
		&cli.BoolFlag{Name: "force", Usage: "stop whatever listens on the port first (SIGTERM, then SIGKILL after 3 s)"},
		&cli.BoolFlag{Name: "allow-unconfigured", Usage: "accepted for compatibility (this gateway always starts on its defaults)"},
		&cli.BoolFlag{Name: "verbose", Usage: "log every request"},
	}
}

// serveCommand is `openclaw serve`, also reachable as `openclaw gateway run`.
func (r *runtime) serveCommand(name string) *cli.Command {
	return &cli.Command{
		Name:  name,
		Usage: "run the gateway: the tool registry over OpenClaw's WebSocket protocol v4",
		Description: "Listens on one port for HTTP and WebSocket, loopback only unless --bind says otherwise\n" +
			"(which then needs --auth token or password). SIGTERM, SIGINT and SIGHUP drain and stop (exit 0\n" +
			"after a clean drain, 1 when requests were still running at the drain deadline); SIGUSR1 reloads\n" +
			"the config in place. One gateway per state dir: a second one on the same state dir exits 1,\n" +
			"naming the pid and port of the one running (its lock is <state>/gateway.lock).\n\nEXAMPLES:\n   openclaw serve\n   openclaw serve --auth token --token s3cret --port 18790\n   openclaw --dev serve",
		Flags:  serveFlags(),
		Action: r.serve,
	}
}

func (r *runtime) serve(c *cli.Context) error {
	if c.NArg() > 0 {
		return tools.Errorf(tools.CodeUsage, "openclaw serve takes no arguments, got %q (see `openclaw serve --help`)", c.Args().First())
	}
	p, err := r.Paths(c)
	if err != nil {
		return err
	}
	cfg, err := r.Config(c)
	if err != nil {
		return err
	}
	// Auth comes from flags (or their env vars) only; left empty, the gateway
	// reads gateway.auth.* itself so a hot reload can rotate it.
	opts := gateway.Options{
		Bind:     firstNonEmpty(c.String("bind"), cfg.String("gateway.bind", ""), "loopback"),
		Host:     firstNonEmpty(c.String("host"), cfg.String("gateway.customBindHost", "")),
		AuthMode: c.String("auth"),
		Token:    c.String("token"),
		Password: c.String("password"),
		Paths:    p,
		Config:   cfg,
		Version:  Version,
		Verbose:  c.Bool("verbose"),
		Log:      r.stderr,
		Getenv:   r.getenv,
	}
	if f := c.String("password-file"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return tools.Errorf(tools.CodeUsage, "--password-file: %v", err)
		}
		opts.Password = strings.TrimSpace(string(b))
	}
	if port := c.Int("port"); c.IsSet("port") && (port < 1 || port > 65535) {
		return tools.Errorf(tools.CodeUsage, "--port %d is not a TCP port: give one from 1 to 65535 (see `openclaw serve --help`)", port)
	}
	opts.Port = gateway.ResolvePort(c.Int("port"), p, cfg, r.getenv)
	if opts.Port > 65535 {
		return tools.Errorf(tools.CodeUsage, "port %d (OPENCLAW_GATEWAY_PORT or gateway.port) is not a TCP port: give one from 1 to 65535", opts.Port)
	}
	var lockWait time.Duration
	if c.Bool("force") {
		pids, err := gateway.FreePort(opts.Port, 3*time.Second)
		if err != nil {
			return err
		}
		if len(pids) > 0 {
			fmt.Fprintf(r.stderr, "openclaw serve --force: stopped pid %v on port %d\n", pids, opts.Port)
			lockWait = 10 * time.Second // the stopped gateway may still hold the state dir while it exits
		}
	}
	// One gateway per state dir, locked before New opens the database and
	// recovers the previous run's jobs: a second gateway's recovery would
	// end the first one's running commands (exit 1, naming the holder).
	lock, err := gateway.LockState(p.StateDir, opts.Port, lockWait)
	if err != nil {
		return err
	}
	defer lock.Release()
	srv, err := gateway.New(opts)
	if err != nil {
		// Option and config errors are usage (2); state errors (a corrupt
		// database) carry their own code (FAILED: exit 1).
		var fe *tools.Error
		if errors.As(err, &fe) {
			return fe
		}
		return tools.Errorf(tools.CodeUsage, "%v", err)
	}
	if err := srv.Listen(); err != nil {
		return err
	}
	if err := lock.SetPort(srv.Port()); err != nil {
		return err
	}
	if r.io.errTTY {
		fmt.Fprint(r.stderr, connectHint(srv, opts, r.profileFlags()))
	}

	// SIGHUP (terminal closed, SSH dropped) stops like SIGTERM: drain,
	// shutdown event, close 1012 — never the default abrupt exit.
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-usr1:
				if err := srv.Reload(); err != nil {
					fmt.Fprintf(r.stderr, "openclaw gateway: reload: %v\n", err)
				}
			}
		}
	}()
	return srv.Serve(ctx)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// connectHint tells a person at a terminal how to reach the gateway they
// just started. The secret itself is never printed (terminals are
// recorded and screen-shared): it says where it is.
func connectHint(srv *gateway.Server, opts gateway.Options, profile string) string {
	url := "ws://" + srv.Addr()
	var b strings.Builder
	fmt.Fprintf(&b, "Gateway ready on %s.\n", url)
	switch srv.AuthMode() {
	case gateway.AuthNone:
		fmt.Fprintf(&b, "  Connect:   openclaw %shealth --url %s   (auth none: loopback only)\n", profile, url)
		return b.String()
	case gateway.AuthPassword:
		fmt.Fprintf(&b, "  Connect:   openclaw %shealth --url %s --password <password>\n", profile, url)
	default:
		fmt.Fprintf(&b, "  Connect:   openclaw %shealth --url %s --token <token>\n", profile, url)
	}
	where := "the --token/--password given to serve (or OPENCLAW_GATEWAY_TOKEN/_PASSWORD)"
	if opts.Token == "" && opts.Password == "" {
		where = srv.AuthSource()
	}
	fmt.Fprintf(&b, "  Secret:    %s\n", where)
	return b.String()
}
