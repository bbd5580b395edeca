package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// The sandbox mode an agent's sessions get, and which key set it.
func TestSandboxMode(t *testing.T) {
	cfg, err := Load(filepath.Join("testdata", "full.json5"), envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ agent, mode, key string }{
		{"main", "non-main", "agents.defaults.sandbox.mode"},
		{"coder", "all", "agents.list[1].sandbox.mode"},
		{"other", "non-main", "agents.defaults.sandbox.mode"},
	} {
		if mode, key := cfg.SandboxMode(c.agent); mode != c.mode || key != c.key {
			t.Errorf("%s: %s at %s, want %s at %s", c.agent, mode, key, c.mode, c.key)
		}
	}
	if mode, key := Empty().SandboxMode("main"); mode != "off" || key != "" {
		t.Errorf("empty config: %s %s", mode, key)
	}
	for _, c := range []struct {
		mode string
		main bool
		want bool
	}{
		{"off", false, false}, {"", false, false}, {"non-main", true, false}, {"non-main", false, true},
		{"all", true, true}, {"bogus", true, true}, // an unknown mode fails closed
	} {
		if got := Sandboxed(c.mode, c.main); got != c.want {
			t.Errorf("Sandboxed(%q, main=%v) = %v", c.mode, c.main, got)
		}
	}
	req := cfg.SandboxRequests()
	if len(req) != 2 || !strings.HasPrefix(req[0], `agents.defaults.sandbox.mode is "non-main": the commands of every session but the main one run in the sandbox`) ||
		!strings.HasPrefix(req[1], `agents.list[1].sandbox.mode is "all"`) {
		t.Errorf("start lines: %q", req)
	}
}
