package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"
)

// check is one doctor finding. Status is pass, warn or fail; only a fail
// makes doctor exit 1.
type check struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

func (r *runtime) doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check config, state dir, gateway, port, auth and browser; exit 1 if a check fails",
		Description: "Checks, in order: the config file parses and validates; the state directory is private and\n" +
			"writable; the gateway answers (and its version); who holds the gateway port; non-loopback binds\n" +
			"have auth; Chromium is installed. Warnings (e.g. no gateway running) do not fail.\n\n" +
			"EXAMPLES:\n   openclaw doctor\n   openclaw doctor --json | jq '.checks[] | select(.status != \"pass\")'",
		Flags:  append(outputFlags(), connFlags()...),
		Action: r.doctor,
	}
}

func (r *runtime) doctor(c *cli.Context) error {
	p, err := r.Paths(c)
	if err != nil {
		return err
	}
	var checks []check
	cfg, cc := doctorConfig(p, r.getenv)
	checks = append(checks, cc...)
	r.cfg = cfg // a broken file must not stop the other checks
	checks = append(checks, doctorStateDir(p, cfg))
	checks = append(checks, r.doctorGateway(c)...)
	checks = append(checks, doctorAuth(cfg, r.getenv), doctorBrowser(cfg, os.Geteuid()))

	ok := true
	for _, ch := range checks {
		ok = ok && ch.Status != "fail"
	}
	report := struct {
		OK     bool    `json:"ok"`
		Checks []check `json:"checks"`
	}{ok, checks}
	if err := r.emit(c, r.renderDoctor, mustJSON(report)); err != nil {
		return err
	}
	if !ok {
		return exitCode(1)
	}
	return nil
}

func doctorConfig(p config.Paths, getenv func(string) string) (*config.Config, []check) {
	cfg, err := config.Load(p.ConfigPath, getenv)
	if err != nil {
		ch := check{Name: "config", Status: "fail", Message: fmt.Sprintf("%s does not load: %v", p.ConfigPath, errors.Unwrap(err)),
			Hint: "fix the file (openclaw config validate)"}
		var le *config.LoadError
		if errors.As(err, &le) && le.HasBackup {
			ch.Hint += "; the previous version is in " + p.ConfigPath + ".bak"
		}
		return config.Empty(), []check{ch}
	}
	if !cfg.Exists {
		return cfg, []check{{Name: "config", Status: "pass", Message: "no config file at " + p.ConfigPath + "; defaults apply"}}
	}
	if issues := cfg.Issues(); len(issues) > 0 {
		hint := "openclaw config validate shows each problem"
		if _, err := os.Stat(p.ConfigPath + ".bak"); err == nil {
			hint += "; the previous version is in " + p.ConfigPath + ".bak"
		}
		return cfg, []check{{Name: "config", Status: "fail", Message: fmt.Sprintf("%s is not valid: %s", p.ConfigPath, issueLine(issues)), Hint: hint}}
	}
	if w := cfg.Warnings(); len(w) > 0 {
		return cfg, []check{{Name: "config", Status: "warn", Message: p.ConfigPath + " is valid, with warnings: " + strings.Join(w, "; ")}}
	}
	return cfg, []check{{Name: "config", Status: "pass", Message: p.ConfigPath + " parses and validates"}}
}

