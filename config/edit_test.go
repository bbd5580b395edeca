package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func setPathEdit(path string, v any) func(*Draft) error {
	return func(d *Draft) error { return SetPath(d.Doc, path, v) }
}

func TestEditCompareAndSet(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "openclaw.json")
	// A missing file accepts any base hash (as the original does).
	stale := "0000"
	res, err := Edit(context.Background(), p, EditOptions{BaseHash: &stale}, setPathEdit("tools.profile", "coding"))
	if err != nil {
		t.Fatalf("Edit on a missing file with a base hash: %v", err)
	}
	raw, _ := os.ReadFile(p)
	if res.Hash != HashRaw(raw) || res.Config == nil || res.Config.Hash != res.Hash {
		t.Errorf("result hash %s, file hash %s", res.Hash, HashRaw(raw))
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	// A stale base hash changes nothing.
	if _, err := Edit(context.Background(), p, EditOptions{BaseHash: &stale}, setPathEdit("tools.profile", "full")); !errors.Is(err, ErrStaleHash) {
		t.Fatalf("stale base hash: %v", err)
	}
	if after, _ := os.ReadFile(p); string(after) != string(raw) {
		t.Errorf("stale edit wrote %s", after)
	}
	cur := HashRaw(raw)
	if _, err := Edit(context.Background(), p, EditOptions{BaseHash: &cur}, setPathEdit("tools.profile", "full")); err != nil {
		t.Fatal(err)
	}
	if bak, _ := os.ReadFile(p + ".bak"); string(bak) != string(raw) {
		t.Errorf(".bak = %s, want the previous file", bak)
	}
}

func TestEditValidatesAsLoaded(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "openclaw.json", `{tools: {"$include": "tools.json5"}}`)
	writeFile(t, dir, "tools.json5", `{profile: "coding"}`)
	before, _ := os.ReadFile(p)
	// The included content plus the edit must validate.
	_, err := Edit(context.Background(), p, EditOptions{}, setPathEdit("gateway.port", "x"))
	var inv *InvalidError
	if !errors.As(err, &inv) || len(inv.Issues) == 0 || inv.Issues[0].Path != "gateway.port" {
		t.Fatalf("Edit(invalid) = %v", err)
	}
	// An include that does not resolve is refused too.
	_, err = Edit(context.Background(), p, EditOptions{}, setPathEdit("agents", map[string]any{"$include": "missing.json5"}))
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), "missing.json5") || strings.Contains(err.Error(), ".tmp-") || strings.Contains(err.Error(), ".validate-") {
		t.Fatalf("Edit(bad include) = %v", err)
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Errorf("a refused edit wrote %s", after)
	}
	// Unknown keys are warnings, as validate prints them.
	res, err := Edit(context.Background(), p, EditOptions{}, setPathEdit("gateway.prot", 1))
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `gateway: Unrecognized key: "prot"`) {
		t.Fatalf("Edit(unknown key) = %+v, %v", res, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".validate-") || strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

// Concurrent writers each add their own key; none is lost.
func TestEditConcurrentWritersLoseNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "openclaw.json")
	const n = 16
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := Edit(context.Background(), p, EditOptions{}, func(d *Draft) error {
				list, _ := getPath(d.Doc, mustSegs("tools.deny"))
				l, _ := list.([]any)
				return SetPath(d.Doc, "tools.deny", append(l, "t"+string(rune('a'+i))))
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	cfg, err := Load(p, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	deny, _ := cfg.Get("tools.deny")
	if l, _ := deny.([]any); len(l) != n {
		t.Errorf("tools.deny = %v, want %d entries", deny, n)
	}
}

func mustSegs(p string) []Segment {
	s, err := ParsePath(p)
	if err != nil {
		panic(err)
	}
	return s
}

func TestCleanTempRemovesInterruptedWrites(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "openclaw.json", `{}`)
	for _, n := range []string{".openclaw.json.tmp-123", ".openclaw.json.bak.tmp-9", ".openclaw.json.validate-1", ".openclaw-validate-5.json"} {
		writeFile(t, dir, n, "partial")
	}
	keep := writeFile(t, dir, "notes.tmp-1", "mine")
	removed, err := CleanTemp(context.Background(), p)
	if err != nil || len(removed) != 4 {
		t.Fatalf("CleanTemp = %v, %v", removed, err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("CleanTemp removed an unrelated file")
	}
	// A missing config directory has nothing to clean.
	if r, err := CleanTemp(context.Background(), filepath.Join(dir, "nope", "openclaw.json")); err != nil || r != nil {
		t.Errorf("CleanTemp(missing dir) = %v, %v", r, err)
	}
}
