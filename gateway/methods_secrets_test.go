package gateway

import (
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

// secrets.reload re-reads the config from disk (the watcher is off here)
// and answers as the original, {ok, warningCount}, counting the SecretRefs
// that do not resolve.
func TestSecretsReload(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	ref := func(id string) string {
		return `{models: {providers: {local: {apiKey: {source: "env", provider: "default", id: "` + id + `"}, models: []}}}}`
	}
	writeFile(t, cfgPath, ref("OC_PRESENT"))
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1,
		Getenv: func(k string) string {
			if k == "OC_PRESENT" {
				return "sk-x"
			}
			return ""
		}})
	c := dialConnected(t, ts.url)
	if f := c.call("secrets.reload", map[string]any{}); !f.OK || string(f.Payload) != `{"ok":true,"warningCount":0}` {
		t.Fatalf("secrets.reload = %s %+v", f.Payload, f.Error)
	}
	writeFile(t, cfgPath, ref("OC_MISSING"))
	if f := c.call("secrets.reload", nil); !f.OK || string(f.Payload) != `{"ok":true,"warningCount":1}` {
		t.Errorf("secrets.reload after the edit = %s %+v", f.Payload, f.Error)
	}
	if f := c.call("secrets.reload", map[string]any{"bogus": 1}); f.OK {
		t.Errorf("an unknown param is refused: %s", f.Payload)
	}
}
