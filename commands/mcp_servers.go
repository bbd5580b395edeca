package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/mcpclient"
	"github.com/openclaw-go/openclaw/tools"
)

// The saved-MCP-server registry verbs (issue 32): `openclaw mcp list|show|
// status|doctor|probe|add|set|unset|tools <name>` read and write
// mcp.servers as the original does. Only probe, doctor --probe, add (unless
// --no-probe) and `tools <name>` without filter flags connect to a server.

const mcpRegistryHelp = `
Saved MCP servers live under mcp.servers in openclaw.json, as in the original: stdio servers
({"command","args","env","cwd"}) and HTTP servers ({"url","transport":"streamable-http"|"sse",
"headers"}), with enabled, requestTimeoutMs, connectionTimeoutMs, supportsParallelToolCalls and
toolFilter {include,exclude}. A running gateway (openclaw serve) connects to every enabled server
and gives agent turns their tools as <server>__<tool>, under the tool policy like every tool
(tools.deny: ["bundle-mcp"] or ["<server>__*"] removes them; the minimal profile hides them).`

func (r *runtime) mcpServerCommands() []*cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON (the default when stdout is not a terminal)"}
	return []*cli.Command{
		{
			Name: "list", Usage: "list the saved MCP servers (mcp.servers), sorted by name",
			Description: "EXAMPLES:\n   openclaw mcp list\n   openclaw mcp list --json" + mcpRegistryHelp,
			Flags:       []cli.Flag{jsonFlag}, Action: r.mcpList,
		},
		{
			Name: "show", Usage: "show one saved MCP server, or all of mcp.servers", ArgsUsage: "[name]",
			Description: "EXAMPLES:\n   openclaw mcp show\n   openclaw mcp show docs --json",
			Flags:       []cli.Flag{jsonFlag}, Action: r.mcpShow,
		},
		{
			Name: "status", Usage: "classify each saved MCP server's transport without connecting",
			Description: "EXAMPLES:\n   openclaw mcp status --verbose\n   openclaw mcp status --json",
			Flags: []cli.Flag{jsonFlag,
				&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show launch, timeouts and tool filters"}},
			Action: r.mcpStatus,
		},
		{
			Name: "probe", Usage: "connect to the saved MCP servers (or one) and list their capabilities", ArgsUsage: "[name]",
			Description: "Exits 1 after printing the report when a selected enabled server did not connect.\n\n" +
				"EXAMPLES:\n   openclaw mcp probe\n   openclaw mcp probe docs --json",
			Flags:  []cli.Flag{jsonFlag, &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "pass the servers' stderr through"}},
			Action: r.mcpProbe,
		},
		r.mcpDoctorCommand(),
		r.mcpConfigureCommand(),
		{
			Name: "add", Usage: "save one MCP server from flags, probing it first", ArgsUsage: "<name>",
			Description: "EXAMPLES:\n   openclaw mcp add memory --command npx --arg -y --arg @modelcontextprotocol/server-memory\n" +
				"   openclaw mcp add docs --url https://mcp.example.com/mcp --transport streamable-http --include 'search,read_*'",
			Flags:  mcpAddFlags(),
			Action: r.mcpAdd,
		},
		{
			Name: "set", Usage: "save one MCP server from a JSON object", ArgsUsage: "<name> <json>",
			Description: "The object replaces the saved definition. type:\"http\" is saved as transport:\"streamable-http\".\n\n" +
				"EXAMPLES:\n   openclaw mcp set context7 '{\"command\":\"uvx\",\"args\":[\"context7-mcp\"]}'\n" +
				"   openclaw mcp set docs '{\"url\":\"https://mcp.example.com\",\"transport\":\"streamable-http\"}'",
			Flags: []cli.Flag{jsonFlag}, Action: r.mcpSet,
		},
		{
			Name: "unset", Usage: "remove one saved MCP server", ArgsUsage: "<name>",
			Description: "EXAMPLES:\n   openclaw mcp unset context7",
			Flags:       []cli.Flag{jsonFlag}, Action: r.mcpUnset,
		},
	}
}

func mcpAddFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print JSON (the default when stdout is not a terminal)"},
		&cli.StringFlag{Name: "command", Usage: "stdio `COMMAND` to spawn"},
		&cli.StringSliceFlag{Name: "arg", Usage: "stdio argument `VALUE` (repeatable)"},
		&cli.StringSliceFlag{Name: "env", Usage: "stdio environment entry `KEY=VALUE` (repeatable)"},
		&cli.StringFlag{Name: "cwd", Usage: "working `DIR` of the stdio server"},
		&cli.StringFlag{Name: "url", Usage: "HTTP MCP server `URL`"},
		&cli.StringFlag{Name: "transport", Usage: "HTTP transport: `streamable-http` or sse"},
		&cli.StringSliceFlag{Name: "header", Usage: "HTTP header `KEY=VALUE` (repeatable)"},
		&cli.StringFlag{Name: "include", Usage: "comma-separated MCP tool names or '*' globs to expose (`CSV`)"},
		&cli.StringFlag{Name: "exclude", Usage: "comma-separated MCP tool names or '*' globs to hide (`CSV`)"},
		&cli.StringFlag{Name: "timeout", Usage: "per-request timeout in `SECONDS`"},
		&cli.StringFlag{Name: "connect-timeout", Usage: "connection timeout in `SECONDS`"},
		&cli.BoolFlag{Name: "parallel", Usage: "mark this server safe for concurrent tool calls"},
		&cli.BoolFlag{Name: "disabled", Usage: "save the server disabled"},
		&cli.StringFlag{Name: "ssl-verify", Usage: "verify HTTPS certificates: `true` or false"},
		&cli.StringFlag{Name: "client-cert", Usage: "HTTP mutual TLS client certificate `PATH`"},
		&cli.StringFlag{Name: "client-key", Usage: "HTTP mutual TLS client key `PATH`"},
		&cli.StringFlag{Name: "approval", Usage: "Codex MCP tool approval `MODE`: auto, prompt or approve (saved, unused here)"},
		&cli.BoolFlag{Name: "no-probe", Usage: "save without connecting first"},
	}
}

// mcpServerToolsFlags are the original's `mcp tools <name>` filter flags,
// added to our `mcp tools`.
func mcpServerToolsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "include", Usage: "with a server name: set toolFilter.include to `CSV` (names or '*' globs)"},
		&cli.StringFlag{Name: "exclude", Usage: "with a server name: set toolFilter.exclude to `CSV`"},
		&cli.BoolFlag{Name: "clear", Usage: "with a server name: clear its toolFilter"},
	}
}

// mcpSaved is mcp.servers as loaded, with the config path.
type mcpSaved struct {
	path    string
	cfg     *config.Config
	servers map[string]map[string]any
}

func (r *runtime) mcpLoadSaved(c *cli.Context) (*mcpSaved, error) {
	p, err := r.Paths(c)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(p.ConfigPath, r.getenv)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%v (fix it first: openclaw config validate)", err)
	}
	if !cfg.Valid() {
		return nil, tools.Errorf(tools.CodeFailed, "Config file is invalid; fix it before using MCP config commands: %s",
			config.FormatIssues(p.ConfigPath, cfg.Issues()))
	}
	return &mcpSaved{path: p.ConfigPath, cfg: cfg, servers: mcpclient.Raw(cfg)}, nil
}

func (s *mcpSaved) require(name string) (map[string]any, error) {
	if srv, ok := s.servers[name]; ok {
		return srv, nil
	}
	return nil, unknownMCPServer(name, s.path)
}

func unknownMCPServer(name, path string) error {
	return tools.Errorf(tools.CodeNotFound, "No MCP server named %q in %s. Run `openclaw mcp list` to see configured servers.", name, path)
}

