package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sized is a JSON5 object { note: "aaa…" } of exactly n bytes.
func sized(t *testing.T, n int) string {
	t.Helper()
	const shell = `{ note: "" }`
	if n < len(shell) {
		t.Fatalf("sized(%d): too small", n)
	}
	return `{ note: "` + strings.Repeat("a", n-len(shell)) + `" }`
}

// refs is a JSON array naming each file in order.
func refs(names ...string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return "[" + strings.Join(q, ",") + "]"
}

func repeat(name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = name
	}
	return out
}

// A config reached through a symlinked directory includes files beside
// it: the roots are compared with symlinks resolved on both sides.
func TestIncludeFromSymlinkedConfigDir(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	writeFile(t, real, "a.json5", `{ profile: "coding" }`)
	writeFile(t, real, "openclaw.json", `{ tools: { "$include": "a.json5" } }`)
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(filepath.Join(link, "openclaw.json"), envMap(nil))
	if err != nil {
		t.Fatalf("Load through a symlinked dir: %v", err)
	}
	if v, _ := cfg.Get("tools.profile"); v != "coding" {
		t.Errorf("tools.profile = %v, want coding", v)
	}
}

// An include path must be shorter than maxIncludePath bytes: one byte
// less loads (the path is cleaned to a file beside the config), exactly
// the limit is refused before anything is read.
func TestIncludePathLengthLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.json5", `{ profile: "coding" }`)
	writeFile(t, dir, "ab.json5", `{ profile: "full" }`)
	under := strings.Repeat("./", (maxIncludePath-1-len("a.json5"))/2) + "a.json5"
	at := strings.Repeat("./", (maxIncludePath-len("ab.json5"))/2) + "ab.json5"
	if len(under) != maxIncludePath-1 || len(at) != maxIncludePath {
		t.Fatalf("lengths %d %d", len(under), len(at))
	}
	path := writeFile(t, dir, "openclaw.json", `{ tools: { "$include": "`+under+`" } }`)
	cfg, err := Load(path, envMap(nil))
	if err != nil {
		t.Fatalf("path of %d bytes: %v", len(under), err)
	}
	if v, _ := cfg.Get("tools.profile"); v != "coding" {
		t.Errorf("tools.profile = %v", v)
	}
	path = writeFile(t, dir, "openclaw.json", `{ tools: { "$include": "`+at+`" } }`)
	if _, err := Load(path, envMap(nil)); err == nil || !strings.Contains(err.Error(), "invalid path") {
		t.Fatalf("path of %d bytes: err = %v, want invalid path", len(at), err)
	}
}

// A file reused from the memo at exactly the maximum depth loads, as it
// does when it is first read there.
func TestIncludeMemoisedAtExactDepth(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "leaf.json5", `{ note: "leaf" }`)
	for i := 1; i < MaxIncludeDepth; i++ {
		next := fmt.Sprintf("c%d.json5", i+1)
		if i == MaxIncludeDepth-1 {
			next = "leaf.json5"
		}
		writeFile(t, dir, fmt.Sprintf("c%d.json5", i), `{ "$include": "`+next+`" }`)
	}
	for name, doc := range map[string]string{
		"first read at the bottom": `{ b: { "$include": "c1.json5" } }`,
		"reused at the bottom":     `{ a: { "$include": "leaf.json5" }, b: { "$include": "c1.json5" } }`,
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, dir, "openclaw.json", doc)
			cfg, err := Load(path, envMap(nil))
			if err != nil {
				t.Fatalf("leaf at depth %d: %v", MaxIncludeDepth, err)
			}
			if v, _ := cfg.Get("b.note"); v != "leaf" {
				t.Errorf("b.note = %v", v)
			}
		})
	}
}

// The include height of a file counts what it reuses from the memo: p
// includes m (which includes leaf), so p reused at depth 9 reaches depth
// 11 and is refused, as when nothing was memoised.
func TestIncludeMemoisedHeightCountsReusedChildren(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "leaf.json5", `{ note: "leaf" }`)
	writeFile(t, dir, "m.json5", `{ "$include": "leaf.json5" }`)
	writeFile(t, dir, "p.json5", `{ "$include": "m.json5" }`)
	for i := 1; i <= MaxIncludeDepth-2; i++ {
		next := fmt.Sprintf("d%d.json5", i+1)
		if i == MaxIncludeDepth-2 {
			next = "p.json5"
		}
		writeFile(t, dir, fmt.Sprintf("d%d.json5", i), `{ "$include": "`+next+`" }`)
	}
	for name, doc := range map[string]string{
		"nothing memoised": `{ c: { "$include": "d1.json5" } }`,
		"p and m memoised": `{ a: { "$include": "m.json5" }, b: { "$include": "p.json5" }, c: { "$include": "d1.json5" } }`,
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, dir, "openclaw.json", doc)
			if _, err := Load(path, envMap(nil)); err == nil || !strings.Contains(err.Error(), "maximum include depth") {
				t.Fatalf("Load = %v, want the depth cap", err)
			}
		})
	}
}

