package approvalsfile

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/policy"
)

func TestRoundTripModeAndRefusals(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", Name)
	doc, err := Load(path)
	if err != nil || len(doc.Agents) != 0 {
		t.Fatal(doc, err)
	}
	snap, err := Update(context.Background(), path, func(s *Snapshot) error {
		if s.Exists {
			t.Error("a missing file reads as existing")
		}
		s.Doc.Agent("main").Allowlist = append(s.Doc.Agent("main").Allowlist, policy.AllowlistEntry{Pattern: "rg"})
		s.Doc.Defaults.Security = "allowlist"
		return nil
	})
	if err != nil || !snap.Exists {
		t.Fatal(snap, err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", st.Mode())
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sec, _, allow := back.Effective("main")
	if sec != "allowlist" || len(allow) != 1 || allow[0].ID == "" {
		t.Fatalf("%v %v", sec, allow)
	}
	// An edit that fails leaves the file as it was.
	before, _ := os.ReadFile(path)
	if _, err := Update(context.Background(), path, func(s *Snapshot) error {
		s.Doc.Defaults.Security = "full"
		return fmt.Errorf("refused")
	}); err == nil {
		t.Fatal("a failing edit reported success")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("a failing edit changed the file")
	}
	// Symlinks, FIFOs and oversized files are refused.
	link := filepath.Join(dir, "link.json")
	os.Symlink(path, link)
	if _, err := Load(link); err == nil {
		t.Fatal("symlinked approvals file accepted")
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(fifo); err == nil {
		t.Fatal("FIFO accepted")
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, maxBytes+1), 0o600)
	if _, err := Load(big); err == nil {
		t.Fatal("oversized file accepted")
	}
}

// addEntries adds n entries named prefix-i, one Update each.
func addEntries(path, prefix string, n int) error {
	for i := range n {
		if _, err := Update(context.Background(), path, func(s *Snapshot) error {
			a := s.Doc.Agent("main")
			a.Allowlist = append(a.Allowlist, policy.AllowlistEntry{Pattern: prefix + "-" + strconv.Itoa(i)})
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// TestHelperAddEntries is the body of a writer process started by
// TestConcurrentWritersLoseNothing (it does nothing in a normal run).
func TestHelperAddEntries(t *testing.T) {
	path, prefix := os.Getenv("APPROVALS_HELPER_PATH"), os.Getenv("APPROVALS_HELPER_PREFIX")
	if path == "" {
		return
	}
	if err := addEntries(path, prefix, 40); err != nil {
		t.Fatal(err)
	}
}

// Two processes and two goroutines add entries at once (the CLI's
// `approvals allow` and the gateway's allow-always): every entry survives.
// Without the lock each read-modify-write can overwrite another's entry.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for _, prefix := range []string{"procA", "procB"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAddEntries$", "-test.count=1")
		cmd.Env = append(os.Environ(), "APPROVALS_HELPER_PATH="+path, "APPROVALS_HELPER_PREFIX="+prefix)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%s: %v\n%s", prefix, err, out)
			}
		}()
	}
	for _, prefix := range []string{"goA", "goB"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := addEntries(path, prefix, 40); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	doc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range doc.Agent("main").Allowlist {
		seen[e.Pattern] = true
	}
	for _, prefix := range []string{"procA", "procB", "goA", "goB"} {
		for i := range 40 {
			if !seen[prefix+"-"+strconv.Itoa(i)] {
				t.Errorf("entry %s-%d lost (%d of 160 kept)", prefix, i, len(seen))
			}
		}
	}
}