func (r *runtime) mcpList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("mcp list takes no arguments")
	}
	s, err := r.mcpLoadSaved(c)
	if err != nil {
		return err
	}
	return r.emit(c, func(w io.Writer, v gjson.Result) error {
		names := mcpclient.Names(s.servers)
		if len(names) == 0 {
			_, err := fmt.Fprintf(w, "No OpenClaw-managed MCP servers configured in %s. Add one with `openclaw mcp set <name> '{\"command\":\"uvx\",\"args\":[\"context7-mcp\"]}'`.\n", s.path)
			return err
		}
		fmt.Fprintf(w, "OpenClaw-managed MCP servers (%s):\n", s.path)
		for _, n := range names {
			fmt.Fprintf(w, "- %s\n", n)
		}
		return nil
	}, mustJSON(s.servers))
}

func (r *runtime) mcpShow(c *cli.Context) error {
	if c.NArg() > 1 {
		return usageError("mcp show takes at most one server name")
	}
	s, err := r.mcpLoadSaved(c)
	if err != nil {
		return err
	}
	var value any = s.servers
	header := fmt.Sprintf("OpenClaw-managed MCP servers (%s):", s.path)
	if name := c.Args().First(); name != "" {
		srv, err := s.require(name)
		if err != nil {
			return err
		}
		value = srv
		header = fmt.Sprintf("OpenClaw-managed MCP server %q (%s):", name, s.path)
	}
	return r.emit(c, func(w io.Writer, v gjson.Result) error {
		fmt.Fprintln(w, header)
		return writeIndented(w, json.RawMessage(v.Raw))
	}, mustJSON(value))
}

// mcpStatusEntry is one server of `mcp status --json` (the original's
// fields; error says why a server cannot run).
type mcpStatusEntry struct {
	Name                      string   `json:"name"`
	Configured                bool     `json:"configured"`
	Enabled                   bool     `json:"enabled"`
	OK                        bool     `json:"ok"`
	Transport                 string   `json:"transport,omitempty"`
	Launch                    string   `json:"launch,omitempty"`
	RequestTimeoutMs          int64    `json:"requestTimeoutMs,omitempty"`
	ConnectionTimeoutMs       int64    `json:"connectionTimeoutMs,omitempty"`
	SupportsParallelToolCalls bool     `json:"supportsParallelToolCalls"`
	ToolFilter                any      `json:"toolFilter,omitempty"`
	Auth                      string   `json:"auth,omitempty"`
	Codex                     any      `json:"codex,omitempty"`
	Error                     string   `json:"error,omitempty"`
	DroppedEnv                []string `json:"droppedEnv,omitempty"`
}

