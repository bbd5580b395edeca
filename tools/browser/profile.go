// Package browser is the `browser` tool: a managed Chromium per profile,
// launched detached so it outlives the CLI and reached over CDP (go-rod) by
// every later call, with accessibility-tree snapshots whose refs stay bound
// to their DOM elements across snapshots and processes.
package browser

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"

	"github.com/openclaw-go/openclaw/tools"
)

// Port range for managed profiles without a configured cdpPort.
const (
	portRangeStart = 18800
	portRangeEnd   = 18899
	defaultProfile = "openclaw"
	// defaultColor is the original's DEFAULT_OPENCLAW_BROWSER_COLOR, a
	// profile's color when none is configured.
	defaultColor = "#FF4500"
)

// profileConf is one entry of browser.profiles.
type profileConf struct {
	CdpPort        int    `json:"cdpPort"`
	CdpURL         string `json:"cdpUrl"`
	Color          string `json:"color"`
	ExecutablePath string `json:"executablePath"`
	Headless       *bool  `json:"headless"`
	NoSandbox      *bool  `json:"noSandbox"`
	AttachOnly     bool   `json:"attachOnly"`
}

// browserConf is the browser config section.
type browserConf struct {
	Enabled         *bool                  `json:"enabled"`
	EvaluateEnabled *bool                  `json:"evaluateEnabled"`
	CdpURL          string                 `json:"cdpUrl"`
	Color           string                 `json:"color"`
	ExecutablePath  string                 `json:"executablePath"`
	Headless        *bool                  `json:"headless"`
	NoSandbox       bool                   `json:"noSandbox"`
	AttachOnly      bool                   `json:"attachOnly"`
	DefaultProfile  string                 `json:"defaultProfile"`
	CdpPortStart    int                    `json:"cdpPortRangeStart"`
	ExtraArgs       []string               `json:"extraArgs"`
	SSRF            ssrfPolicy             `json:"ssrfPolicy"`
	Profiles        map[string]profileConf `json:"profiles"`
	SnapDefaults    snapDefaults           `json:"snapshotDefaults"`
}

// profile is a resolved profile: everything needed to launch or attach.
type profile struct {
	Name        string
	Dir         string // <state>/browser/<name>
	UserDataDir string
	CdpPort     int    // configured port, 0 = pick from the range at start
	CdpURL      string // attach-only endpoint when set
	Executable  string
	Headless    bool
	NoSandbox   bool
	AttachOnly  bool
	ExtraArgs   []string
	Color       string // configured color, else defaultColor
	conf        *browserConf
}

var profileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`) }) // built on first use, not in every process's init

// validProfileName checks the original's rule: lowercase letters, digits,
// hyphens, at most 64 characters.
func validProfileName(n string) error {
	if len(n) > 64 || !profileName().MatchString(n) {
		return tools.Errorf(tools.CodeInvalidParams, "invalid profile name %q: use lowercase letters, digits and hyphens (at most 64)", n)
	}
	return nil
}

func loadConf(env *tools.Env) (*browserConf, error) {
	c := &browserConf{}
	if env.Config != nil {
		if err := env.Config.Decode("browser", c); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "browser config: %v", err)
		}
	}
	if c.Enabled != nil && !*c.Enabled {
		return nil, tools.Errorf(tools.CodeDenied, "the browser is disabled (browser.enabled=false)")
	}
	return c, nil
}

// resolveProfile picks the named profile (or browser.defaultProfile, or
// "openclaw") and fills in its directories, binary and launch options.
func resolveProfile(env *tools.Env, name string) (*profile, error) {
	c, err := loadConf(env)
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = c.DefaultProfile
	}
	if name == "" {
		name = defaultProfile
	}
	if err := validProfileName(name); err != nil {
		return nil, err
	}
	pc, ok := c.Profiles[name]
	if !ok && name != defaultProfile && name != c.DefaultProfile {
		return nil, tools.Errorf(tools.CodeNotFound, "browser profile %q not found (configure browser.profiles.%s)", name, name)
	}
	dir := filepath.Join(env.StateDir, "browser", name)
	p := &profile{Name: name, Dir: dir, UserDataDir: filepath.Join(dir, "user-data"), CdpPort: pc.CdpPort,
		CdpURL: pc.CdpURL, AttachOnly: pc.AttachOnly || c.AttachOnly, ExtraArgs: c.ExtraArgs, conf: c,
		Color: firstNonEmpty(pc.Color, c.Color, defaultColor)}
	if p.CdpURL == "" && name == defaultProfile {
		p.CdpURL = c.CdpURL
	}
	if p.CdpURL != "" {
		p.AttachOnly = true
	}
	p.NoSandbox = c.NoSandbox
	if pc.NoSandbox != nil {
		p.NoSandbox = *pc.NoSandbox
	}
	p.Headless = os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" && runtime.GOOS == "linux"
	if c.Headless != nil {
		p.Headless = *c.Headless
	}
	if pc.Headless != nil {
		p.Headless = *pc.Headless
	}
	switch v := os.Getenv("OPENCLAW_BROWSER_HEADLESS"); v {
	case "1", "true":
		p.Headless = true
	case "0", "false":
		p.Headless = false
	}
	p.Executable = tools.ExpandHome(firstNonEmpty(pc.ExecutablePath, c.ExecutablePath))
	return p, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// findExecutable returns the configured binary or the first Chromium-based
// browser on PATH. It never downloads one.
func (p *profile) findExecutable() (string, error) {
	if p.Executable != "" {
		if _, err := os.Stat(p.Executable); err != nil {
			return "", tools.Errorf(tools.CodeFailed, "browser executable %s: %v", p.Executable, err)
		}
		return p.Executable, nil
	}
	for _, n := range []string{"google-chrome", "google-chrome-stable", "brave-browser", "microsoft-edge", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(n); err == nil {
			return path, nil
		}
	}
	return "", tools.Errorf(tools.CodeFailed, "no Chromium or Chrome found on PATH: install chromium (apt-get install chromium) or set browser.executablePath")
}

// launchArgs are the managed profile's Chromium flags (the original's set).
func (p *profile) launchArgs(port int) []string {
	args := []string{
		fmt.Sprintf("--remote-debugging-port=%d", port),
		"--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + p.UserDataDir,
		"--no-first-run", "--no-default-browser-check", "--disable-sync",
		"--disable-background-networking", "--disable-component-update",
		"--disable-features=Translate,MediaRouter", "--disable-session-crashed-bubble",
		"--hide-crash-restore-bubble", "--password-store=basic", "--no-proxy-server",
		// No crash handler: it outlives a browser that failed to start and
		// keeps writing "Crash Reports" into the user data being removed.
		"--disable-breakpad",
	}
	if p.Headless {
		args = append(args, "--headless=new", "--disable-gpu")
	}
	if p.NoSandbox {
		args = append(args, "--no-sandbox")
	}
	if runtime.GOOS == "linux" {
		args = append(args, "--disable-dev-shm-usage")
	}
	args = append(args, p.ExtraArgs...)
	return append(args, "about:blank")
}