// Exactly MaxIncludes references load, one more fails, whichever file is
// reused: a file first read after others is charged its own expansion.
func TestIncludeCountCapExact(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x.json5", `{ note: "x" }`)
	writeFile(t, dir, "s.json5", `{ other: "s" }`)
	for _, tc := range []struct {
		n      int
		wantOK bool
	}{{MaxIncludes, true}, {MaxIncludes + 1, false}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			list := append(repeat("x.json5", 100), repeat("s.json5", tc.n-100)...)
			path := writeFile(t, dir, "openclaw.json", `{ tools: { "$include": `+refs(list...)+` } }`)
			cfg, err := Load(path, envMap(nil))
			if !tc.wantOK {
				if err == nil || !strings.Contains(err.Error(), "maximum $include count") {
					t.Fatalf("%d includes: err = %v, want the count cap", tc.n, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%d includes: %v", tc.n, err)
			}
			if v, _ := cfg.Get("tools.other"); v != "s" {
				t.Errorf("tools.other = %v", v)
			}
		})
	}
}

// Exactly MaxIncludeTotalBytes of expanded includes load, one byte more
// fails; the reused file was first read after another one.
func TestIncludeTotalBytesCapExact(t *testing.T) {
	const size = 64 << 10
	n := MaxIncludeTotalBytes/size - 1
	for _, tc := range []struct {
		first  int
		wantOK bool
	}{{size, true}, {size + 1, false}} {
		t.Run(fmt.Sprint(tc.first), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "first.json5", sized(t, tc.first))
			writeFile(t, dir, "big.json5", sized(t, size))
			list := append([]string{"first.json5"}, repeat("big.json5", n)...)
			path := writeFile(t, dir, "openclaw.json", `{ tools: { "$include": `+refs(list...)+` } }`)
			_, err := Load(path, envMap(nil))
			if tc.wantOK && err != nil {
				t.Fatalf("%d bytes: %v", tc.first+n*size, err)
			}
			if !tc.wantOK && (err == nil || !strings.Contains(err.Error(), "maximum total $include size")) {
				t.Fatalf("%d bytes: err = %v, want the total size cap", tc.first+n*size, err)
			}
		})
	}
}

// One included file may be exactly maxIncludeBytes (read whole, not cut
// short); one byte more is refused.
func TestIncludeFileSizeLimitExact(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "at.json5", sized(t, maxIncludeBytes))
	writeFile(t, dir, "over.json5", sized(t, maxIncludeBytes+1))
	path := writeFile(t, dir, "openclaw.json", `{ x: { "$include": "at.json5" } }`)
	cfg, err := Load(path, envMap(nil))
	if err != nil {
		t.Fatalf("include of exactly %d bytes: %v", maxIncludeBytes, err)
	}
	if v, _ := cfg.Get("x.note"); len(fmt.Sprint(v)) != maxIncludeBytes-len(`{ note: "" }`) {
		t.Errorf("x.note has %d bytes", len(fmt.Sprint(v)))
	}
	path = writeFile(t, dir, "openclaw.json", `{ x: { "$include": "over.json5" } }`)
	if _, err := Load(path, envMap(nil)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("include of %d bytes: err = %v, want refused", maxIncludeBytes+1, err)
	}
}

// An included array concatenates with a longer sibling array.
func TestIncludeArrayConcatLongerSibling(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.json5", `{ deny: ["a"] }`)
	path := writeFile(t, dir, "openclaw.json", `{ tools: { "$include": "a.json5", deny: ["b", "c"] } }`)
	cfg, err := Load(path, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := cfg.Get("tools.deny"); !reflect.DeepEqual(v, []any{"a", "b", "c"}) {
		t.Errorf("tools.deny = %#v", v)
	}
}
