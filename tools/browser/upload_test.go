package browser

import (
	"context"
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

// TestUploadSwapAfterCheck: what Chromium is handed cannot change after
// the check. A file swapped for a symlink to a file outside the root
// between checkUpload and our open is refused (O_NOFOLLOW); swapped after
// we staged it, the staged copy still holds what was checked, never the
// outside file (Chromium used to open the original path itself, later).
func TestUploadSwapAfterCheck(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	root := filepath.Join(os.TempDir(), "openclaw", "uploads")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(outside, []byte("root:secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "sub", "cv.txt")
	write := func() {
		os.Remove(file)
		if err := os.WriteFile(file, []byte("my cv"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	swap := func() {
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, file); err != nil {
			t.Fatal(err)
		}
	}
	env := &tools.Env{Workspace: root}
	profileDir := t.TempDir()

	write()
	checked, err := checkUpload(env, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	swap() // between the check and the open
	if staged, err := stageUploads(context.Background(), profileDir, checked); tools.AsError(err) == nil || tools.AsError(err).Code != tools.CodeDenied {
		t.Errorf("a file swapped for a symlink after the check: %v %v", staged, err)
	}

	write()
	checked, err = checkUpload(env, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	staged, err := stageUploads(context.Background(), profileDir, checked)
	if err != nil {
		t.Fatal(err)
	}
	swap() // after staging, before Chromium reads it
	if b, err := os.ReadFile(staged[0]); err != nil || string(b) != "my cv" || filepath.Base(staged[0]) != "cv.txt" {
		t.Errorf("what Chromium reads after the swap: %s %q %v", staged[0], b, err)
	}
	if !strings.HasPrefix(staged[0], profileDir) {
		t.Errorf("staged outside the profile: %s", staged[0])
	}

	// A directory below the root swapped for a symlink is refused too.
	write()
	checked, _ = checkUpload(env, []string{file})
	if err := os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "old"), filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, err := stageUploads(context.Background(), profileDir, checked); tools.AsError(err) == nil || tools.AsError(err).Code != tools.CodeDenied {
		t.Errorf("a directory swapped for a symlink: %v", err)
	}
}
