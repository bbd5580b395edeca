package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state", "openclaw.json")
	doc := map[string]any{"gateway": map[string]any{"port": 18789.0, "bind": "loopback"}, "tools": map[string]any{"allow": []any{"<read>"}}}

	// First write: parent created 0700, no .bak, exact format, mode 0600.
	hash, err := Write(p, doc)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"gateway\": {\n    \"bind\": \"loopback\",\n    \"port\": 18789\n  },\n  \"tools\": {\n    \"allow\": [\n      \"<read>\"\n    ]\n  }\n}\n"
	if string(data) != want {
		t.Errorf("file =\n%s\nwant\n%s", data, want)
	}
	if hash != HashRaw(data) {
		t.Errorf("hash %s != HashRaw(file) %s", hash, HashRaw(data))
	}
	assertMode(t, p, 0o600)
	assertMode(t, filepath.Dir(p), 0o700|os.ModeDir)
	if _, err := os.Stat(p + ".bak"); !os.IsNotExist(err) {
		t.Errorf(".bak after first write: %v", err)
	}

	// Second write: .bak holds the previous bytes exactly (including comments
	// a user may have added), the file is replaced.
	userEdited := "// hand edit\n{ gateway: { port: 1 } }\n"
	if err := os.WriteFile(p, []byte(userEdited), 0o644); err != nil {
		t.Fatal(err)
	}
	hash2, err := Write(p, map[string]any{"gateway": map[string]any{"port": 2.0}})
	if err != nil {
		t.Fatal(err)
	}
	bak, err := os.ReadFile(p + ".bak")
	if err != nil || string(bak) != userEdited {
		t.Fatalf(".bak = %q, %v", bak, err)
	}
	assertMode(t, p+".bak", 0o600)
	assertMode(t, p, 0o600)
	cfg, err := Load(p, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Hash != hash2 || cfg.Int("gateway.port", 0) != 2 {
		t.Errorf("reload: hash %s vs %s, doc %v", cfg.Hash, hash2, cfg.Doc)
	}

	// No temp files are left behind.
	entries, _ := os.ReadDir(filepath.Dir(p))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("leftover temp file %s", e.Name())
		}
	}
}

func TestWriteReplacesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "real/openclaw.json", `{"old":true}`)
	link := filepath.Join(dir, "openclaw.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	hash, err := Write(link, map[string]any{"new": true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSymlink != 0 || !st.Mode().IsRegular() {
		t.Errorf("link was not replaced by a regular file: %v", st.Mode())
	}
	if got, _ := os.ReadFile(target); string(got) != `{"old":true}` {
		t.Errorf("symlink target was written through: %q", got)
	}
	if got, _ := os.ReadFile(link + ".bak"); string(got) != `{"old":true}` {
		t.Errorf(".bak = %q", got)
	}
	data, _ := os.ReadFile(link)
	if HashRaw(data) != hash || string(data) != "{\n  \"new\": true\n}\n" {
		t.Errorf("new file %q", data)
	}
}

func TestWriteRejectsNonFinite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "openclaw.json")
	inf := map[string]any{"a": map[string]any{"b": []any{1.0, posInf()}}}
	if _, err := Write(p, inf); err == nil || !strings.Contains(err.Error(), "a.b[1]") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("file written despite error")
	}
}

func TestWriteEmptyDoc(t *testing.T) {
	p := filepath.Join(t.TempDir(), "openclaw.json")
	if _, err := Write(p, nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "{}\n" {
		t.Errorf("got %q", data)
	}
}

func assertMode(t *testing.T, p string, want os.FileMode) {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode() & (os.ModePerm | os.ModeDir); got != want {
		t.Errorf("%s mode = %v, want %v", p, got, want)
	}
}
