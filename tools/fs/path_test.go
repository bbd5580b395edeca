package fs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// symlink makes a link or fails the test: the confinement tests are
// security tests, and a skipped one would hide an escape.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatalf("cannot create the symlink the test needs: %v", err)
	}
}

func TestWorkspaceOnly(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	writeFile(t, outside, "secret.txt", "secret\n")
	writeFile(t, ws, "real.txt", "inside\n")
	symlink(t, outside, filepath.Join(ws, "out"))                              // dir link leaving the workspace
	symlink(t, filepath.Join(outside, "new.txt"), filepath.Join(ws, "dangle")) // dangling link to outside
	symlink(t, "real.txt", filepath.Join(ws, "alias.txt"))                     // link staying inside

	open := &tools.Env{Config: nil, StateDir: base, Workspace: ws}
	if got := text(mustCall(t, open, "read", map[string]any{"path": "../outside/secret.txt"})); got != "secret\n" {
		t.Fatalf("unconfined read = %q", got)
	}

	env := confined(&tools.Env{StateDir: base, Workspace: ws})
	escape := func(p string) string { return "Path escapes workspace root (" + ws + "): " + p }
	for _, c := range []struct{ id, path string }{
		{"read", "../outside/secret.txt"},
		{"read", filepath.Join(outside, "secret.txt")},
		{"read", "out/secret.txt"},
		{"write", "out/new.txt"},
		{"write", "dangle"},
		{"edit", "out/secret.txt"},
		{"read", "~/x"},
	} {
		t.Setenv("OPENCLAW_HOME", outside)
		_, err := call(t, env, c.id, map[string]any{"path": c.path, "content": "x", "oldText": "secret", "newText": "leak"})
		wantErr(t, err, tools.CodeDenied, escape(c.path))
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("a refused write created a file outside: %v", err)
	}
	if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "secret\n" {
		t.Fatalf("outside file changed: %q", got)
	}

	// Inside the workspace, symlinks and ../ that come back are fine.
	for _, p := range []string{"alias.txt", "real.txt", "../ws/real.txt", filepath.Join(ws, "real.txt")} {
		if got := text(mustCall(t, env, "read", map[string]any{"path": p})); got != "inside\n" {
			t.Errorf("%s: %q", p, got)
		}
	}
	mustCall(t, env, "edit", map[string]any{"path": "alias.txt", "oldText": "inside", "newText": "edited"})
	if got := readFile(t, filepath.Join(ws, "real.txt")); got != "edited\n" {
		t.Fatalf("edit through inside link: %q", got)
	}
	mustCall(t, env, "write", map[string]any{"path": "sub/new.txt", "content": "ok"})
}

// A workspace reached through a symlink still contains its own files.
func TestWorkspaceOnlyLinkedRoot(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	writeFile(t, real, "a.txt", "a\n")
	link := filepath.Join(base, "link")
	symlink(t, real, link)
	env := confined(&tools.Env{StateDir: base, Workspace: link})
	if got := text(mustCall(t, env, "read", map[string]any{"path": "a.txt"})); got != "a\n" {
		t.Fatalf("read = %q", got)
	}
	_, err := call(t, env, "read", map[string]any{"path": filepath.Join(base, "real", "..", "x")})
	wantErr(t, err, tools.CodeDenied, "Path escapes workspace root ("+link+"): "+filepath.Join(base, "real", "..", "x"))
}
