package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileReplacesWholeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new content"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "new content" {
		t.Fatalf("content %q", b)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

func TestAbortKeepsTargetAndRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	os.WriteFile(p, []byte("keep"), 0o644)
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(f.TempName()), ".x.tmp-") {
		t.Fatalf("temp name %s", f.TempName())
	}
	f.Write([]byte("partial"))
	f.Abort()
	f.Abort() // idempotent
	b, _ := os.ReadFile(p)
	if string(b) != "keep" {
		t.Fatalf("target changed: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temp left: %v", ents)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("commit after abort succeeded")
	}
}

func TestWriteFromHonoursContext(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := WriteFrom(ctx, p, strings.NewReader("data"), 0o644)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("target created: %v", err)
	}
	n, err := WriteFrom(context.Background(), p, strings.NewReader("data"), 0o644)
	if err != nil || n != 4 {
		t.Fatal(n, err)
	}
}

func TestCommitToOtherName(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "pending"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("abc"))
	if err := f.CommitTo(filepath.Join(dir, "final")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "final")); string(b) != "abc" {
		t.Fatalf("%q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "pending")); !os.IsNotExist(err) {
		t.Fatal("pending target exists")
	}
}

// A missing directory is an error naming the path, not a panic.
func TestCreateInMissingDir(t *testing.T) {
	_, err := Create(filepath.Join(t.TempDir(), "no", "x"), 0o600)
	if err == nil || !strings.Contains(err.Error(), "atomic write") {
		t.Fatalf("err %v", err)
	}
}

func TestWriteCacheReplacesWholeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cache.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteCache(p, []byte("new cache"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new cache" {
		t.Fatalf("content %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left %d entries (a temp file?)", len(ents))
	}
	if err := WriteCache(filepath.Join(dir, "missing", "x"), []byte("x"), 0o600); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
}
