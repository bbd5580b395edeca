package patch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

func testEnv(t testing.TB, cfg string) (*tools.Env, string) {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	c := config.Empty()
	if cfg != "" {
		v, err := config.ParseJSON5([]byte(cfg))
		if err != nil {
			t.Fatal(err)
		}
		c.Doc = v.(map[string]any)
	}
	return &tools.Env{Config: c, StateDir: filepath.Join(dir, "state"), Workspace: ws}, ws
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func patchOf(lines ...string) string {
	return "*** Begin Patch\n" + strings.Join(lines, "\n") + "\n*** End Patch"
}

// A patch whose third file fails leaves the first two unchanged (the
// original applied them).
func TestApplyAllOrNothing(t *testing.T) {
	env, ws := testEnv(t, "")
	write(t, filepath.Join(ws, "one.txt"), "1\n", 0o644)
	write(t, filepath.Join(ws, "three.txt"), "3\n", 0o644)
	_, err := Apply(context.Background(), env, patchOf(
		"*** Update File: one.txt", "@@", "-1", "+uno",
		"*** Add File: two.txt", "+dos",
		"*** Update File: three.txt", "@@", "-nope", "+tres",
	))
	if err == nil || !strings.Contains(err.Error(), "Failed to find expected lines in three.txt:\nnope") {
		t.Fatalf("err = %v", err)
	}
	if got := read(t, filepath.Join(ws, "one.txt")); got != "1\n" {
		t.Errorf("one.txt = %q, want unchanged", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "two.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("two.txt exists after a failed patch: %v", err)
	}
	assertNoTemps(t, ws)
}

// A failure while the files are being renamed into place (here: the second
// file changes underneath just before its rename) undoes the first.
func TestApplyRollsBackCommittedFiles(t *testing.T) {
	env, ws := testEnv(t, "")
	a, b, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt"), filepath.Join(ws, "gone.txt")
	write(t, a, "a\n", 0o600)
	write(t, b, "b\n", 0o644)
	write(t, c, "c\n", 0o644)
	n := 0
	ctx := fs.WithBeforeCommit(context.Background(), func(path string) {
		if n++; filepath.Base(path) == "b.txt" {
			write(t, b, "changed by someone else\n", 0o644)
		}
	})
	_, err := Apply(ctx, env, patchOf(
		"*** Delete File: gone.txt",
		"*** Update File: a.txt", "@@", "-a", "+A",
		"*** Update File: b.txt", "@@", "-b", "+B",
	))
	if err == nil || !strings.Contains(err.Error(), "File changed while editing") {
		t.Fatalf("err = %v", err)
	}
	if got := read(t, a); got != "a\n" {
		t.Errorf("a.txt = %q, want rolled back", got)
	}
	if fi, _ := os.Stat(a); fi.Mode().Perm() != 0o600 {
		t.Errorf("a.txt mode = %v after rollback", fi.Mode())
	}
	if got := read(t, c); got != "c\n" {
		t.Errorf("gone.txt = %q, want restored", got)
	}
	if got := read(t, b); got != "changed by someone else\n" {
		t.Errorf("b.txt = %q, want the other writer's content", got)
	}
	assertNoTemps(t, ws)
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") && d.Name() != "." {
			t.Errorf("leftover %s", p)
		}
		return nil
	})
}

func TestApplyKeepsCRLFBOMAndMode(t *testing.T) {
	env, ws := testEnv(t, "")
	p := filepath.Join(ws, "win.txt")
	write(t, p, "\uFEFFone\r\ntwo\r\nthree\r\n", 0o755)
	res, err := Apply(context.Background(), env, patchOf("*** Update File: win.txt", "@@", " one", "-two", "+TWO", "+2b"))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "\uFEFFone\r\nTWO\r\n2b\r\nthree\r\n" {
		t.Errorf("content = %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v", fi.Mode())
	}
	if res.Content[0].Text != "Success. Updated the following files:\nM win.txt" {
		t.Errorf("text = %q", res.Content[0].Text)
	}
}

func TestApplyFuzzLadderAndEOF(t *testing.T) {
	env, ws := testEnv(t, "")
	p := filepath.Join(ws, "q.txt")
	write(t, p, "x = “a” — b  \n\tindented\nend\nend\n", 0o644)
	_, err := Apply(context.Background(), env, patchOf(
		"*** Update File: q.txt",
		"@@",
		`-x = "a" - b`,
		"+x = 1",
		"@@",
		"- indented ",
		"+indented",
		"@@",
		"-end",
		"+END",
		"*** End of File",
	))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "x = 1\nindented\nend\nEND\n" {
		t.Errorf("content = %q", got)
	}
}

