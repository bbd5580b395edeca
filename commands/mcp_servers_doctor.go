package commands

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/mcpclient"
)

// `openclaw mcp doctor [name] [--probe]`: the original's static checks of
// the saved servers (no connection unless --probe).

func (r *runtime) mcpDoctorCommand() *cli.Command {
	return &cli.Command{
		Name: "doctor", Usage: "check the saved MCP servers for setup problems (--probe: also connect)", ArgsUsage: "[name]",
		Description: "Checks without connecting: transport, stdio command and cwd, TLS files, literal secrets in\n" +
			"headers or env, tool filters. Exits 1 when an enabled server has an error-level issue.\n\n" +
			"EXAMPLES:\n   openclaw mcp doctor\n   openclaw mcp doctor docs --probe --json",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON (the default when stdout is not a terminal)"},
			&cli.BoolFlag{Name: "probe", Usage: "also connect to each enabled server that passed the static checks"},
		},
		Action: r.mcpDoctor,
	}
}

type doctorIssue struct {
	Level   string `json:"level"` // error | warning | info
	Message string `json:"message"`
}

type doctorServer struct {
	Name   string        `json:"name"`
	OK     bool          `json:"ok"`
	Issues []doctorIssue `json:"issues"`
}

var (
	sensitiveHeaders = map[string]bool{"authorization": true, "proxy-authorization": true, "x-api-key": true, "api-key": true, "api_key": true}
	sensitiveKey     = regexp.MustCompile(`(?i)(?:^|[_-])(api[_-]?key|authorization|bearer|password|secret|token)$`)
)

func (r *runtime) mcpDoctor(c *cli.Context) error {
	if c.NArg() > 1 {
		return usageError("mcp doctor takes at most one server name")
	}
	s, err := r.mcpLoadSaved(c)
	if err != nil {
		return err
	}
	names := mcpclient.Names(s.servers)
	if name := c.Args().First(); name != "" {
		if _, err := s.require(name); err != nil {
			return err
		}
		names = []string{name}
	}
	// Literal secrets are judged on the file as written: a ${VAR} there
	// is not a literal, whatever it resolves to.
	authored := map[string]any{}
	if doc, err := config.ParseJSON5(s.cfg.Raw); err == nil {
		if m, ok := doc.(map[string]any); ok {
			authored = m
		}
	}
	report := []doctorServer{}
	ok := true
	for _, name := range names {
		issues := r.doctorIssues(c, name, s.servers[name], authoredServer(authored, name))
		d := doctorServer{Name: name, OK: true, Issues: issues}
		for _, is := range issues {
			if is.Level == "error" {
				d.OK, ok = false, false
			}
		}
		report = append(report, d)
	}
	err = r.emit(c, func(w io.Writer, v gjson.Result) error {
		if len(report) == 0 {
			_, err := fmt.Fprintf(w, "No MCP servers configured in %s. Add one with `openclaw mcp add <name> --command <command>`.\n", s.path)
			return err
		}
		fmt.Fprintf(w, "MCP doctor (%s):\n", s.path)
		for _, d := range report {
			state := "ok"
			if !d.OK {
				state = "issues"
			}
			fmt.Fprintf(w, "- %s: %s\n", d.Name, state)
			for _, is := range d.Issues {
				prefix := map[string]string{"error": "!", "warning": "-"}[is.Level]
				if prefix == "" {
					prefix = "i"
				}
				fmt.Fprintf(w, "  %s %s: %s\n", prefix, is.Level, is.Message)
			}
		}
		return nil
	}, mustJSON(map[string]any{"path": s.path, "ok": ok, "servers": report}))
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(r.stderr, "MCP doctor found errors.")
		return exitCode(1)
	}
	return nil
}

// doctorIssues runs the static checks of one saved server (and the live
// probe with --probe when they found no error).
func (r *runtime) doctorIssues(c *cli.Context, name string, raw, authored map[string]any) []doctorIssue {
	issues := []doctorIssue{}
	add := func(level, format string, args ...any) {
		issues = append(issues, doctorIssue{level, fmt.Sprintf(format, args...)})
	}
	srv, rerr := mcpclient.Resolve(name, raw)
	if !srv.Enabled {
		add("warning", "server is disabled")
	}
	if srv.Enabled {
		switch {
		case rerr != nil:
			add("error", "server transport is invalid: %v", rerr)
		case srv.Transport == mcpclient.TransportStdio:
			if !commandExists(srv.Command, srv.Cwd) {
				add("error", "stdio command not found or not executable: %s", srv.Command)
			}
			if srv.Cwd != "" {
				if st, err := os.Stat(srv.Cwd); err != nil || !st.IsDir() {
					add("error", "stdio cwd does not exist: %s", srv.Cwd)
				}
			}
			if len(srv.DroppedEnv) > 0 {
				add("warning", "env %s is refused for stdio start-up safety and ignored", strings.Join(srv.DroppedEnv, ", "))
			}
		default:
			if srv.OAuth {
				add("error", "%v", mcpclient.ErrOAuth)
			}
			if srv.SSLVerify != nil && !*srv.SSLVerify {
				add("warning", "TLS certificate verification is disabled")
			}
			for label, p := range map[string]string{"client certificate": srv.ClientCert, "client key": srv.ClientKey} {
				if p == "" {
					continue
				}
				if st, err := os.Stat(p); err != nil || st.IsDir() {
					add("error", "%s file does not exist: %s", label, p)
				}
			}
		}
	}
	for _, field := range []string{"headers", "env"} {
		m, _ := authored[field].(map[string]any)
		if m == nil {
			m, _ = raw[field].(map[string]any)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, isStr := m[k].(string)
			literal := isStr && strings.TrimSpace(v) != "" && !strings.Contains(v, "$")
			if literal && (sensitiveHeaders[strings.ToLower(strings.TrimSpace(k))] || sensitiveKey.MatchString(k)) {
				add("warning", "%s.%s contains a literal sensitive value; prefer ${VAR} from the environment outside committed config", field, k)
			}
		}
	}
	if f, ok := raw["toolFilter"].(map[string]any); ok {
		_, inc := f["include"].([]any)
		_, exc := f["exclude"].([]any)
		if !inc && !exc {
			add("warning", "toolFilter is present but has no include or exclude list")
		}
	}
	if c.Bool("probe") && srv.Enabled && rerr == nil {
		for _, is := range issues {
			if is.Level == "error" {
				return issues
			}
		}
		res := mcpclient.Probe(c.Context, []mcpclient.Server{srv}, r.mcpClientOptions(c))
		if len(res.Diagnostics) > 0 {
			add("error", "probe failed: %s", res.Diagnostics[0].Message)
		}
	}
	return issues
}

// authoredServer is mcp.servers.<name> as written in the file (nil when it
// comes from elsewhere, an $include).
func authoredServer(doc map[string]any, name string) map[string]any {
	m, _ := doc["mcp"].(map[string]any)
	servers, _ := m["servers"].(map[string]any)
	srv, _ := servers[name].(map[string]any)
	return srv
}

// commandExists reports whether command resolves to an executable file:
// a path (relative to cwd), or a name on PATH.
func commandExists(command, cwd string) bool {
	if strings.Contains(command, "/") {
		if !filepath.IsAbs(command) && cwd != "" {
			command = filepath.Join(cwd, command)
		}
		st, err := os.Stat(command)
		return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
	}
	_, err := exec.LookPath(command)
	return err == nil
}
