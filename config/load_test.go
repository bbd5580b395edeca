package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope", "openclaw.json")
	cfg, err := Load(p, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Exists || cfg.Path != p || cfg.Doc == nil || len(cfg.Doc) != 0 || cfg.Raw != nil {
		t.Errorf("got %+v", cfg)
	}
	if cfg.Hash != HashRaw(nil) || cfg.Hash != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("hash = %s", cfg.Hash)
	}
}

func TestLoadBasics(t *testing.T) {
	src := "// my config\n{\n  gateway: { port: 18789, bind: 'loopback', },\n  tools: { fs: { workspaceOnly: true } },\n}\n"
	p := writeFile(t, t.TempDir(), "openclaw.json", src)
	cfg, err := Load(p, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Exists || string(cfg.Raw) != src || cfg.Hash != HashRaw([]byte(src)) {
		t.Errorf("exists=%v hash=%s", cfg.Exists, cfg.Hash)
	}
	if cfg.Int("gateway.port", 0) != 18789 || !cfg.Bool("tools.fs.workspaceOnly", false) || cfg.String("gateway.bind", "") != "loopback" {
		t.Errorf("doc = %v", cfg.Doc)
	}
	if !cfg.Valid() || len(cfg.Warnings()) != 0 {
		t.Errorf("issues=%v warnings=%v", cfg.Issues(), cfg.Warnings())
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"syntax error has file:line:col", "{\n  a: 1,\n  b: ]\n}", "openclaw.json:3:6: invalid character ']'"},
		{"NaN rejected with path", "{ tools: { web: { fetch: { maxChars: NaN } } } }", "tools.web.fetch.maxChars: Infinity and NaN are not allowed"},
		{"Infinity in array rejected with path", "{ a: [1, -Infinity] }", "a[1]: Infinity and NaN"},
		{"root must be an object", "[1, 2]", "the top level must be an object, got array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "openclaw.json", tt.src)
			_, err := Load(p, envMap(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadDirectoryIsError(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, envMap(nil)); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadRecordsWarningsAndIssues(t *testing.T) {
	p := writeFile(t, t.TempDir(), "openclaw.json", `{ tools: { bogusKey: 1 }, gateway: { bind: 'everywhere' } }`)
	cfg, err := Load(p, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings()) != 1 || cfg.Warnings()[0] != `tools: Unrecognized key: "bogusKey"` {
		t.Errorf("warnings = %q", cfg.Warnings())
	}
	if cfg.Valid() || len(cfg.Issues()) != 1 || cfg.Issues()[0].Path != "gateway.bind" {
		t.Errorf("issues = %v", cfg.Issues())
	}
}
