package gateway

import (
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

func TestResolvePort(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "OPENCLAW_GATEWAY_PORT" {
				return v
			}
			return ""
		}
	}
	cfg := &config.Config{Doc: map[string]any{"gateway": map[string]any{"port": 20001.0}}}
	for _, tc := range []struct {
		name  string
		flag  int
		paths config.Paths
		cfg   *config.Config
		env   string
		want  int
	}{
		{"flag wins", 1234, config.Paths{}, cfg, "999", 1234},
		{"env next", 0, config.Paths{}, cfg, "999", 999},
		{"config next", 0, config.Paths{}, cfg, "", 20001},
		{"env 0 counts as unset", 0, config.Paths{}, cfg, "0", 20001},
		{"env not a number", 0, config.Paths{}, cfg, "x", 20001},
		{"dev", 0, config.Paths{Dev: true, Profile: "dev"}, config.Empty(), "", 19001},
		{"default", 0, config.Paths{}, config.Empty(), "", 18789},
	} {
		if got := ResolvePort(tc.flag, tc.paths, tc.cfg, env(tc.env)); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	p := ResolvePort(0, config.Paths{Profile: "work"}, config.Empty(), env(""))
	if p < 20000 || p >= 60000 || p != ResolvePort(0, config.Paths{Profile: "work"}, nil, env("")) {
		t.Errorf("profile port %d", p)
	}
}

func TestOptionsResolution(t *testing.T) {
	noenv := func(string) string { return "" }
	o := Options{Getenv: func(k string) string {
		if k == "OPENCLAW_HANDSHAKE_TIMEOUT_MS" {
			return "250"
		}
		return ""
	}}.withDefaults()
	if o.HandshakeTimeout != 250*time.Millisecond || o.TickInterval != 30*time.Second || o.MaxPreAuthPerIP != 32 {
		t.Errorf("defaults = %+v", o)
	}
	// OPENCLAW_MAX_PREAUTH_CONNECTIONS_PER_IP: a positive number counts;
	// 0, a negative or a non-number keeps the default.
	for v, want := range map[string]int{"1": 1, "7": 7, "0": 32, "-3": 32, "x": 32} {
		o := Options{Getenv: func(k string) string {
			if k == "OPENCLAW_MAX_PREAUTH_CONNECTIONS_PER_IP" {
				return v
			}
			return ""
		}}.withDefaults()
		if o.MaxPreAuthPerIP != want {
			t.Errorf("OPENCLAW_MAX_PREAUTH_CONNECTIONS_PER_IP=%s: %d, want %d", v, o.MaxPreAuthPerIP, want)
		}
	}
	for _, tc := range []struct {
		opts Options
		err  string
	}{
		{Options{Bind: "loopback", Host: "10.0.0.1", Token: "x"}, "not a loopback address"},
		{Options{Bind: "custom"}, "needs a host"},
		{Options{Bind: "tailnet", Token: "x"}, "not supported"},
		{Options{AuthMode: "trusted-proxy"}, "not supported"},
		{Options{AuthMode: "token"}, "needs a token"},
		{Options{Bind: "custom", Host: "0.0.0.0", AuthMode: "none"}, "without auth"},
		{Options{}, "no token configured and no config file"},
	} {
		tc.opts.Getenv = noenv
		if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("New(%+v) = %v, want %q", tc.opts, err, tc.err)
		}
	}
	// Secrets from the environment when neither flags nor config set them.
	s, err := New(Options{Getenv: func(k string) string {
		if k == "OPENCLAW_GATEWAY_PASSWORD" {
			return "pw"
		}
		return ""
	}})
	if err != nil || s.auth.Load().mode != AuthPassword {
		t.Errorf("env password: %v %+v", err, s.auth.Load())
	}
}
