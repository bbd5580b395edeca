package config

import (
	"os"
	"path/filepath"
	"testing"
)

// envMap returns a getenv over m.
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// writeFile writes content to dir/name (creating parents) and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustJSON5(t *testing.T, s string) any {
	t.Helper()
	v, err := ParseJSON5([]byte(s))
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}
