package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/mcpserve"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/route"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
)

const mcpServeHelp = `Serves OpenClaw's agent tools to an MCP client (Claude Code, Codex, Cursor, …) over stdio:
one MCP tool per agent tool (browser, cron, web_fetch, …), names unprefixed, schemas as
` + "`openclaw tools schema`" + ` prints them, under your tool policy for provider key "mcp"
(tools.byProvider.mcp in openclaw.json), re-checked at every call. Editing the config updates
the list (notifications/tools/list_changed). Nothing but JSON-RPC is written to stdout; logs go
to stderr. Answers both MCP eras: initialize (2025-06-18, 2025-11-25) and the stateless
2026-07-28 revision (server/discover).

Which tools: --toolsets (default: group:openclaw minus gateway; names: all, default, fs,
runtime, web, ui, nodes, automation, sessions, memory, messaging, media, browser, canvas,
conversations; +x/-x adjust the default), plus --tools, minus --deny; --profile caps the set;
--read-only keeps read-only actions only (each tool's action enum narrowed).

How this differs from the original's ` + "`openclaw mcp serve`" + `: the original bridges Gateway chat
conversations with nine tools. Here --toolsets conversations serves eight of them under the
original's names and arguments, calling sessions_list (conversations_list), session_status
(conversation_get), sessions_history (messages_read), message send on the session's own route
(messages_send) and, when the gateway answers exec.approval.list for these credentials,
exec.approval.list (permissions_list_open) and approval.resolve (permissions_respond), next to the
sessions and message tools; with a named gateway (--url, OPENCLAW_GATEWAY_URL, remote mode)
events_poll/events_wait read its chat and agent events (one kept connection, the last 1000 in
memory). attachments_fetch has no counterpart yet. A stdin line that is not one JSON-RPC message gets a JSON-RPC error (-32700 or
-32600; the original ignores it silently) and the session carries on; lines are capped at 16 MiB.
--claude-channel-mode is accepted and behaves as off (no Claude channel notifications).
--url/--token/--password (and the -file forms) choose the gateway that gateway-side tools (cron,
nodes, process, canvas, sessions) relay to, as for every gateway-backed command.

Register it with a client, e.g. Claude Code:
   claude mcp add openclaw -- openclaw mcp serve --workspace .

EXAMPLES:
   openclaw mcp serve
   openclaw mcp serve --toolsets default,fs,runtime --workspace .
   openclaw mcp serve --read-only --deny browser`

func (r *runtime) mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the agent tools to MCP clients (coding agents); manage saved MCP servers (mcp.servers)",
		Subcommands: append([]*cli.Command{
			{
				Name:        "serve",
				Usage:       "MCP server over stdio: the agent tools, as your tool policy allows (provider key mcp)",
				Description: mcpServeHelp,
				Flags:       append(mcpSelectFlags(), mcpServeFlags()...),
				Action:      r.mcpServe,
			},
			{
				Name:      "tools",
				Usage:     "print the tools/list `openclaw mcp serve` would answer; with a name, a saved server's tools",
				ArgsUsage: "[saved server name]",
				Description: "The same selection flags as `openclaw mcp serve`; prints the tools array of its tools/list\n" +
					"(name, description, inputSchema, annotations, _meta).\n\nEXAMPLES:\n   openclaw mcp tools --json\n" +
					"   openclaw mcp tools --read-only --query '#.name'\n\n" +
					"With a saved server's name, `openclaw mcp tools <name>` connects to it and lists the tools it gives\n" +
					"agents (as <server>__<tool>); with --include/--exclude/--clear it sets the server's toolFilter instead:\n" +
					"   openclaw mcp tools docs\n   openclaw mcp tools docs --include 'search,read_*'",
				Flags: append(append(outputFlags(), mcpSelectFlags()...), mcpServerToolsFlags()...),
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 { // a saved server's tools (mcp_servers.go)
						return r.mcpServerTools(c)
					}
					s, _, err := r.mcpServer(c)
					if err != nil {
						return err
					}
					list := s.Tools()
					if list == nil {
						list = []mcpserve.Tool{}
					}
					return r.emit(c, renderMCPTools, mustJSON(list))
				},
			},
		}, r.mcpServerCommands()...),
	}
}

func mcpSelectFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "toolsets", Usage: "toolsets `LIST` (comma-separated; default: group:openclaw minus gateway)"},
		&cli.StringSliceFlag{Name: "tools", Usage: "add individual tools `LIST` (unknown names are an error)"},
		&cli.StringSliceFlag{Name: "deny", Usage: "remove tools `LIST` (names, globs, group:*, as tools.deny)"},
		&cli.StringFlag{Name: "profile", Usage: "cap the set with tool profile `NAME` (minimal, coding, messaging, full); the state profile goes before the command: openclaw --profile P mcp serve"},
		&cli.StringFlag{Name: "agent", Usage: "agent `ID` whose policy, workspace and exec settings apply (default main)"},
		&cli.StringFlag{Name: "workspace", Usage: "`DIR` relative file paths resolve in (default: the agent workspace); naming one adds the file tools (fs) to the default set"},
		&cli.BoolFlag{Name: "read-only", Usage: "serve read-only actions only (narrows each tool's action enum; drops tools left with none)"},
		&cli.StringFlag{Name: "image-responses", Value: "allow", Usage: "`allow` inline image blocks, or omit them (paths only)"},
		&cli.Int64Flag{Name: "max-image-bytes", Value: mcpserve.DefaultMaxImageBytes, Usage: "largest inline image in `BYTES` (bigger: path and resource_link)"},
		&cli.IntFlag{Name: "max-result-chars", Value: mcpserve.DefaultMaxResultChars, Usage: "cut result text after `N` characters, with a note"},
	}
}

func mcpServeFlags() []cli.Flag {
	return append(connFlags(),
		&cli.StringFlag{Name: "token-file", Usage: "read the gateway token from `FILE`"},
		&cli.StringFlag{Name: "password-file", Usage: "read the gateway password from `FILE`"},
		&cli.StringFlag{Name: "claude-channel-mode", Value: "auto", Usage: "accepted for the original's configs (`auto|on|off`); behaves as off"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "log each call to stderr"},
	)
}

// splitList flattens repeated and comma-separated flag values.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func mcpOptions(c *cli.Context) (mcpserve.Options, error) {
	o := mcpserve.Options{
		Toolsets: splitList(c.StringSlice("toolsets")), Tools: splitList(c.StringSlice("tools")),
		Deny: splitList(c.StringSlice("deny")), DefaultDeny: mcpserve.StdioDeny,
		Profile: c.String("profile"), ReadOnly: c.Bool("read-only"), Files: c.String("workspace") != "",
		MaxImageBytes: c.Int64("max-image-bytes"), MaxResultChars: c.Int("max-result-chars"),
	}
	switch c.String("image-responses") {
	case "allow", "":
	case "omit":
		o.OmitImages = true
	default:
		return o, usageError("--image-responses is allow or omit, not %q", c.String("image-responses"))
	}
	return o, o.Check()
}

// mcpEnv is the serve process's environment, rebuilt on a config reload.
type mcpEnv struct {
	mu  sync.Mutex
	env *tools.Env
	// events and gw: the gateway event buffer of serve and the named
	// gateway its one kept connection fills it from (nil: none named).
	events *mcpserve.Events
	gw     route.Target
}

func (m *mcpEnv) get() (*tools.Env, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.env, nil
}

// mcpServer builds the server for this command line and returns the
// config path it reads.
func (r *runtime) mcpServer(c *cli.Context) (*mcpserve.Server, *mcpEnv, error) {
	o, err := mcpOptions(c)
	if err != nil {
		return nil, nil, err
	}
	p, err := r.Paths(c)
	if err != nil {
		return nil, nil, err
	}
	ws := c.String("workspace")
	if ws != "" {
		if ws, err = filepath.Abs(ws); err != nil {
			return nil, nil, fmt.Errorf("--workspace: %w", err)
		}
	}
	me := &mcpEnv{}
	if err := r.mcpLoad(me, p, ws); err != nil {
		return nil, nil, err
	}
	cfg := mcpserve.Config{Options: o, Env: me.get, AgentID: c.String("agent"), Version: Version}
	if c.Command.Name == "serve" {
		rt, err := r.mcpRouter(c, me)
		if err != nil {
			return nil, nil, err
		}
		cfg.Run = mcpRunner(rt)
		if t := rt.Target(); t.Named {
			me.events, me.gw = mcpserve.NewEvents(0), t
			cfg.Events = me.events
		}
		level := slog.LevelWarn
		if c.Bool("verbose") {
			level = slog.LevelInfo
		}
		cfg.Log = slog.New(slog.NewTextHandler(r.stderr, &slog.HandlerOptions{Level: level}))
	}
	s, err := mcpserve.New(cfg)
	return s, me, err
}

// mcpLoad (re)reads the config into me.
func (r *runtime) mcpLoad(me *mcpEnv, p config.Paths, ws string) error {
	cfg, err := config.Load(p.ConfigPath, r.getenv)
	if err != nil {
		return err
	}
	env := &tools.Env{Config: cfg, StateDir: p.StateDir, Workspace: ws}
	env.Media = media.New(p.StateDir).SweepOnSave(cfg)
	me.mu.Lock()
	me.env = env
	me.mu.Unlock()
	return nil
}

