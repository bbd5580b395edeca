package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// TestCheckUpload: only regular files under the uploads root pass; a path
// outside it, a traversal out of it, a symlinked directory inside it and a
// hard link are refused as policy denials.
func TestCheckUpload(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	root := filepath.Join(os.TempDir(), "openclaw", "uploads")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(root, "ok.txt")
	if err := os.WriteFile(ok, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(root, "hard.txt")
	if err := os.Link(ok, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Workspace: root}
	lone := filepath.Join(root, "lone.txt")
	if err := os.WriteFile(lone, []byte("y"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := checkUpload(env, []string{lone, "lone.txt"}); err != nil || got[0] != lone || got[1] != lone {
		t.Errorf("files in the root: %v %v", got, err)
	}
	for name, p := range map[string]string{
		"outside":   outside,
		"traversal": filepath.Join(root, "..", "..", "..", strings.TrimPrefix(outside, "/")),
		"dir link":  filepath.Join(root, "dirlink", "secret.txt"),
		"hard link": hard,
	} {
		_, err := checkUpload(env, []string{p})
		if e := tools.AsError(err); e == nil || e.Code != tools.CodeDenied {
			t.Errorf("%s (%s): %v", name, p, err)
		}
	}
	if _, err := checkUpload(env, nil); tools.AsError(err) == nil {
		t.Error("no paths accepted")
	}
}
