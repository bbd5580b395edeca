package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store/media"
)

// Stored media does not stay forever: a starting gateway sweeps <state>/media
// (attachments.ttlHours, default 24 h) and keeps what is younger.
func TestGatewaySweepsExpiredMedia(t *testing.T) {
	dir := t.TempDir()
	md := media.New(dir)
	save := func(content string, age time.Duration) string {
		ref, err := md.Save(context.Background(), strings.NewReader(content), "image/png", "")
		if err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(ref.Path, at, at); err != nil {
			t.Fatal(err)
		}
		return ref.Path
	}
	old := save("two days old", 48*time.Hour)
	recent := save("one hour old", time.Hour)
	fresh := save("just returned", 0)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}})
	waitFor(t, 20*time.Second, func() bool {
		_, err := os.Lstat(old)
		return os.IsNotExist(err)
	})
	for _, p := range []string{recent, fresh} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
	}
	ts.stop()
}