// doctorStateDir: the state dir holds tokens and device keys, so it should
// be private (0700) and writable by its owner; the config file 0600.
func doctorStateDir(p config.Paths, cfg *config.Config) check {
	st, err := os.Stat(p.StateDir)
	if errors.Is(err, os.ErrNotExist) {
		return check{Name: "state", Status: "pass", Message: p.StateDir + " does not exist yet (created when first needed)"}
	}
	if err != nil {
		return check{Name: "state", Status: "fail", Message: fmt.Sprintf("%s: %v", p.StateDir, err)}
	}
	if !st.IsDir() {
		return check{Name: "state", Status: "fail", Message: p.StateDir + " is not a directory"}
	}
	if err := unix.Access(p.StateDir, unix.W_OK|unix.X_OK); err != nil {
		return check{Name: "state", Status: "fail", Message: p.StateDir + " is not writable by you", Hint: "chown/chmod it, or set OPENCLAW_STATE_DIR"}
	}
	if m := st.Mode().Perm(); m&0o077 != 0 {
		return check{Name: "state", Status: "warn", Message: fmt.Sprintf("%s is accessible to other users (mode %04o)", p.StateDir, m),
			Hint: "chmod 700 " + p.StateDir}
	}
	if cfg.Exists {
		if fst, err := os.Stat(p.ConfigPath); err == nil && fst.Mode().Perm()&0o077 != 0 {
			return check{Name: "state", Status: "warn", Message: fmt.Sprintf("%s is readable by other users (mode %04o)", p.ConfigPath, fst.Mode().Perm()),
				Hint: "chmod 600 " + p.ConfigPath}
		}
	}
	return check{Name: "state", Status: "pass", Message: p.StateDir + " is private and writable"}
}

// doctorGateway probes the gateway and, for a gateway on this machine,
// names the process that holds its port.
func (r *runtime) doctorGateway(c *cli.Context) []check {
	t, err := r.target(c)
	if err != nil {
		return []check{{Name: "gateway", Status: "fail", Message: err.Error()}}
	}
	d := c.Duration("timeout")
	if d <= 0 {
		d = 3 * time.Second
	}
	ctx, cancel := context.WithTimeout(c.Context, d)
	defer cancel()
	conn, err := client.Dial(ctx, client.Options{URL: t.URL, Token: t.Token, Password: t.Password,
		ClientID: "cli", ClientMode: "cli", Version: Version, Scopes: []string{protocol.ScopeRead}})
	var gw check
	reachable := err == nil
	switch {
	case err == nil:
		v := conn.Hello().Server.Version
		conn.Close()
		gw = check{Name: "gateway", Status: "pass", Message: fmt.Sprintf("reachable at %s, version %s", t.URL, v)}
	case tools.AsError(err).ExitCode() == 4:
		reachable = true
		gw = check{Name: "gateway", Status: "fail", Message: fmt.Sprintf("reachable at %s, but authentication failed: %s", t.URL, tools.AsError(err).Message),
			Hint: "pass --token, set OPENCLAW_GATEWAY_TOKEN, or gateway.auth.token in config"}
	case tools.AsError(err).ExitCode() == 5:
		gw = check{Name: "gateway", Status: "warn", Message: "no gateway at " + t.URL, Hint: r.withProfile("start it with `openclaw serve`")}
	default:
		gw = check{Name: "gateway", Status: "fail", Message: fmt.Sprintf("%s: %s", t.URL, tools.AsError(err).Message)}
	}
	out := []check{gw}
	if pc, ok := doctorPort(t.URL, reachable); ok {
		out = append(out, pc)
	}
	return out
}

// doctorPort reports who listens on a local gateway's port (Linux: from
// /proc). A port held by something that does not answer as a gateway fails.
func doctorPort(rawURL string, gateway bool) (check, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return check{}, false
	}
	ip := net.ParseIP(u.Hostname())
	if !(u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())) {
		return check{}, false // a remote gateway: its port is not ours to inspect
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return check{}, false
	}
	owners, err := portOwners(port)
	if err != nil {
		return check{Name: "port", Status: "warn", Message: fmt.Sprintf("port %d: cannot tell who listens (%v)", port, err)}, true
	}
	if len(owners) == 0 {
		if gateway {
			return check{Name: "port", Status: "pass", Message: fmt.Sprintf("port %d is held by the gateway", port)}, true
		}
		return check{Name: "port", Status: "pass", Message: fmt.Sprintf("port %d is free", port)}, true
	}
	who := owners[0].String()
	if gateway {
		return check{Name: "port", Status: "pass", Message: fmt.Sprintf("port %d is held by the gateway: %s", port, who)}, true
	}
	return check{Name: "port", Status: "fail", Message: fmt.Sprintf("port %d is in use by %s, which does not answer as a gateway", port, who),
		Hint: "stop it, or run the gateway elsewhere (--port, gateway.port, OPENCLAW_GATEWAY_PORT)"}, true
}

