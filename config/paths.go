package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Paths says where state and config live.
type Paths struct {
	// Home replaces $HOME for every default (OPENCLAW_HOME).
	Home string
	// StateDir holds sessions, credentials, cron, logs, the database.
	StateDir string
	// ConfigPath is the openclaw.json file (it may not exist).
	ConfigPath string
	// Profile is the active profile name ("" for the default instance).
	Profile string
	// Dev is true for the dev profile (--dev or profile "dev"): gateway
	// port 19001 by default.
	Dev bool
}

// Compiled on first use: the {0,63} repetition makes this regexp costly
// (~0.4 ms, 800 allocations) and most invocations never need it.
var profileNameRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
})

// ResolvePaths applies the §6.1 rules. profile and dev come from the
// --profile and --dev flags; getenv (nil means os.Getenv) supplies
// OPENCLAW_HOME, OPENCLAW_PROFILE, OPENCLAW_STATE_DIR, OPENCLAW_CONFIG_PATH.
//
//   - Home: OPENCLAW_HOME, else $HOME, else the user's home directory.
//   - Profile: --dev ("dev"), else --profile, else OPENCLAW_PROFILE;
//     "default" means no profile.
//   - StateDir: OPENCLAW_STATE_DIR, else ~/.openclaw-<profile>, else ~/.openclaw.
//   - ConfigPath: OPENCLAW_CONFIG_PATH, else <StateDir>/openclaw.json.
func ResolvePaths(getenv func(string) string, profile string, dev bool) (Paths, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }

	home := env("OPENCLAW_HOME")
	if home == "" {
		home = env("HOME")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return Paths{}, errors.New("cannot determine the home directory: set HOME or OPENCLAW_HOME")
		}
		home = h
	}
	home, err := absPath(expandHome(home, env("HOME")))
	if err != nil {
		return Paths{}, fmt.Errorf("OPENCLAW_HOME: %w", err)
	}

	profile = strings.TrimSpace(profile)
	if dev {
		if profile != "" && profile != "dev" {
			return Paths{}, errors.New("Cannot combine --dev with --profile")
		}
		profile = "dev"
	}
	if profile == "" {
		profile = env("OPENCLAW_PROFILE")
	}
	if profile != "" && !profileNameRe().MatchString(profile) {
		return Paths{}, fmt.Errorf("Invalid --profile %q (use letters, numbers, \"_\", \"-\" only)", profile)
	}
	if strings.EqualFold(profile, "default") {
		profile = ""
	}

	p := Paths{Home: home, Profile: profile, Dev: profile == "dev"}
	if sd := env("OPENCLAW_STATE_DIR"); sd != "" {
		if p.StateDir, err = absPath(expandHome(sd, home)); err != nil {
			return Paths{}, fmt.Errorf("OPENCLAW_STATE_DIR: %w", err)
		}
	} else if profile != "" {
		p.StateDir = filepath.Join(home, ".openclaw-"+profile)
	} else {
		p.StateDir = filepath.Join(home, ".openclaw")
	}
	if cp := env("OPENCLAW_CONFIG_PATH"); cp != "" {
		if p.ConfigPath, err = absPath(expandHome(cp, home)); err != nil {
			return Paths{}, fmt.Errorf("OPENCLAW_CONFIG_PATH: %w", err)
		}
	} else {
		p.ConfigPath = filepath.Join(p.StateDir, "openclaw.json")
	}
	return p, nil
}

// expandHome replaces a leading "~" with home.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return filepath.Join(home, p[2:])
	}
	return p
}

func absPath(p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Abs(p)
}
