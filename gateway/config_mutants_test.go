package gateway

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

// These pin methods_config.go lines that a one-line mutation (`make
// mutate`) could change with the other tests still passing (issue 17,
// item 20).

// replacePaths patterns: "*" matches one key, "[]" and "[n]" any index;
// a different key at any position is no match.
func TestPathListed(t *testing.T) {
	for _, c := range []struct {
		path     string
		patterns []string
		want     bool
	}{
		{"agents.list", []string{"agents.list"}, true},
		{"agents.list", []string{"agents.other"}, false},
		{"a.b", []string{"a.c", "x.b"}, false},
		{"a.b.c", []string{"a.*.c"}, true},
		{"a.b", []string{"a.b.c"}, false},
		{"list[3].id", []string{"list[].id"}, true},
		{"list[3].id", []string{"list[].name"}, false},
		{"[1].a", []string{"[].a"}, true},
		{"[1].a", []string{"[].b"}, false},
		{"[1].a", []string{"[0].a"}, true}, // any index, also at the start
	} {
		if got := pathListed(c.path, c.patterns); got != c.want {
			t.Errorf("pathListed(%q, %q) = %v, want %v", c.path, c.patterns, got, c.want)
		}
	}
}

// A config write logs what it wrote and its note; a write the running
// gateway applied logs no "kept its config" warning; an invalid one
// answers its issues in the error's details.
func TestConfigWriteLogAndIssues(t *testing.T) {
	if noteSuffix("") != "" || noteSuffix("why") != " — why" {
		t.Errorf("noteSuffix: %q %q", noteSuffix(""), noteSuffix("why"))
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1})
	c := dialConnected(t, ts.url)
	if f := c.call("config.set", map[string]any{"raw": `{tools: {profile: "minimal"}}`}); !f.OK {
		t.Fatalf("config.set: %+v", f.Error)
	}
	hash := decode[map[string]any](t, c.call("config.get", nil).Payload)["hash"]
	if f := c.call("config.patch", map[string]any{"raw": `{tools: {profile: "coding"}}`, "baseHash": hash, "note": "tighten"}); !f.OK {
		t.Fatalf("config.patch: %+v", f.Error)
	}
	log := gatewayLog(dir)
	if !strings.Contains(log, "config.set: wrote") || !strings.Contains(log, "config.patch: wrote") || !strings.Contains(log, " — tighten") {
		t.Errorf("the write and its note are not logged:\n%s", log)
	}
	if strings.Contains(log, "kept its config") {
		t.Errorf("an applied write logged a failure:\n%s", log)
	}
	hash = decode[map[string]any](t, c.call("config.get", nil).Payload)["hash"]
	f := c.call("config.set", map[string]any{"raw": `{tools: {profile: 5}}`, "baseHash": hash})
	if f.OK || f.Error == nil {
		t.Fatalf("an invalid config was written: %s", f.Payload)
	}
	details, _ := f.Error.Details.(map[string]any)
	if issues, _ := details["issues"].([]any); len(issues) == 0 {
		t.Errorf("invalid config: no issues in the details: %+v", f.Error)
	}
}