// doctorAuth: a gateway reachable from the network must ask for a secret.
func doctorAuth(cfg *config.Config, getenv func(string) string) check {
	bind := strings.ToLower(cfg.String("gateway.bind", "loopback"))
	if bind == "" || bind == "loopback" || bind == "auto" {
		return check{Name: "auth", Status: "pass", Message: "gateway binds loopback only"}
	}
	mode := strings.ToLower(cfg.String("gateway.auth.mode", ""))
	token := firstNonEmpty(cfg.String("gateway.auth.token", ""), getenv("OPENCLAW_GATEWAY_TOKEN"))
	password := firstNonEmpty(cfg.String("gateway.auth.password", ""), getenv("OPENCLAW_GATEWAY_PASSWORD"))
	switch {
	case mode == "none":
		return check{Name: "auth", Status: "fail", Message: fmt.Sprintf("gateway.bind is %s with gateway.auth.mode none: anyone on the network can connect", bind),
			Hint: "openclaw config set gateway.auth.mode token, and set gateway.auth.token"}
	case mode == "password" && password == "", mode != "password" && token == "" && password == "":
		return check{Name: "auth", Status: "fail", Message: fmt.Sprintf("gateway.bind is %s but no gateway secret is configured", bind),
			Hint: "openclaw config set gateway.auth.token <secret> (or OPENCLAW_GATEWAY_TOKEN)"}
	}
	return check{Name: "auth", Status: "pass", Message: fmt.Sprintf("gateway.bind is %s with %s auth", bind, firstNonEmpty(mode, "token"))}
}

// doctorBrowser checks the Chromium the browser tool would start: the
// configured browser.executablePath, else the first of the tool's names on
// PATH; and, as root, that browser.noSandbox is set (Chromium refuses to
// start as root with its sandbox on, so `browser start` would fail).
func doctorBrowser(cfg *config.Config, euid int) check {
	exe := cfg.String("browser.executablePath", "")
	if exe != "" {
		if st, err := os.Stat(exe); err != nil || st.IsDir() {
			return check{Name: "browser", Status: "fail", Message: "browser.executablePath " + exe + " is not a file",
				Hint: "openclaw config set browser.executablePath <path to chromium>, or unset it to use the one on PATH"}
		}
	} else {
		for _, name := range []string{"google-chrome", "google-chrome-stable", "brave-browser", "microsoft-edge", "chromium", "chromium-browser"} {
			if p, err := exec.LookPath(name); err == nil {
				exe = p
				break
			}
		}
	}
	if exe == "" {
		return check{Name: "browser", Status: "warn", Message: "no Chromium or Chrome found on PATH (the browser tool needs one)",
			Hint: "install chromium (e.g. apt-get install chromium), or openclaw config set browser.executablePath <path>"}
	}
	if euid == 0 && !cfg.Bool("browser.noSandbox", false) {
		return check{Name: "browser", Status: "fail", Message: "Chromium found: " + exe + ", but running as root it needs the sandbox off (browser start would fail)",
			Hint: "openclaw config set browser.noSandbox true"}
	}
	return check{Name: "browser", Status: "pass", Message: "Chromium found: " + exe}
}

func (r *runtime) renderDoctor(w io.Writer, v gjson.Result) error {
	p := r.io.Palette(false)
	for _, ch := range v.Get("checks").Array() {
		st := ch.Get("status").String()
		if _, err := fmt.Fprintf(w, "%s  %-8s %s\n", p.Status(fmt.Sprintf("%-4s", st)), ch.Get("name").String(), ch.Get("message").String()); err != nil {
			return err
		}
		if h := ch.Get("hint").String(); h != "" {
			if _, err := fmt.Fprintf(w, "      %-8s %s\n", "", p.Gray("→ "+h)); err != nil {
				return err
			}
		}
	}
	return nil
}
