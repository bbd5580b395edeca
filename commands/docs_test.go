//go:build !urfave_cli_no_docs

package commands

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	pages, _ := filepath.Glob(filepath.Join("..", "man", "*.1"))
	for _, p := range pages {
		if _, ok := files[filepath.Join("man", filepath.Base(p))]; !ok {
			t.Errorf("%s is no longer generated: remove it", p)
		}
	}
}

// `make docs` runs the real command line (`openclaw __gen-docs`), which
// builds commands lazily: it must write exactly what the test above
// compares, not pages without their flags and help.
func TestGenDocsCommandLineWritesTheCommittedFiles(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	if code := Main([]string{"openclaw", "__gen-docs", "--dir", dir}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("__gen-docs exit %d: %s", code, stderr.String())
	}
	for _, rel := range []string{"man/openclaw-apply-patch.1", "man/openclaw-browser.1", "man/openclaw-read.1", "man/openclaw-devices.1"} {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", rel))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("`openclaw __gen-docs` wrote a %s unlike the committed one", rel)
		}
	}
}

// openclaw(1) has the sections a man page reader expects.
func TestManPageSections(t *testing.T) {
	r := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{})
	files, err := generatedDocs(r.newApp())
	if err != nil {
		t.Fatal(err)
	}
	main := files["man/openclaw.1"]
	for _, want := range []string{".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS", ".SH EXIT STATUS",
		".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES", "OPENCLAW_STATE_DIR", "NO_COLOR", "openclaw.json.bak", ".B 130"} {
		if !strings.Contains(main, want) {
			t.Errorf("man/openclaw.1 lacks %q", want)
		}
	}
	for _, page := range []string{"man/openclaw-config.1", "man/openclaw-gateway.1", "man/openclaw-tools.1", "man/openclaw-read.1", "man/openclaw-doctor.1"} {
		if files[page] == "" {
			t.Errorf("no %s", page)
		}
	}
	if !strings.Contains(files["man/openclaw-config.1"], ".SS openclaw config set") {
		t.Errorf("openclaw-config(1) lacks its subcommands")
	}
}

// A flag's env var is named once on its man page, even when its usage text
// already names it (the connection flags do).
func TestManPageNamesEnvOnce(t *testing.T) {
	r := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{})
	files, err := generatedDocs(r.newApp())
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for name, page := range files {
		if !strings.HasPrefix(name, "man/") {
			continue
		}
		for _, l := range strings.Split(page, "\n") {
			if n := strings.Count(l, "OPENCLAW_GATEWAY_TOKEN"); n > 1 {
				t.Errorf("%s: %q names the env var %d times", name, l, n)
			}
			seen = seen || strings.Contains(l, "(env OPENCLAW_GATEWAY_TOKEN)")
		}
	}
	if !seen {
		t.Error("no man page names OPENCLAW_GATEWAY_TOKEN for --token")
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
