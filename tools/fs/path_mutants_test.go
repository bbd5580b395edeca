package fs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// A relative symlink whose target climbs with ".." leaves the workspace as
// surely as an absolute one: resolving it must apply each ".." (a mutation
// that skipped them survived every other test, issue 17, item 20), and a
// ".." that comes back inside is fine.
func TestWorkspaceOnlyRelativeLinkWithDotDot(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	writeFile(t, base, "secret.txt", "secret\n")
	writeFile(t, base, "outside/deep.txt", "deep secret\n")
	writeFile(t, ws, "inside.txt", "inside\n")
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "../secret.txt", filepath.Join(ws, "up.txt"))               // file one level up
	symlink(t, "../../outside", filepath.Join(ws, "sub", "out"))           // directory two levels up
	symlink(t, "sub/../../secret.txt", filepath.Join(ws, "mixed.txt"))     // down, then out
	symlink(t, "../new.txt", filepath.Join(ws, "dangle.txt"))              // dangling, outside
	symlink(t, "../inside.txt", filepath.Join(ws, "sub", "back.txt"))      // up, still inside
	symlink(t, "../sub/../inside.txt", filepath.Join(ws, "sub", "b2.txt")) // up and down, inside

	env := confined(&tools.Env{StateDir: base, Workspace: ws})
	escape := func(p string) string { return "Path escapes workspace root (" + ws + "): " + p }
	for _, c := range []struct{ id, path string }{
		{"read", "up.txt"},
		{"read", "sub/out/deep.txt"},
		{"read", "mixed.txt"},
		{"write", "up.txt"},
		{"write", "sub/out/new.txt"},
		{"write", "dangle.txt"},
		{"edit", "up.txt"},
		{"edit", "sub/out/deep.txt"},
	} {
		_, err := call(t, env, c.id, map[string]any{"path": c.path, "content": "x", "oldText": "secret", "newText": "leak"})
		wantErr(t, err, tools.CodeDenied, escape(c.path))
	}
	if got := readFile(t, filepath.Join(base, "secret.txt")); got != "secret\n" {
		t.Fatalf("outside file changed: %q", got)
	}
	for _, p := range []string{filepath.Join(base, "new.txt"), filepath.Join(base, "outside", "new.txt"), filepath.Join(ws, "secret.txt")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("a refused write created %s: %v", p, err)
		}
	}
	for _, p := range []string{"sub/back.txt", "sub/b2.txt"} {
		if got := text(mustCall(t, env, "read", map[string]any{"path": p})); got != "inside\n" {
			t.Errorf("%s: %q", p, got)
		}
	}
}
