package commands

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/route"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
)

func TestMediaRefs(t *testing.T) {
	res := `{"content":[{"type":"text","text":"Screenshot\nMEDIA:/s/media/b.png\n  MEDIA: /s/media/a.png"},
		{"type":"image","data":"AA==","mimeType":"image/png"}],
		"details":{"media":[{"path":"/s/media/a.png","mimeType":"image/png","size":3}]}}`
	refs := mediaRefs([]byte(res))
	if len(refs) != 2 || refs[0].Path != "/s/media/a.png" || refs[0].Size != 3 || refs[1].Path != "/s/media/b.png" {
		t.Fatalf("refs %+v", refs)
	}
	if refs := mediaRefs([]byte(`{"details":{"media":{"path":"/m/x.gif","mimeType":"image/gif","size":1}}}`)); len(refs) != 1 || refs[0].MimeType != "image/gif" {
		t.Fatalf("object form: %+v", refs)
	}
	if refs := mediaRefs([]byte(`{"content":[{"type":"text","text":"no media here"}]}`)); len(refs) != 0 {
		t.Fatalf("%+v", refs)
	}
}

// fetchMedia against a real gateway: the right secret gets the bytes, a
// wrong one exits 4 (AUTH_FAILED), an unknown or unsafe name is not found.
func TestFetchMediaFromGateway(t *testing.T) {
	dir := t.TempDir()
	srv, err := gateway.New(gateway.Options{
		Paths: config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")},
		Token: "s3cret", Getenv: func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	ref, err := media.New(dir).Save(context.Background(), strings.NewReader("clip bytes"), "video/mp4", "")
	if err != nil {
		t.Fatal(err)
	}
	target := route.Target{URL: "ws://" + srv.Addr(), Token: "s3cret"}
	fctx, fcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer fcancel()
	// The port is bound (Listen): the request waits in the backlog until
	// Serve accepts it.
	body, err := fetchMedia(fctx, target, ref)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(body)
	body.Close()
	if string(b) != "clip bytes" {
		t.Fatalf("fetched %q", b)
	}
	code := func(err error) string {
		var fe *failure.Error
		if errors.As(err, &fe) {
			return fe.Code
		}
		return ""
	}
	if _, err := fetchMedia(fctx, route.Target{URL: target.URL, Token: "wrong"}, ref); code(err) != tools.CodeAuth {
		t.Errorf("wrong token: %v", err)
	}
	if _, err := fetchMedia(fctx, route.Target{URL: target.URL}, ref); code(err) != tools.CodeAuth {
		t.Errorf("no token: %v", err)
	}
	if _, err := fetchMedia(fctx, target, tools.MediaRef{Path: "/x/media/0000.png"}); code(err) != tools.CodeNotFound {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := fetchMedia(fctx, target, tools.MediaRef{Path: "/x/media/.."}); err == nil {
		t.Error("unsafe name fetched")
	}
}

// --out writes through atomicfile: the file is replaced whole (mode 0644),
// and a copy stopped by its deadline leaves the old file and no temp file.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(dst, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := writeFileAtomic(context.Background(), dst, strings.NewReader("new bytes"))
	if err != nil || n != 9 {
		t.Fatalf("write: %d %v", n, err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "new bytes" {
		t.Fatalf("content %q", b)
	}
	if fi, _ := os.Stat(dst); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := writeFileAtomic(ctx, dst, strings.NewReader("partial")); tools.AsError(err).Code != tools.CodeTimeout {
		t.Errorf("cancelled copy: want TIMEOUT, got %v", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "new bytes" {
		t.Errorf("a stopped copy changed the file: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temp files left: %v", ents)
	}
}