func (r *runtime) mcpStatus(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("mcp status takes no arguments")
	}
	s, err := r.mcpLoadSaved(c)
	if err != nil {
		return err
	}
	entries := []mcpStatusEntry{}
	for _, name := range mcpclient.Names(s.servers) {
		raw := s.servers[name]
		srv, rerr := mcpclient.Resolve(name, raw)
		e := mcpStatusEntry{Name: name, Configured: true, Enabled: srv.Enabled, ToolFilter: raw["toolFilter"], Codex: raw["codex"]}
		if a, _ := raw["auth"].(string); a != "" {
			e.Auth = a
		}
		if rerr != nil {
			e.Error = rerr.Error()
		} else {
			e.OK = srv.Enabled
			e.Transport, e.Launch = srv.Transport, srv.Launch()
			e.RequestTimeoutMs, e.ConnectionTimeoutMs = srv.RequestTimeout.Milliseconds(), srv.ConnectTimeout.Milliseconds()
			e.SupportsParallelToolCalls, e.DroppedEnv = srv.Parallel, srv.DroppedEnv
		}
		entries = append(entries, e)
	}
	verbose := c.Bool("verbose")
	return r.emit(c, func(w io.Writer, v gjson.Result) error {
		if len(entries) == 0 {
			_, err := fmt.Fprintf(w, "No MCP servers configured in %s.\n", s.path)
			return err
		}
		fmt.Fprintf(w, "MCP server status (%s):\n", s.path)
		for _, e := range entries {
			transport := e.Transport
			switch {
			case !e.Enabled:
				transport = "disabled"
			case transport == "":
				transport = "invalid"
			}
			line := "- " + e.Name + ": " + transport
			if e.Auth == "oauth" {
				line += " oauth"
			}
			if e.ToolFilter != nil {
				line += " tool-filtered"
			}
			if e.SupportsParallelToolCalls {
				line += " parallel"
			}
			fmt.Fprintln(w, line)
			if e.Error != "" {
				fmt.Fprintf(w, "  error: %s\n", e.Error)
			}
			if !verbose {
				continue
			}
			launch := e.Launch
			if launch == "" {
				launch = "n/a"
			}
			fmt.Fprintf(w, "  launch: %s\n", launch)
			fmt.Fprintf(w, "  timeouts: connect=%dms request=%dms\n", e.ConnectionTimeoutMs, e.RequestTimeoutMs)
			if e.ToolFilter != nil {
				fmt.Fprintf(w, "  tools: %s\n", mustJSON(e.ToolFilter))
			}
			if len(e.DroppedEnv) > 0 {
				fmt.Fprintf(w, "  env dropped for start-up safety: %s\n", strings.Join(e.DroppedEnv, ", "))
			}
		}
		return nil
	}, mustJSON(map[string]any{"path": s.path, "servers": entries}))
}

// mcpSelect resolves the named server (or every saved one) for a live
// connection; a definition that cannot run is a diagnostic of the probe.
func (s *mcpSaved) selectServers(name string) ([]mcpclient.Server, []mcpclient.Diagnostic, error) {
	names := mcpclient.Names(s.servers)
	if name != "" {
		if _, err := s.require(name); err != nil {
			return nil, nil, err
		}
		names = []string{name}
	}
	var out []mcpclient.Server
	var diags []mcpclient.Diagnostic
	for _, n := range names {
		srv, err := mcpclient.Resolve(n, s.servers[n])
		if err != nil {
			if srv.Enabled {
				diags = append(diags, mcpclient.Diagnostic{ServerName: n, Message: "server transport is invalid: " + err.Error()})
			}
			continue
		}
		out = append(out, srv)
	}
	return out, diags, nil
}

func (r *runtime) mcpClientOptions(c *cli.Context) mcpclient.Options {
	o := mcpclient.Options{ClientName: "openclaw", Version: Version}
	if c.Bool("verbose") {
		o.Stderr = r.stderr
	}
	return o
}

