package patch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// The test binary doubles as a one-shot apply_patch process (reading the
// patch from stdin in PATCH_HELPER_WS), so a patch can run under a file
// size limit exactly as `openclaw apply-patch` would.
func TestMain(m *testing.M) {
	if ws := os.Getenv("PATCH_HELPER_WS"); ws != "" {
		in, _ := io.ReadAll(os.Stdin)
		env := &tools.Env{Config: config.Empty(), StateDir: ws, Workspace: ws}
		if _, err := Apply(context.Background(), env, string(in)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A patch that runs out of space half-way (here: the file size limit hits
// the third file, in a process under `ulimit -f`) changes nothing: the
// first file's new content was staged but never renamed into place, and no
// temp file is left behind.
func TestApplyUnderFileSizeLimitChangesNothing(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "small.txt"), "old\n", 0o644)
	write(t, filepath.Join(ws, "gone.txt"), "bye\n", 0o644)
	var p strings.Builder
	p.WriteString("*** Begin Patch\n*** Update File: small.txt\n@@\n-old\n+new\n*** Delete File: gone.txt\n*** Add File: big.txt\n")
	for i := range 4000 { // ~100 KB, over the 64 KiB limit below
		fmt.Fprintf(&p, "+line %d of a file too large for the limit\n", i)
	}
	p.WriteString("*** End Patch\n")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `ulimit -f 128; exec "$0" -test.run=NONE`, self)
	cmd.Env = append(os.Environ(), "PATCH_HELPER_WS="+ws)
	cmd.Stdin = strings.NewReader(p.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "file too large") {
		t.Fatalf("err %v, stderr %q; want exit 1 with the file-size error", err, stderr.String())
	}
	if got := read(t, filepath.Join(ws, "small.txt")); got != "old\n" {
		t.Errorf("small.txt = %q, want unchanged", got)
	}
	if got := read(t, filepath.Join(ws, "gone.txt")); got != "bye\n" {
		t.Errorf("gone.txt = %q, want kept", got)
	}
	entries, _ := os.ReadDir(ws)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "gone.txt,small.txt" {
		t.Errorf("workspace holds %v, want only gone.txt and small.txt", names)
	}
}
