package image_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// A relative symlink whose target climbs out of the workspace with ".." is
// refused like an absolute one under tools.fs.workspaceOnly (a mutation
// that skipped ".." in link targets survived every other test, issue 17,
// item 20); one that comes back inside is not.
func TestLocalImageRelativeLinkWithDotDot(t *testing.T) {
	env := newEnv(t, map[string]any{"tools": map[string]any{"fs": map[string]any{"workspaceOnly": true}}})
	outside := filepath.Join(t.TempDir(), "secret.png")
	if err := os.WriteFile(outside, png, 0o600); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(env.Workspace, outside)
	if err != nil || !strings.HasPrefix(rel, "..") {
		t.Fatalf("no relative way out of the workspace: %q %v", rel, err)
	}
	if err := os.Mkdir(filepath.Join(env.Workspace, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"up.png": rel, "sub/up.png": "../" + rel, "sub/back.png": "../cat.png"} {
		if err := os.Symlink(target, filepath.Join(env.Workspace, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range []string{"up.png", "sub/up.png"} {
		_, err := invoke(env, map[string]any{"image": ref, "model": "none/none"})
		if te := tools.AsError(err); te == nil || te.Code != tools.CodeDenied || !strings.Contains(te.Message, "escapes workspace root") {
			t.Errorf("%s (-> %s) with workspaceOnly: got %v, want a denial", ref, rel, err)
		}
	}
	_, err = invoke(env, map[string]any{"image": "sub/back.png", "model": "none/none"})
	if te := tools.AsError(err); te != nil && te.Code == tools.CodeDenied {
		t.Errorf("sub/back.png (-> ../cat.png, inside): %v", err)
	}
}
