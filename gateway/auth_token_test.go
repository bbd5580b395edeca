package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

func tokenTestPaths(t *testing.T) config.Paths {
	dir := t.TempDir()
	return config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}
}

// Issue 6 item 2: no secret anywhere → a generated token, stored in the
// config (0600) and used; the next start reuses it.
func TestFirstStartGeneratesToken(t *testing.T) {
	p := tokenTestPaths(t)
	noenv := func(string) string { return "" }
	s, err := New(Options{Paths: p, Getenv: noenv, ConfigPollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	a := s.auth.Load()
	if a.mode != AuthToken || len(a.token) != 48 {
		t.Fatalf("auth = %+v", a)
	}
	st, err := os.Stat(p.ConfigPath)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", st, err)
	}
	cfg, err := config.Load(p.ConfigPath, noenv)
	if err != nil || cfg.String("gateway.auth.token", "") != a.token || cfg.String("gateway.auth.mode", "") != "token" {
		t.Fatalf("stored: %v %s", err, cfg.Raw)
	}
	if s.Config().Hash != cfg.Hash {
		t.Errorf("server runs a config other than the file")
	}
	s2, err := New(Options{Paths: p, Getenv: noenv, ConfigPollInterval: -1})
	if err != nil || s2.auth.Load().token != a.token {
		t.Errorf("second start: %v, token changed", err)
	}
}

// Existing keys are kept; an explicit mode is not overwritten.
func TestGeneratedTokenKeepsConfig(t *testing.T) {
	p := tokenTestPaths(t)
	writeFile(t, p.ConfigPath, `{ // mine
  tools: {profile: "coding"}, gateway: {port: 1234}}`)
	s, err := New(Options{Paths: p, Getenv: func(string) string { return "" }, ConfigPollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Config().String("tools.profile", "") != "coding" || s.Config().Int("gateway.port", 0) != 1234 {
		t.Errorf("config lost keys: %s", s.Config().Raw)
	}
}

// No generation when a secret exists anywhere, or --auth none was asked.
func TestNoTokenGeneratedWhenConfigured(t *testing.T) {
	for name, o := range map[string]Options{
		"flag none":  {AuthMode: AuthNone},
		"flag token": {Token: "t"},
		"env token": {Getenv: func(k string) string {
			if k == "OPENCLAW_GATEWAY_TOKEN" {
				return "e"
			}
			return ""
		}},
		"env password": {Getenv: func(k string) string {
			if k == "OPENCLAW_GATEWAY_PASSWORD" {
				return "e"
			}
			return ""
		}},
	} {
		o.Paths = tokenTestPaths(t)
		if o.Getenv == nil {
			o.Getenv = func(string) string { return "" }
		}
		o.ConfigPollInterval = -1
		if _, err := New(o); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := os.Stat(o.Paths.ConfigPath); err == nil {
			t.Errorf("%s: config file written", name)
		}
	}
}

// An empty gateway.auth.token is the user's config: refuse, don't overwrite.
func TestEmptyConfiguredTokenRefused(t *testing.T) {
	p := tokenTestPaths(t)
	writeFile(t, p.ConfigPath, `{"gateway":{"auth":{"token":""}}}`)
	_, err := New(Options{Paths: p, Getenv: func(string) string { return "" }, ConfigPollInterval: -1})
	if err == nil || !strings.Contains(err.Error(), "set but empty") {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(p.ConfigPath)
	if string(b) != `{"gateway":{"auth":{"token":""}}}` {
		t.Errorf("file rewritten: %s", b)
	}
}
