package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --token-file and --password-file read a trimmed line, and refuse a file
// over the cap instead of loading it whole.
func TestReadSecretFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "tok")
	if err := os.WriteFile(ok, []byte("  s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, err := readSecretFile(ok); err != nil || v != "s3cret" {
		t.Fatalf("%q %v", v, err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", maxSecretFile+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readSecretFile(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("over the cap: %v", err)
	}
}
