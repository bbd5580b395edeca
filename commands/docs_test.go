//go:build !urfave_cli_no_docs

package commands

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The committed man page and completion scripts must match the app: run
// `make docs` after changing commands or flags.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	r := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{})
	files, err := generatedDocs(r.newApp())
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join("..", rel))
		if err != nil {
			t.Errorf("%s: %v (run `make docs`)", rel, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s is stale: run `make docs` and commit the result", rel)
		}
	}
}

// What a user installs is what the binary prints: `openclaw completion SHELL`
// (run as a real process) must equal the committed completions/ file.
func TestCommittedCompletionsMatchBinary(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, err := exec.Command("openclaw", "completion", shell).Output()
		if err != nil {
			t.Fatalf("openclaw completion %s: %v", shell, err)
		}
		committed, err := os.ReadFile(filepath.Join("..", "completions", "openclaw."+shell))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, committed) {
			t.Errorf("completions/openclaw.%s differs from `openclaw completion %s`: run `make docs`", shell, shell)
		}
	}
}
