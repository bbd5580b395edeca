//go:build !urfave_cli_no_docs

package commands

import (
	"bytes"
	"os"
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
