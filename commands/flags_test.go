package commands

import (
	"strings"
	"testing"
	"time"
)

func TestDurationValueTakesSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"5": 5 * time.Second, "0.5": 500 * time.Millisecond, "5s": 5 * time.Second, "2m": 2 * time.Minute, "1h30m": 90 * time.Minute} {
		var d durationValue
		if err := d.Set(in); err != nil || time.Duration(d) != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, time.Duration(d), err, want)
		}
	}
	for _, in := range []string{"abc", "-5", "-2s", ""} {
		var d durationValue
		if err := d.Set(in); err == nil {
			t.Errorf("Set(%q) accepted", in)
		}
	}
}

func TestDashFlags(t *testing.T) {
	for in, want := range map[string]string{
		`invalid value "5" for flag -timeout: parse error`: `invalid value "5" for flag --timeout: parse error`,
		`flag provided but not defined: -bogus`:            `flag provided but not defined: --bogus`,
		`flag provided but not defined: -x`:                `flag provided but not defined: -x`,
	} {
		if got := dashFlags(in); got != want {
			t.Errorf("dashFlags(%q) = %q, want %q", in, got, want)
		}
	}
}

// Help names each flag's environment variable once: the connection flags
// say "(env OPENCLAW_GATEWAY_TOKEN)" in their usage, and urfave's automatic
// " [$OPENCLAW_GATEWAY_TOKEN]" suffix came on top; a flag whose usage does
// not name its variable (--profile) keeps the suffix.
func TestHelpNamesEachEnvVarOnce(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{{"memory", "search", "--help"}, {"serve", "--help"}, {"gateway", "call", "--help"}, {"--help"}} {
		r := runOC(t, home, args...)
		if r.code != 0 {
			t.Fatalf("openclaw %v: exit %d: %s", args, r.code, r.stderr)
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			for _, v := range []string{"OPENCLAW_GATEWAY_URL", "OPENCLAW_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_PASSWORD", "OPENCLAW_PROFILE"} {
				if n := strings.Count(line, v); n > 1 {
					t.Errorf("openclaw %v: %s named %d times in %q", args, v, n, line)
				}
			}
		}
	}
	r := runOC(t, home, "memory", "search", "--help")
	if !strings.Contains(r.stdout, "(env OPENCLAW_GATEWAY_TOKEN)") {
		t.Errorf("memory search --help lost the token flag's env note:\n%s", r.stdout)
	}
	if r := runOC(t, home, "--help"); !strings.Contains(r.stdout, "[$OPENCLAW_PROFILE]") {
		t.Errorf("--help lost --profile's env suffix:\n%s", r.stdout)
	}
}
