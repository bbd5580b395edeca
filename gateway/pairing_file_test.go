package gateway

import (
	"os"
	"path/filepath"
	"testing"
)

// The JSON pairing file (no state database) is written whole, 0600, with
// no temp file left beside it, and reads back.
func TestPairedFileSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	f := pairedFile{path: filepath.Join(dir, "devices", "paired.json")}
	want := map[string]*pairedDevice{"dev1": {PublicKey: "pk1", Roles: []string{"operator"}}}
	for i := 0; i < 2; i++ { // create, then replace
		if err := f.Save(want); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(f.path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("paired.json: %v %v", fi, err)
	}
	ents, _ := os.ReadDir(filepath.Dir(f.path))
	if len(ents) != 1 {
		t.Fatalf("devices/ holds %d entries", len(ents))
	}
	got, err := f.Load()
	if err != nil || got["dev1"] == nil || got["dev1"].PublicKey != "pk1" {
		t.Fatalf("load: %+v %v", got, err)
	}
}
