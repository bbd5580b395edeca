package fs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/store/media"
)

// Issue 7 (media): a read image keeps the original's agent-facing shape
// (text + inline image block) and adds details.media, a reference to a copy
// under <state>/media; an image too large to inline is not base64'd into
// the envelope: the text names it as MEDIA:<path>.
func TestReadImageCarriesMediaReference(t *testing.T) {
	env, dir := newEnv(t)
	state := t.TempDir()
	env.Media = media.New(state)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	p := filepath.Join(dir, "small.png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustCall(t, env, "read", map[string]any{"path": p})
	if text(r) != "Read image file [image/png]" || r.Get("content.1.type").String() != "image" {
		t.Fatalf("agent shape changed: %s", r.Raw)
	}
	ref := r.Get("details.media")
	if ref.Get("mimeType").String() != "image/png" || ref.Get("size").Int() != int64(len(png)) {
		t.Fatalf("details.media: %s", ref.Raw)
	}
	if b, err := os.ReadFile(ref.Get("path").String()); err != nil || !bytes.Equal(b, png) {
		t.Fatalf("stored copy: %v", err)
	}
	if !strings.HasPrefix(ref.Get("path").String(), filepath.Join(state, "media")+string(filepath.Separator)) {
		t.Fatalf("stored outside the media dir: %s", ref.Get("path"))
	}

	big := append([]byte("GIF89a"), bytes.Repeat([]byte{1}, 5<<20)...)
	p = filepath.Join(dir, "big.gif")
	if err := os.WriteFile(p, big, 0o644); err != nil {
		t.Fatal(err)
	}
	r = mustCall(t, env, "read", map[string]any{"path": p})
	path := r.Get("details.media.path").String()
	if r.Get("content.#").Int() != 1 || !strings.Contains(text(r), "\nMEDIA:"+path) || len(r.Raw) > 4096 {
		t.Fatalf("big image inlined or unnamed: %.300s", r.Raw)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(big)) {
		t.Fatalf("big stored copy: %v", err)
	}
	// Without media storage the big image is refused with the gateway hint.
	env.Media = nil
	if _, err := call(t, env, "read", map[string]any{"path": p}); err == nil || !strings.Contains(err.Error(), "openclaw serve") {
		t.Fatalf("want a needs-media error, got %v", err)
	}
}
