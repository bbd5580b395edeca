package commands

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Package init runs in every openclaw process, whatever the command, so
// what our own packages allocate there is start-up cost. Allocation counts
// from GODEBUG=inittrace=1 are exact, unlike times, so this bounds them:
// it caught the browser's {1,128} regexp (2,632 allocations at init) and
// web's regexps and maps (532). Third-party packages are not bounded here:
// they are upstream releases, and `make bench` prints their share
// (scripts/init-report.sh).
func TestInitCostBounded(t *testing.T) {
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "HOME="+t.TempDir(), "OPENCLAW_STATE_DIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("openclaw version: %v %s", err, stderr.String())
	}
	bounds := []struct {
		prefix        string
		bytes, allocs int
	}{
		{"github.com/openclaw-go/openclaw/", 96 << 10, 600},
		// web's regexps and maps are built on first use (532 allocations before).
		{"github.com/openclaw-go/openclaw/tools/web", 8 << 10, 60},
	}
	seen := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		// init <pkg> @<t> ms, <d> ms clock, <bytes> bytes, <allocs> allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" {
			continue
		}
		pkg := f[1]
		b, _ := strconv.Atoi(f[7])
		a, _ := strconv.Atoi(f[9])
		for _, bd := range bounds {
			if strings.HasPrefix(pkg, bd.prefix) {
				seen++
				if b > bd.bytes || a > bd.allocs {
					t.Errorf("init of %s: %d bytes, %d allocations (bound %d, %d): make package-level work lazy (sync.OnceValue)",
						pkg, b, a, bd.bytes, bd.allocs)
				}
			}
		}
	}
	if seen < 5 {
		t.Fatalf("read %d init lines of our packages; GODEBUG=inittrace=1 output:\n%s", seen, stderr.String())
	}
}
