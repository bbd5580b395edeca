package patch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// apply_patch refuses a write-scoped gateway caller the config's .bak as
// it refuses the config (the file tools' guard), also where the config
// lives outside the state dir; dropping ".bak" from the protected list
// survived every other test (issue 17, item 20).
func TestPatchRefusesConfigBackup(t *testing.T) {
	etc := t.TempDir()
	cfgPath := filepath.Join(etc, "gw.json")
	write(t, cfgPath, `{"gateway":{"auth":{"mode":"token","token":"s3cret"}}}`, 0o600)
	write(t, cfgPath+".bak", "{\"gateway\":{\"auth\":{\"mode\":\"token\"}}}\n", 0o600)
	cfg, err := config.Load(cfgPath, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Doc["tools"] = map[string]any{"exec": map[string]any{"applyPatch": map[string]any{"workspaceOnly": false}}}
	env, _ := testEnv(t, "")
	env.Config = cfg
	env.Subject = tools.Subject{Role: "operator", Scopes: []string{"operator.write"}}
	for _, patch := range []string{
		"*** Begin Patch\n*** Update File: " + cfgPath + ".bak\n@@\n-{\"gateway\":{\"auth\":{\"mode\":\"token\"}}}\n+{\"gateway\":{\"auth\":{\"mode\":\"none\"}}}\n*** End Patch",
		"*** Begin Patch\n*** Delete File: " + cfgPath + ".bak\n*** End Patch",
	} {
		_, err := Apply(context.Background(), env, patch)
		if te := tools.AsError(err); te == nil || te.Code != tools.CodeDenied || !strings.Contains(te.Message, "the gateway's own configuration or state") {
			t.Errorf("%q: got %v, want a denial", patch, err)
		}
	}
	if b, _ := os.ReadFile(cfgPath + ".bak"); string(b) != "{\"gateway\":{\"auth\":{\"mode\":\"token\"}}}\n" {
		t.Fatalf(".bak changed: %q", b)
	}
	if _, err := Apply(context.Background(), env, "*** Begin Patch\n*** Add File: "+filepath.Join(etc, "notes.txt")+"\n+fine\n*** End Patch"); err != nil {
		t.Fatalf("another file beside the config: %v", err)
	}
}
