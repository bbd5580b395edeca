package patch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// A relative symlink whose target climbs out with ".." is an escape like
// an absolute one: apply_patch refuses to update through it or add below
// it (a mutation that skipped ".." in link targets survived every other
// test, issue 17, item 20); a ".." that comes back inside is fine.
func TestPatchRelativeLinkWithDotDot(t *testing.T) {
	env, ws := testEnv(t, "")
	base := filepath.Dir(ws)
	write(t, filepath.Join(base, "secret.txt"), "secret\n", 0o644)
	write(t, filepath.Join(base, "outside", "keep.txt"), "x\n", 0o644)
	write(t, filepath.Join(ws, "sub", "inside.txt"), "inside\n", 0o644)
	for link, target := range map[string]string{
		"up.txt":    "../secret.txt",
		"sub/out":   "../../outside",
		"mixed.txt": "sub/../../secret.txt",
		"sub/back":  "../sub/inside.txt",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, patch := range []string{
		"*** Begin Patch\n*** Update File: up.txt\n@@\n-secret\n+leak\n*** End Patch",
		"*** Begin Patch\n*** Update File: mixed.txt\n@@\n-secret\n+leak\n*** End Patch",
		"*** Begin Patch\n*** Add File: sub/out/new.txt\n+leak\n*** End Patch",
		"*** Begin Patch\n*** Update File: sub/inside.txt\n*** Move to: up.txt\n@@\n-inside\n+leak\n*** End Patch",
	} {
		_, err := Apply(context.Background(), env, patch)
		if te := tools.AsError(err); te == nil || te.Code != tools.CodeDenied || !strings.Contains(te.Message, "path escapes the workspace") {
			t.Errorf("%q: got %v, want the path guard", patch, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(base, "secret.txt")); string(b) != "secret\n" {
		t.Fatalf("outside file changed: %q", b)
	}
	for _, p := range []string{filepath.Join(base, "outside", "new.txt"), filepath.Join(ws, "secret.txt"), filepath.Join(ws, "outside")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("a refused patch created %s: %v", p, err)
		}
	}
	if _, err := Apply(context.Background(), env, "*** Begin Patch\n*** Update File: sub/back\n@@\n-inside\n+edited\n*** End Patch"); err != nil {
		t.Fatalf("a link that comes back inside: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", "inside.txt")); string(b) != "edited\n" {
		t.Fatalf("update through an inside link: %q", b)
	}
}
