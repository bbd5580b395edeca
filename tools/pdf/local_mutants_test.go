package pdf_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// A relative symlink whose target climbs out of the workspace with ".." is
// refused like an absolute one under tools.fs.workspaceOnly (a mutation
// that skipped ".." in link targets survived every other test, issue 17,
// item 20); one that comes back inside is read.
func TestLocalPDFRelativeLinkWithDotDot(t *testing.T) {
	env, dir := newEnv(t)
	env.Config = &config.Config{Doc: map[string]any{"tools": map[string]any{"fs": map[string]any{"workspaceOnly": true}}}}
	secret := writePDF(t, t.TempDir(), "secret.pdf", []page{{lines: []string{"Outside"}}})
	writePDF(t, dir, "inside.pdf", []page{{lines: []string{"Inside"}}})
	rel, err := filepath.Rel(dir, secret)
	if err != nil || !strings.HasPrefix(rel, "..") {
		t.Fatalf("no relative way out of the workspace: %q %v", rel, err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"up.pdf": rel, "sub/up.pdf": "../" + rel, "sub/back.pdf": "../inside.pdf"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range []string{"up.pdf", "sub/up.pdf"} {
		_, err := invoke(t, env, map[string]any{"pdf": ref})
		if te := tools.AsError(err); te == nil || te.Code != tools.CodeDenied || !strings.Contains(te.Message, "escapes workspace root") {
			t.Errorf("%s (-> %s) with workspaceOnly: got %v, want a denial", ref, rel, err)
		}
	}
	if _, err := invoke(t, env, map[string]any{"pdf": "sub/back.pdf"}); err != nil {
		t.Errorf("sub/back.pdf (-> ../inside.pdf, inside): %v", err)
	}
}
