package fs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/patch"
)

// withEditCap sets tools.fs.editMaxBytes.
func withEditCap(env *tools.Env, n int) *tools.Env {
	cfg := config.Empty()
	cfg.Doc["tools"] = map[string]any{"fs": map[string]any{"editMaxBytes": float64(n)}}
	env.Config = cfg
	return env
}

// edit holds the whole file in memory (several copies while it replaces),
// so a file over the cap is refused before a byte is read, with the key
// that raises it in the message. The default cap (16 MiB) is checked with
// a sparse file, which costs no disk.
func TestEditRefusesFilesOverTheCap(t *testing.T) {
	env, dir := newEnv(t)
	p := filepath.Join(dir, "huge.bin")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("needle\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(16<<20 + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = call(t, env, "edit", map[string]any{"path": "huge.bin", "oldText": "needle", "newText": "pin"})
	wantErr(t, err, tools.CodeFailed, "huge.bin is 16777217 bytes, over the edit limit of 16777216 (tools.fs.editMaxBytes); nothing was changed. "+
		"Raise the limit with `openclaw config set tools.fs.editMaxBytes <bytes>`.")
	if fi, _ := os.Stat(p); fi.Size() != 16<<20+1 {
		t.Fatalf("size changed: %d", fi.Size())
	}

	small := writeFile(t, dir, "small.txt", strings.Repeat("a", 90)+"needle\n"+"bbb") // 100 bytes
	withEditCap(env, 99)
	_, err = call(t, env, "edit", map[string]any{"path": "small.txt", "oldText": "needle", "newText": "pin"})
	wantErr(t, err, tools.CodeFailed, "small.txt is 100 bytes, over the edit limit of 99 (tools.fs.editMaxBytes); nothing was changed. "+
		"Raise the limit with `openclaw config set tools.fs.editMaxBytes <bytes>`.")
	withEditCap(env, 100)
	mustCall(t, env, "edit", map[string]any{"path": "small.txt", "oldText": "needle", "newText": "pin"})
	if got := readFile(t, small); got != strings.Repeat("a", 90)+"pin\nbbb" {
		t.Fatalf("file = %q", got)
	}
}

// apply_patch reads the files it changes through the same cap.
func TestApplyPatchRefusesFilesOverTheEditCap(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "f.txt", strings.Repeat("x\n", 50)) // 100 bytes
	patch := "*** Begin Patch\n*** Update File: f.txt\n@@\n-x\n+y\n x\n*** End Patch\n"
	withEditCap(env, 99)
	_, err := call(t, env, "apply_patch", map[string]any{"input": patch})
	wantErr(t, err, tools.CodeFailed, "f.txt is 100 bytes, over the edit limit of 99 (tools.fs.editMaxBytes); nothing was changed. "+
		"Raise the limit with `openclaw config set tools.fs.editMaxBytes <bytes>`.")
	if readFile(t, p) != strings.Repeat("x\n", 50) {
		t.Fatal("file changed")
	}
	withEditCap(env, 100)
	mustCall(t, env, "apply_patch", map[string]any{"input": patch})
	if got := readFile(t, p); got != "y\n"+strings.Repeat("x\n", 49) {
		t.Fatalf("file = %q", got)
	}
}

// The key is in the config schema (no "unrecognized key" warning), a
// positive integer.
func TestEditCapKeyValidates(t *testing.T) {
	doc := func(v any) map[string]any {
		return map[string]any{"tools": map[string]any{"fs": map[string]any{"editMaxBytes": v}}}
	}
	if iss, warn := config.Validate(doc(float64(1 << 20))); len(iss)+len(warn) != 0 {
		t.Fatalf("issues %v, warnings %v", iss, warn)
	}
	for _, bad := range []any{float64(0), float64(-1), 1.5, "big"} {
		if iss, _ := config.Validate(doc(bad)); len(iss) == 0 {
			t.Errorf("editMaxBytes %v accepted", bad)
		}
	}
}
