package nodehost

import (
	"go/build"
	"strings"
	"testing"
)

// The node host is a front door: it reaches the families through
// tools.Invoke only (cmd/openclaw links them), never imports one, the
// gateway or the CLI.
func TestImportsNoFamily(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkg.Imports {
		rel, ok := strings.CutPrefix(p, "github.com/openclaw-go/openclaw/")
		if !ok {
			continue
		}
		if strings.HasPrefix(rel, "tools/") || rel == "gateway" || rel == "commands" || strings.HasPrefix(rel, "store") {
			t.Errorf("nodehost imports %s", rel)
		}
	}
}