// mcpRouter relays the actions that run on a gateway (Where), as the CLI.
func (r *runtime) mcpRouter(c *cli.Context, me *mcpEnv) (*route.Router, error) {
	target, err := r.target(c)
	if err != nil {
		return nil, err
	}
	for flag, dst := range map[string]*string{"token-file": &target.Token, "password-file": &target.Password} {
		if f := c.String(flag); f != "" {
			v, err := readSecretFile(f)
			if err != nil {
				return nil, usageError("--%s: %v", flag, err)
			}
			*dst = v
		}
	}
	return route.New(route.Options{
		Target: target, Timeout: c.Duration("timeout"), ExpectFinal: true, AgentID: c.String("agent"),
		Env:    me.get,
		Client: client.Options{ClientID: "cli", ClientMode: "cli", Version: Version},
	}), nil
}

// mcpRunner runs a call here through tools.Invoke (caller kind mcp), or
// relays it when its action runs on the gateway.
func mcpRunner(rt *route.Router) mcpserve.Runner {
	return func(ctx context.Context, env *tools.Env, tool string, a *tools.Action, args json.RawMessage) (json.RawMessage, error) {
		if a != nil && rt.Relays(a) {
			return rt.Run(ctx, a, args)
		}
		return mcpserve.Invoke(ctx, env, tool, a, args)
	}
}

func (r *runtime) mcpServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("mcp serve takes no arguments")
	}
	s, me, err := r.mcpServer(c)
	if err != nil {
		// Nothing on stdout but JSON-RPC: the error goes to stderr only.
		te := tools.AsError(err)
		fmt.Fprintf(r.stderr, "openclaw: %s\n", te.Message)
		return exitCode(te.ExitCode())
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	p, _ := r.Paths(c)
	ws := c.String("workspace")
	if ws != "" {
		ws, _ = filepath.Abs(ws)
	}
	if err := mcpserve.WatchFile(ctx, p.ConfigPath, func() {
		if err := r.mcpLoad(me, p, ws); err != nil {
			fmt.Fprintf(r.stderr, "openclaw mcp: config reload failed, keeping the previous one: %v\n", err)
			return
		}
		if err := s.Refresh(); err != nil {
			fmt.Fprintf(r.stderr, "openclaw mcp: tool list refresh failed: %v\n", err)
		}
	}); err != nil {
		fmt.Fprintf(r.stderr, "openclaw mcp: %v (config edits need a restart)\n", err)
	}
	if me.events != nil {
		// One kept connection (reconnecting) buffers the named gateway's
		// chat and agent events for events_poll/events_wait.
		sess := client.Connect(ctx, client.Options{URL: me.gw.URL, Token: me.gw.Token, Password: me.gw.Password,
			ClientID: "cli", ClientMode: "cli", Version: Version, Scopes: []string{protocol.ScopeRead},
			OnEvent: func(ev protocol.Event) { me.events.Add(ev.Event, ev.Payload) }}, nil)
		defer sess.Close()
	}
	err = s.MCP().Run(ctx, s.StdioTransport(ctx, r.stdin, r.stdout))
	switch {
	case err == nil, ctx.Err() != nil: // stdin closed; SIGTERM or interrupt
		return nil
	case strings.Contains(err.Error(), "EOF"):
		return nil
	}
	// Only JSON-RPC on stdout, even now: the reason goes to stderr.
	fmt.Fprintf(r.stderr, "openclaw mcp serve: session ended: %v\n", err)
	return exitCode(1)
}

func renderMCPTools(w io.Writer, r gjson.Result) error {
	for _, t := range r.Array() {
		flags := ""
		if t.Get("annotations.readOnlyHint").Bool() {
			flags = " (read-only)"
		}
		if _, err := fmt.Fprintf(w, "%-18s %s%s\n", t.Get("name").String(), cut(t.Get("description").String(), 90), flags); err != nil {
			return err
		}
	}
	return nil
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// maxSecretFile caps a --token-file or --password-file read: a secret is a
// line, so anything larger is a wrong path, not a token.
const maxSecretFile = 64 << 10

// readSecretFile reads a secret file (symlinks followed: mounted secrets
// are links) to at most maxSecretFile bytes, trimmed.
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxSecretFile {
		return "", fmt.Errorf("%s is larger than %d bytes", path, maxSecretFile)
	}
	return strings.TrimSpace(string(b)), nil
}
