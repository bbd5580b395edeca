package image_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Local images are opened as the file tools open files: with
// tools.fs.workspaceOnly a path outside the workspace is refused before any
// model is called, and a FIFO is refused instead of blocking the call.
func TestLocalImageConfinedAndNeverBlocks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.png")
	if err := os.WriteFile(outside, png, 0o600); err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, map[string]any{"tools": map[string]any{"fs": map[string]any{"workspaceOnly": true}}})
	if err := os.Symlink(outside, filepath.Join(env.Workspace, "link.png")); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{outside, "link.png", "file://" + outside} {
		_, err := invoke(env, map[string]any{"image": ref, "model": "none/none"})
		if te := tools.AsError(err); te == nil || te.Code != tools.CodeDenied || !strings.Contains(te.Message, "escapes workspace root") {
			t.Errorf("%s with workspaceOnly: got %v, want a denial", ref, err)
		}
	}
	fifo := filepath.Join(env.Workspace, "pipe.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := invoke(env, map[string]any{"image": "pipe.png", "model": "none/none"}); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "only supports regular files") {
			t.Fatalf("FIFO: got %v", err)
		}
	case <-time.After(30 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("image of a FIFO blocked waiting for a writer")
	}
}
