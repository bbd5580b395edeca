package all

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/openclaw-go/openclaw/"

// The intended picture holds in code (issue 7): families import tools, never
// the gateway, the CLI or the client; the client speaks protocol (+ the leaf
// error package) only; the gateway gets families through tools/all, not by
// importing them; failure, atomicfile, flock, mediaref, texttable and a2ui are leaves; the
// store packages import no tools. The CLI (commands) and the routing package
// import no family: cmd/openclaw links them (issue 16).
func TestImportRules(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := func(rel string) []string {
		t.Helper()
		pkg, err := build.ImportDir(filepath.Join(root, rel), 0)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		var out []string
		for _, p := range pkg.Imports { // non-test files only
			if strings.HasPrefix(p, module) {
				out = append(out, strings.TrimPrefix(p, module))
			}
		}
		return out
	}
	forbid := func(rel string, bad func(string) bool) {
		t.Helper()
		for _, p := range imports(rel) {
			if bad(p) {
				t.Errorf("%s imports %s", rel, p)
			}
		}
	}
	isFamily := func(p string) bool {
		return strings.HasPrefix(p, "tools/") && p != "tools/all"
	}
	// Leaves import nothing of this module; anyone may import them.
	leaves := map[string]bool{"failure": true, "atomicfile": true, "flock": true, "mediaref": true, "texttable": true, "a2ui": true}
	for leaf := range leaves {
		forbid(leaf, func(string) bool { return true })
	}
	forbid("client", func(p string) bool { return p != "protocol" && !leaves[p] })
	forbid("protocol", func(p string) bool { return p != "failure" })
	forbid("tools", func(p string) bool {
		return p == "gateway" || p == "commands" || p == "client" || strings.HasPrefix(p, "tools/")
	})
	// Nothing below tools imports it: the store packages carry their own
	// types (store/media's MediaRef is the leaf mediaref's).
	for _, below := range []string{"store", "store/media"} {
		forbid(below, func(p string) bool { return p == "tools" || strings.HasPrefix(p, "tools/") })
	}
	forbid("gateway", func(p string) bool { return p == "commands" || isFamily(p) || p == "tools/all" })
	// The CLI knows no family by name (issue 16): the binary links them
	// where it is assembled, and routing is shared by every front door.
	// A pure helper below tools/ that imports nothing of this module and
	// registers nothing (cronexpr's schedule and time parsing) is not a
	// family: the CLI may check a time with it before it relays.
	pure := func(p string) bool {
		return strings.HasPrefix(p, "tools/") && strings.Count(p, "/") >= 2 && len(imports(p)) == 0
	}
	forbid("commands", func(p string) bool { return (isFamily(p) && !pure(p)) || p == "tools/all" })
	forbid("route", func(p string) bool {
		return p == "gateway" || p == "commands" || isFamily(p) || p == "tools/all"
	})
	if !slices.Contains(imports("cmd/openclaw"), "tools/all") {
		t.Errorf("cmd/openclaw does not link the families (tools/all)")
	}
	entries, err := os.ReadDir(filepath.Join(root, "tools"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "all" {
			continue
		}
		if _, err := build.ImportDir(filepath.Join(root, "tools", e.Name()), 0); err != nil {
			continue // not a Go package (schema data)
		}
		n++
		forbid("tools/"+e.Name(), func(p string) bool {
			return p == "gateway" || p == "commands" || p == "client" || p == "tools/all"
		})
	}
	if n < 2 {
		t.Errorf("only %d families checked", n)
	}
}
