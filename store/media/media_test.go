package media

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSaveWritesPrivateContentAddressedFile(t *testing.T) {
	state := t.TempDir()
	d := New(state)
	data := []byte("\x89PNG\r\n\x1a\nfake image bytes")
	ref, err := d.Save(context.Background(), bytes.NewReader(data), "image/png", "shot")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(ref.Path) != filepath.Join(state, "media") || !strings.HasSuffix(ref.Path, ".png") {
		t.Fatalf("path %s", ref.Path)
	}
	if ref.Size != int64(len(data)) || ref.MimeType != "image/png" {
		t.Fatalf("ref %+v", ref)
	}
	got, err := os.ReadFile(ref.Path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("content %q, %v", got, err)
	}
	fi, _ := os.Stat(ref.Path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Join(state, "media"))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", di.Mode().Perm())
	}
	again, err := d.Save(context.Background(), bytes.NewReader(data), "image/png", "other")
	if err != nil || again.Path != ref.Path {
		t.Fatalf("same bytes got another file: %s vs %s (%v)", again.Path, ref.Path, err)
	}
	entries, _ := os.ReadDir(filepath.Join(state, "media"))
	entries = slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Name() == lockName })
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}

func TestSaveCapAndCancel(t *testing.T) {
	d := New(t.TempDir())
	d.maxBytes = 10
	_, err := d.Save(context.Background(), strings.NewReader(strings.Repeat("x", 11)), "text/plain", "")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("want ErrTooLarge, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Save(ctx, strings.NewReader("abc"), "text/plain", ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	entries, _ := os.ReadDir(d.Root())
	if len(entries) != 0 {
		t.Fatalf("failed saves left files: %v", entries)
	}
}

func TestExtension(t *testing.T) {
	for _, c := range []struct{ mime, hint, want string }{
		{"image/jpeg", "", ".jpg"},
		{"IMAGE/PNG; charset=x", "", ".png"},
		{"application/x-thing", "trace.zip", ".zip"},
		{"application/x-thing", "../../evil/x.s/h", ".bin"},
		{"", "", ".bin"},
	} {
		if got := extension(c.mime, c.hint); got != c.want {
			t.Errorf("extension(%q,%q) = %q, want %q", c.mime, c.hint, got, c.want)
		}
	}
}

func TestOpenRefusesTraversalAndSymlinks(t *testing.T) {
	state := t.TempDir()
	d := New(state)
	ref, err := d.Save(context.Background(), strings.NewReader("ok"), "text/plain", "")
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(state, "openclaw.json")
	os.WriteFile(secret, []byte(`{"gateway":{"auth":{"token":"s3cret"}}}`), 0o600)
	if err := os.Symlink(secret, filepath.Join(d.Root(), "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"../openclaw.json", "..", ".", "", "link.txt", "/etc/passwd", "a/../../openclaw.json",
		"..%2fopenclaw.json", ".tmp-1", "x\x00y", `..\openclaw.json`,
	} {
		if f, _, err := d.Open(name); err == nil {
			f.Close()
			t.Errorf("Open(%q) succeeded", name)
		}
	}
	f, got, err := d.Open(Name(ref.Path))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "ok" || got.Size != 2 || got.MimeType != "text/plain" {
		t.Fatalf("open: %q %+v", b, got)
	}
	if !d.Contains(ref.Path) || d.Contains(secret) || d.Contains(filepath.Join(d.Root(), "..", "openclaw.json")) {
		t.Fatal("Contains is wrong")
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/.openclaw/media/abc.png": "abc.png",
		`C:\x\media\abc.png`:              "abc.png",
		"/x/media/..":                     "",
		"/x/media/.hidden":                "",
		"abc.png":                         "abc.png",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