func TestApplyContextAndInsertion(t *testing.T) {
	env, ws := testEnv(t, "")
	p := filepath.Join(ws, "c.go")
	write(t, p, "func a() {\n\treturn\n}\nfunc b() {\n\treturn\n}", 0o644)
	_, err := Apply(context.Background(), env, patchOf(
		"*** Update File: c.go",
		"@@ func b() {",
		"-\treturn",
		"+\treturn 2",
		"@@",
		"+// tail",
	))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "func a() {\n\treturn\n}\nfunc b() {\n\treturn 2\n}\n// tail\n" {
		t.Errorf("content = %q", got)
	}
	_, err = Apply(context.Background(), env, patchOf("*** Update File: c.go", "@@ func zz", "-x"))
	if err == nil || err.Error() != "Failed to find context 'func zz' in c.go" {
		t.Errorf("err = %v", err)
	}
}

func TestApplyConfinement(t *testing.T) {
	env, ws := testEnv(t, "")
	outside := filepath.Join(filepath.Dir(ws), "outside.txt")
	write(t, outside, "secret\n", 0o644)
	if err := os.Symlink(outside, filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(ws), filepath.Join(ws, "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(ws, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		patchOf("*** Update File: link.txt", "@@", "-secret", "+x"),
		patchOf("*** Add File: up/new.txt", "+x"),
		patchOf("*** Add File: ../new.txt", "+x"),
		patchOf("*** Add File: "+outside, "+x"),
		patchOf("*** Update File: hard.txt", "@@", "-secret", "+x"),
		patchOf("*** Update File: ok.txt", "*** Move to: ../moved.txt", "@@", "-a", "+b"),
	} {
		write(t, filepath.Join(ws, "ok.txt"), "a\n", 0o644)
		_, err := Apply(context.Background(), env, p)
		if failure.AsError(err).Code != tools.CodeDenied || !strings.Contains(err.Error(), "apply_patch:path_guard") {
			t.Errorf("%q: err = %v", p, err)
		}
	}
	if got := read(t, outside); got != "secret\n" {
		t.Errorf("outside = %q", got)
	}
	// Deleting a symlink removes the link, not its target.
	if _, err := Apply(context.Background(), env, patchOf("*** Delete File: link.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(ws, "link.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("link still there: %v", err)
	}
	if got := read(t, outside); got != "secret\n" {
		t.Errorf("outside = %q", got)
	}
	// With workspaceOnly off, an outside path is allowed.
	env2, _ := testEnv(t, `{"tools":{"exec":{"applyPatch":{"workspaceOnly":false}}}}`)
	res, err := Apply(context.Background(), env2, patchOf("*** Update File: "+outside, "@@", "-secret", "+open"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Content[0].Text != "Success. Updated the following files:\nM "+outside {
		t.Errorf("text = %q", res.Content[0].Text)
	}
}

func TestApplyErrors(t *testing.T) {
	env, _ := testEnv(t, "")
	for in, want := range map[string]string{
		"   ":                            "Provide a patch input.",
		"*** Begin Patch\n*** End Patch": "No files were modified.",
		patchOf("*** Update File: missing.txt", "@@", "-a"): "Failed to read file to update missing.txt",
		patchOf("*** Delete File: missing.txt"):             "Failed to delete file missing.txt",
	} {
		_, err := Apply(context.Background(), env, in)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
}

// Sequences on one path within a patch see each other's results.
func TestApplySequencesOnOnePath(t *testing.T) {
	env, ws := testEnv(t, "")
	write(t, filepath.Join(ws, "f.txt"), "a\n", 0o644)
	res, err := Apply(context.Background(), env, patchOf(
		"*** Delete File: f.txt",
		"*** Add File: f.txt", "+b",
		"*** Update File: f.txt", "@@", "-b", "+c",
	))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(ws, "f.txt")); got != "c\n" {
		t.Errorf("f.txt = %q", got)
	}
	d := res.Details.(map[string]any)["summary"].(*Summary)
	if strings.Join(d.Added, ",") != "f.txt" || strings.Join(d.Modified, ",") != "f.txt" || strings.Join(d.Deleted, ",") != "f.txt" {
		t.Errorf("summary = %+v", d)
	}
}
