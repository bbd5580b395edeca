package fs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// The config's .bak is protected where the config lives, outside the state
// dir too (inside it the state-dir rule covers it anyway, which is why
// dropping ".bak" from the protected list survived every other test, issue
// 17, item 20): restoring a .bak is how a config comes back, so writing it
// is writing the config.
func TestGatewayConfigBackupElsewhereNeedsAdmin(t *testing.T) {
	etc := t.TempDir()
	cfgPath := filepath.Join(etc, "gw.json")
	writeFile(t, etc, "gw.json", `{"gateway":{"auth":{"mode":"token","token":"s3cret"}}}`)
	writeFile(t, etc, "gw.json.bak", `{"gateway":{"auth":{"mode":"token","token":"old"}}}`)
	cfg, err := config.Load(cfgPath, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	symlink(t, cfgPath+".bak", filepath.Join(ws, "bak-link.json"))
	env := &tools.Env{Config: cfg, StateDir: t.TempDir(), Workspace: ws,
		Subject: tools.Subject{Role: "operator", Scopes: []string{"operator.write"}}}
	for _, c := range []struct{ id, path string }{
		{"write", cfgPath + ".bak"},
		{"edit", cfgPath + ".bak"},
		{"write", "bak-link.json"},
	} {
		_, err := call(t, env, c.id, map[string]any{"path": c.path, "content": `{"gateway":{"auth":{"mode":"none"}}}`,
			"oldText": "token", "newText": "none"})
		wantErr(t, err, tools.CodeDenied, refused(c.path))
	}
	if got := readFile(t, cfgPath+".bak"); got != `{"gateway":{"auth":{"mode":"token","token":"old"}}}` {
		t.Fatalf(".bak changed: %s", got)
	}
	// A missing .bak is protected before it exists.
	if err := os.Remove(cfgPath + ".bak"); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, env, "write", map[string]any{"path": cfgPath + ".bak", "content": "{}"})
	wantErr(t, err, tools.CodeDenied, refused(cfgPath+".bak"))
	mustCall(t, env, "write", map[string]any{"path": filepath.Join(etc, "gw.json.notes"), "content": "fine"})
}
