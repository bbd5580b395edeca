package pdf_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// Local PDFs are opened as the file tools open files: with
// tools.fs.workspaceOnly a path outside the workspace (directly or through
// a symlink) is refused, and a FIFO is refused instead of blocking the call
// until some writer opens it.
func TestLocalPDFConfinedAndNeverBlocks(t *testing.T) {
	env, dir := newEnv(t)
	outside := t.TempDir()
	secret := writePDF(t, outside, "secret.pdf", []page{{lines: []string{"Outside"}}})
	if err := os.Symlink(secret, filepath.Join(dir, "link.pdf")); err != nil {
		t.Fatal(err)
	}
	// Without the setting both are read (the original's behaviour).
	for _, ref := range []string{secret, "link.pdf"} {
		if _, err := invoke(t, env, map[string]any{"pdf": ref}); err != nil {
			t.Fatalf("%s without workspaceOnly: %v", ref, err)
		}
	}
	env.Config = &config.Config{Doc: map[string]any{"tools": map[string]any{"fs": map[string]any{"workspaceOnly": true}}}}
	for _, ref := range []string{secret, "link.pdf", "file://" + secret, "../" + filepath.Base(outside) + "/secret.pdf"} {
		_, err := invoke(t, env, map[string]any{"pdf": ref})
		if te := tools.AsError(err); te == nil || te.Code != tools.CodeDenied || !strings.Contains(te.Message, "escapes workspace root") {
			t.Errorf("%s with workspaceOnly: got %v, want a denial", ref, err)
		}
	}
	writePDF(t, dir, "inside.pdf", []page{{lines: []string{"Inside"}}})
	if _, err := invoke(t, env, map[string]any{"pdf": "inside.pdf"}); err != nil {
		t.Fatalf("inside the workspace: %v", err)
	}

	fifo := filepath.Join(dir, "pipe.pdf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := invoke(t, env, map[string]any{"pdf": "pipe.pdf"}); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "only supports regular files") {
			t.Fatalf("FIFO: got %v", err)
		}
	case <-time.After(30 * time.Second):
		// Unblock the stuck open so the test binary can exit.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("pdf of a FIFO blocked waiting for a writer")
	}
}