func (r *runtime) mcpProbe(c *cli.Context) error {
	if c.NArg() > 1 {
		return usageError("mcp probe takes at most one server name")
	}
	s, err := r.mcpLoadSaved(c)
	if err != nil {
		return err
	}
	name := c.Args().First()
	servers, diags, err := s.selectServers(name)
	if err != nil {
		return err
	}
	if name != "" && len(servers) == 1 && !servers[0].Enabled {
		return tools.Errorf(tools.CodeFailed, "MCP server %q is disabled in %s. Run `openclaw mcp configure %s --enable` before probing it.", name, s.path, name)
	}
	enabled := 0
	for _, srv := range servers {
		if srv.Enabled {
			enabled++
		}
	}
	if enabled == 0 && len(diags) == 0 && !r.jsonMode(c) {
		_, err := fmt.Fprintf(r.stdout, "No enabled MCP servers in %s. Add one with `openclaw mcp add <name> --command <command>`.\n", s.path)
		return err
	}
	res := mcpclient.Probe(c.Context, servers, r.mcpClientOptions(c))
	res.Diagnostics = append(diags, res.Diagnostics...)
	sort.SliceStable(res.Diagnostics, func(i, j int) bool { return res.Diagnostics[i].ServerName < res.Diagnostics[j].ServerName })
	if err := c.Context.Err(); err != nil {
		return tools.Errorf(tools.CodeInterrupted, "interrupted")
	}
	err = r.emit(c, func(w io.Writer, v gjson.Result) error {
		fmt.Fprintf(w, "MCP probe (%s):\n", s.path)
		for _, n := range sortedKeys(res.Servers) {
			p := res.Servers[n]
			extra := ""
			if p.Resources {
				extra += ", resources"
			}
			if p.Prompts {
				extra += ", prompts"
			}
			fmt.Fprintf(w, "- %s: %d tools%s\n", n, p.Tools, extra)
		}
		for _, d := range res.Diagnostics {
			fmt.Fprintf(w, "! %s: %s\n", d.ServerName, d.Message)
		}
		return nil
	}, mustJSON(res))
	if err != nil {
		return err
	}
	if len(res.Diagnostics) > 0 {
		// The report is on stdout already: one line on stderr and exit 1,
		// no second JSON document (the original's `mcp probe` contract).
		d := res.Diagnostics[0]
		fmt.Fprintf(r.stderr, "MCP probe failed for %q in %s: %s\n", d.ServerName, s.path, oneLine(d.Message))
		return exitCode(1)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// csvList splits a comma-separated flag; nil when it names nothing.
func csvList(v string) []any {
	var out []any
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func keyValues(vals []string, flag string) (map[string]any, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, kv := range vals {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageError("--%s entries must use KEY=VALUE, got %q", flag, kv)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

func secondsFlag(c *cli.Context, flag string) (float64, bool, error) {
	if !c.IsSet(flag) {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(c.String(flag)), 64)
	if err != nil || f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, usageError("--%s must be a positive number of seconds, got %q", flag, c.String(flag))
	}
	return f, true, nil
}

func (r *runtime) mcpAdd(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("mcp add takes <name> (and flags: --command for stdio or --url for HTTP)")
	}
	name := strings.TrimSpace(c.Args().First())
	if err := checkMCPName(name); err != nil {
		return err
	}
	command, url := strings.TrimSpace(c.String("command")), strings.TrimSpace(c.String("url"))
	switch {
	case command != "" && url != "":
		return usageError("Specify either --command for stdio or --url for HTTP, not both.")
	case command == "" && url == "":
		return usageError("Specify --command for stdio or --url for HTTP.")
	}
	srv := map[string]any{}
	if command != "" {
		srv["command"] = command
		if args := c.StringSlice("arg"); len(args) > 0 {
			list := make([]any, len(args))
			for i, a := range args {
				list[i] = a
			}
			srv["args"] = list
		}
		env, err := keyValues(c.StringSlice("env"), "env")
		if err != nil {
			return err
		}
		if env != nil {
			srv["env"] = env
		}
		if cwd := strings.TrimSpace(c.String("cwd")); cwd != "" {
			srv["cwd"] = cwd
		}
	} else {
		srv["url"] = url
		if t := strings.TrimSpace(c.String("transport")); t != "" {
			srv["transport"] = t
		}
		headers, err := keyValues(c.StringSlice("header"), "header")
		if err != nil {
			return err
		}
		if headers != nil {
			srv["headers"] = headers
		}
		if c.IsSet("ssl-verify") {
			switch strings.ToLower(c.String("ssl-verify")) {
			case "true":
				srv["sslVerify"] = true
			case "false":
				srv["sslVerify"] = false
			default:
				return usageError("--ssl-verify must be true or false.")
			}
		}
		for flag, key := range map[string]string{"client-cert": "clientCert", "client-key": "clientKey"} {
			if v := strings.TrimSpace(c.String(flag)); v != "" {
				srv[key] = v
			}
		}
	}
	if c.Bool("disabled") {
		srv["enabled"] = false
	}
	if c.Bool("parallel") {
		srv["supportsParallelToolCalls"] = true
	}
	if mode := strings.ToLower(strings.TrimSpace(c.String("approval"))); c.IsSet("approval") {
		if mode != "auto" && mode != "prompt" && mode != "approve" {
			return usageError(`--approval must be "auto", "prompt", or "approve".`)
		}
		srv["codex"] = map[string]any{"defaultToolsApprovalMode": mode}
	}
	for flag, key := range map[string]string{"timeout": "requestTimeoutMs", "connect-timeout": "connectionTimeoutMs"} {
		secs, ok, err := secondsFlag(c, flag)
		if err != nil {
			return err
		}
		if ok {
			srv[key] = secs * 1000
		}
	}
	filter := map[string]any{}
	if inc := csvList(c.String("include")); inc != nil {
		filter["include"] = inc
	}
	if exc := csvList(c.String("exclude")); exc != nil {
		filter["exclude"] = exc
	}
	if len(filter) > 0 {
		srv["toolFilter"] = filter
	}
	s, err := r.mcpLoadSaved(c)
	if err != nil {
		return err
	}
	if _, exists := s.servers[name]; exists {
		return tools.Errorf(tools.CodeFailed, "MCP server %q already exists. Replace it with `openclaw mcp set %s '<json>'` or remove it with `openclaw mcp unset %s`.", name, name, name)
	}
	resolved, err := mcpclient.Resolve(name, srv)
	if err != nil {
		return tools.Errorf(tools.CodeInvalidParams, "MCP server %q: %v", name, err)
	}
	if !c.Bool("no-probe") && resolved.Enabled {
		res := mcpclient.Probe(c.Context, []mcpclient.Server{resolved}, r.mcpClientOptions(c))
		if len(res.Diagnostics) > 0 {
			return tools.Errorf(tools.CodeFailed, "MCP probe failed for %q: %s (nothing saved; fix it, or save anyway with --no-probe)", name, res.Diagnostics[0].Message)
		}
	}
	return r.mcpWrite(c, name, "saved", func(servers map[string]any) error {
		if _, exists := servers[name]; exists {
			return tools.Errorf(tools.CodeFailed, "MCP server %q already exists.", name)
		}
		servers[name] = srv
		return nil
	})
}

// checkMCPName refuses names the config cannot hold as a key path.
func checkMCPName(name string) error {
	switch {
	case name == "":
		return usageError("MCP server name is required.")
	case name == "__proto__":
		return usageError("The MCP server name __proto__ is reserved; choose a different name.")
	case strings.ContainsAny(name, ".[]\"'\n"):
		return usageError("MCP server name %q may not contain '.', brackets, quotes or newlines.", name)
	}
	return nil
}

func (r *runtime) mcpSet(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageError("mcp set takes <name> <json>")
	}
	name := strings.TrimSpace(c.Args().Get(0))
	if err := checkMCPName(name); err != nil {
		return err
	}
	v, err := config.ParseJSON5([]byte(c.Args().Get(1)))
	if err != nil {
		return usageError("mcp set %s: the value is not JSON: %v", name, err)
	}
	srv, ok := v.(map[string]any)
	if !ok {
		return usageError("MCP server config must be a JSON object.")
	}
	srv = canonicalMCPServer(srv)
	if resolved, err := mcpclient.Resolve(name, srv); err != nil && resolved.Enabled {
		return tools.Errorf(tools.CodeInvalidParams, "MCP server %q cannot run: %v (save it with \"enabled\": false to keep it anyway)", name, err)
	}
	return r.mcpWrite(c, name, "saved", func(servers map[string]any) error {
		servers[name] = srv
		return nil
	})
}

// canonicalMCPServer rewrites the aliases the original accepts into its
// canonical keys: type (http → streamable-http) → transport,
// workingDirectory → cwd, snake_case TLS and parallel keys → camelCase.
func canonicalMCPServer(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	if t, ok := out["type"].(string); ok {
		alias := map[string]string{"http": "streamable-http", "streamable-http": "streamable-http", "sse": "sse", "stdio": "stdio"}[strings.ToLower(strings.TrimSpace(t))]
		if alias != "" {
			if _, has := out["transport"].(string); !has && alias != "stdio" {
				out["transport"] = alias
			}
			delete(out, "type")
		}
	}
	for from, to := range map[string]string{"workingDirectory": "cwd", "supports_parallel_tool_calls": "supportsParallelToolCalls",
		"ssl_verify": "sslVerify", "client_cert": "clientCert", "client_key": "clientKey"} {
		if v, ok := out[from]; ok {
			if _, has := out[to]; !has {
				out[to] = v
			}
			delete(out, from)
		}
	}
	return out
}

func (r *runtime) mcpUnset(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("mcp unset takes <name>")
	}
	name := c.Args().First()
	return r.mcpWrite(c, name, "removed", func(servers map[string]any) error {
		if _, ok := servers[name]; !ok {
			return errNoSuchServer
		}
		delete(servers, name)
		return nil
	})
}

var errNoSuchServer = errors.New("no such MCP server")

// mcpWrite changes mcp.servers through config.Edit, the one write path
// (file lock, validation as the next load sees it, temp file + rename,
// .bak): change gets the servers object (created when missing; mcp.servers
// and an emptied mcp are removed when it ends empty).
func (r *runtime) mcpWrite(c *cli.Context, name, verb string, change func(servers map[string]any) error) error {
	p, err := r.Paths(c)
	if err != nil {
		return err
	}
	res, err := config.Edit(c.Context, p.ConfigPath, config.EditOptions{Getenv: r.getenv}, func(d *config.Draft) error {
		if d.ParseErr != nil {
			return tools.Errorf(tools.CodeFailed, "%v (fix it first: openclaw config validate; the previous version is in %s.bak)", d.ParseErr, d.Path)
		}
		if d.LoadErr != nil {
			return tools.Errorf(tools.CodeFailed, "Config file is invalid; fix it before using MCP config commands: %v", d.LoadErr)
		}
		if err := refuseThroughInclude(d.Doc, "mcp.servers"); err != nil {
			return err
		}
		mcpSec, _ := d.Doc["mcp"].(map[string]any)
		if mcpSec == nil {
			mcpSec = map[string]any{}
		}
		servers, _ := mcpSec["servers"].(map[string]any)
		if servers == nil {
			servers = map[string]any{}
		}
		if err := change(servers); err != nil {
			if errors.Is(err, errNoSuchServer) {
				return unknownMCPServer(name, d.Path)
			}
			return err
		}
		if len(servers) > 0 {
			mcpSec["servers"] = servers
		} else {
			delete(mcpSec, "servers")
		}
		if len(mcpSec) > 0 {
			d.Doc["mcp"] = mcpSec
		} else {
			delete(d.Doc, "mcp")
		}
		return nil
	})
	var inv *config.InvalidError
	switch {
	case errors.As(err, &inv):
		if len(inv.Issues) > 0 {
			return tools.Errorf(tools.CodeInvalidParams, "Config invalid after MCP %s (%s)", verb, issueLine(inv.Issues)).
				WithDetails(map[string]any{"issues": inv.Issues})
		}
		return tools.Errorf(tools.CodeInvalidParams, "Config invalid after MCP %s: %v", verb, inv.Err)
	case err != nil:
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(r.stderr, "warning: %s\n", w)
	}
	out := map[string]any{"ok": true, "name": name, "action": verb, "path": res.Path, "hash": res.Hash, "changed": nonNil(res.Changed)}
	return r.emit(c, func(w io.Writer, v gjson.Result) error {
		var err error
		switch verb {
		case "removed":
			_, err = fmt.Fprintf(w, "Removed MCP server %q from %s.\n", name, res.Path)
		case "tools":
			_, err = fmt.Fprintf(w, "Updated MCP tool selection for %q in %s.\n", name, res.Path)
		case "updated":
			_, err = fmt.Fprintf(w, "Updated MCP server %q in %s.\n", name, res.Path)
		default:
			_, err = fmt.Fprintf(w, "Saved MCP server %q to %s.\n", name, res.Path)
		}
		return err
	}, mustJSON(out))
}

// mcpServerTools is `openclaw mcp tools <name>`: with --include, --exclude
// or --clear it updates the server's toolFilter (the original's verb);
// without them it connects and lists the tools the server exposes (after
// its filter), under the names agents see.
func (r *runtime) mcpServerTools(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("mcp tools takes at most one server name")
	}
	name := c.Args().First()
	if c.IsSet("include") || c.IsSet("exclude") || c.Bool("clear") {
		if c.Bool("clear") && (c.IsSet("include") || c.IsSet("exclude")) {
			return usageError("--clear cannot be combined with --include or --exclude")
		}
		inc, exc := csvList(c.String("include")), csvList(c.String("exclude"))
		return r.mcpWrite(c, name, "tools", func(servers map[string]any) error {
			srv, ok := servers[name].(map[string]any)
			if !ok {
				return errNoSuchServer
			}
			next := make(map[string]any, len(srv))
			for k, v := range srv {
				next[k] = v
			}
			if c.Bool("clear") {
				delete(next, "toolFilter")
			} else {
				setToolFilter(next, inc, exc)
			}
			servers[name] = next
			return nil
		})
	}
	s, err := r.mcpLoadSaved(c)
	if err != nil {
		return err
	}
	raw, err := s.require(name)
	if err != nil {
		return err
	}
	srv, err := mcpclient.Resolve(name, raw)
	if err != nil {
		return tools.Errorf(tools.CodeFailed, "MCP server %q cannot run: %v", name, err)
	}
	srv.Enabled = true // listing a disabled server's tools is a fair question
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	res := mcpclient.Probe(ctx, []mcpclient.Server{srv}, r.mcpClientOptions(c))
	if len(res.Diagnostics) > 0 {
		return tools.Errorf(tools.CodeFailed, "MCP server %q: %s", name, res.Diagnostics[0].Message)
	}
	type toolOut struct {
		Name        string `json:"name"`
		MCPName     string `json:"mcpName"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		InputSchema any    `json:"inputSchema,omitempty"`
		Annotations any    `json:"annotations,omitempty"`
	}
	list := []toolOut{}
	projected := map[string]string{}
	for _, t := range mcpclient.Project([]string{name}, func(string) (mcpclient.Server, []*mcp.Tool) { return srv, res.Listed[name] }) {
		projected[t.MCP.Name] = t.Name
	}
	for _, t := range res.Listed[name] {
		o := toolOut{Name: projected[t.Name], MCPName: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema}
		if t.Annotations != nil {
			o.Annotations = t.Annotations
		}
		list = append(list, o)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return r.emit(c, func(w io.Writer, v gjson.Result) error {
		if len(list) == 0 {
			_, err := fmt.Fprintf(w, "MCP server %q exposes no tools (check toolFilter: openclaw mcp show %s).\n", name, name)
			return err
		}
		for _, t := range list {
			fmt.Fprintf(w, "%-40s %s\n", t.Name, cut(oneLineText(t.Description), 80))
		}
		return nil
	}, mustJSON(map[string]any{"server": name, "tools": list}))
}

func oneLineText(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// setToolFilter sets a server definition's toolFilter include and exclude
// lists where given (nil keeps what was there), and drops an empty filter.
func setToolFilter(def map[string]any, inc, exc []any) {
	filter := map[string]any{}
	if old, ok := def["toolFilter"].(map[string]any); ok {
		for k, v := range old {
			filter[k] = v
		}
	}
	if inc != nil {
		filter["include"] = inc
	}
	if exc != nil {
		filter["exclude"] = exc
	}
	if len(filter) == 0 {
		delete(def, "toolFilter")
		return
	}
	def["toolFilter"] = filter
}
