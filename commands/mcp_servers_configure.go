package commands

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/mcpclient"
	"github.com/openclaw-go/openclaw/tools"
)

// `openclaw mcp configure <name>`: the original's operator controls on a
// saved server without replacing its definition.

func (r *runtime) mcpConfigureCommand() *cli.Command {
	return &cli.Command{
		Name: "configure", Usage: "change a saved MCP server's enablement, tool filter, timeouts or TLS without replacing it", ArgsUsage: "<name>",
		Description: "EXAMPLES:\n   openclaw mcp configure docs --disable\n" +
			"   openclaw mcp configure docs --timeout 20 --connect-timeout 5 --include 'search,read_*'\n" +
			"   openclaw mcp configure docs --enable --probe",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON (the default when stdout is not a terminal)"},
			&cli.BoolFlag{Name: "enable", Usage: "enable this saved server"},
			&cli.BoolFlag{Name: "disable", Usage: "disable this saved server (kept, unused)"},
			&cli.StringFlag{Name: "include", Usage: "comma-separated MCP tool names or '*' globs to expose (`CSV`)"},
			&cli.StringFlag{Name: "exclude", Usage: "comma-separated MCP tool names or '*' globs to hide (`CSV`)"},
			&cli.BoolFlag{Name: "clear-tools", Usage: "clear the tool filter"},
			&cli.StringFlag{Name: "timeout", Usage: "per-request timeout in `SECONDS`"},
			&cli.StringFlag{Name: "connect-timeout", Usage: "connection timeout in `SECONDS`"},
			&cli.BoolFlag{Name: "clear-timeouts", Usage: "clear both timeout overrides"},
			&cli.BoolFlag{Name: "parallel", Usage: "mark this server safe for concurrent tool calls"},
			&cli.BoolFlag{Name: "no-parallel", Usage: "clear the concurrent tool-call mark"},
			&cli.StringFlag{Name: "approval", Usage: "Codex MCP tool approval `MODE`: auto, prompt or approve (saved, unused here)"},
			&cli.StringFlag{Name: "ssl-verify", Usage: "verify HTTPS certificates: `true` or false"},
			&cli.StringFlag{Name: "client-cert", Usage: "HTTP mutual TLS client certificate `PATH`"},
			&cli.StringFlag{Name: "client-key", Usage: "HTTP mutual TLS client key `PATH`"},
			&cli.BoolFlag{Name: "clear-tls", Usage: "clear sslVerify and the mutual TLS paths"},
			&cli.BoolFlag{Name: "probe", Usage: "connect to the updated server before saving"},
		},
		Action: r.mcpConfigure,
	}
}

func (r *runtime) mcpConfigure(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("mcp configure takes <name>")
	}
	name := c.Args().First()
	if c.Bool("enable") && c.Bool("disable") {
		return usageError("Specify only one of --enable or --disable.")
	}
	if c.Bool("parallel") && c.Bool("no-parallel") {
		return usageError("Specify only one of --parallel or --no-parallel.")
	}
	s, err := r.mcpLoadSaved(c)
	if err != nil {
		return err
	}
	cur, err := s.require(name)
	if err != nil {
		return err
	}
	next, err := configureServer(c, cur)
	if err != nil {
		return err
	}
	if c.Bool("probe") {
		srv, err := mcpclient.Resolve(name, next)
		if err != nil {
			return tools.Errorf(tools.CodeInvalidParams, "MCP server %q cannot run: %v", name, err)
		}
		if srv.Enabled {
			res := mcpclient.Probe(c.Context, []mcpclient.Server{srv}, r.mcpClientOptions(c))
			if len(res.Diagnostics) > 0 {
				return tools.Errorf(tools.CodeFailed, "MCP probe failed for %q: %s (nothing saved)", name, res.Diagnostics[0].Message)
			}
		}
	}
	return r.mcpWrite(c, name, "updated", func(servers map[string]any) error {
		if _, ok := servers[name].(map[string]any); !ok {
			return errNoSuchServer
		}
		servers[name] = next
		return nil
	})
}

// configureServer applies the flags to a copy of the saved definition.
func configureServer(c *cli.Context, cur map[string]any) (map[string]any, error) {
	next := make(map[string]any, len(cur))
	for k, v := range cur {
		next[k] = v
	}
	if c.Bool("enable") {
		delete(next, "enabled")
	}
	if c.Bool("disable") {
		next["enabled"] = false
	}
	if c.Bool("clear-tools") {
		delete(next, "toolFilter")
	} else {
		inc, exc := csvList(c.String("include")), csvList(c.String("exclude"))
		if inc != nil || exc != nil {
			setToolFilter(next, inc, exc)
		}
	}
	if c.Bool("clear-timeouts") {
		delete(next, "requestTimeoutMs")
		delete(next, "connectionTimeoutMs")
	}
	for flag, key := range map[string]string{"timeout": "requestTimeoutMs", "connect-timeout": "connectionTimeoutMs"} {
		secs, ok, err := secondsFlag(c, flag)
		if err != nil {
			return nil, err
		}
		if ok {
			next[key] = secs * 1000
		}
	}
	if c.Bool("parallel") {
		next["supportsParallelToolCalls"] = true
	}
	if c.Bool("no-parallel") {
		delete(next, "supportsParallelToolCalls")
	}
	if c.IsSet("approval") {
		mode := strings.ToLower(strings.TrimSpace(c.String("approval")))
		if mode != "auto" && mode != "prompt" && mode != "approve" {
			return nil, usageError(`--approval must be "auto", "prompt", or "approve".`)
		}
		codex := map[string]any{}
		if old, ok := next["codex"].(map[string]any); ok {
			for k, v := range old {
				codex[k] = v
			}
		}
		codex["defaultToolsApprovalMode"] = mode
		next["codex"] = codex
	}
	if c.Bool("clear-tls") {
		for _, k := range []string{"sslVerify", "clientCert", "clientKey"} {
			delete(next, k)
		}
	}
	if c.IsSet("ssl-verify") {
		switch strings.ToLower(c.String("ssl-verify")) {
		case "true":
			next["sslVerify"] = true
		case "false":
			next["sslVerify"] = false
		default:
			return nil, usageError("--ssl-verify must be true or false.")
		}
	}
	for flag, key := range map[string]string{"client-cert": "clientCert", "client-key": "clientKey"} {
		if v := strings.TrimSpace(c.String(flag)); v != "" {
			next[key] = v
		}
	}
	if _, err := mcpclient.Resolve("", next); err != nil {
		if b, ok := next["enabled"].(bool); !ok || b {
			return nil, tools.Errorf(tools.CodeInvalidParams, "the updated server cannot run: %v", err)
		}
	}
	return next, nil
}
