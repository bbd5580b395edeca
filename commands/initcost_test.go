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
// what it allocates is start-up cost (`tools list --json` must stay a few
// ms). Allocation counts from GODEBUG=inittrace=1 are exact, unlike
// times: this bounds our packages' init and the third-party ones patched
// for it (third_party/), and keeps tablewriter out. It caught the
// browser's {1,128} regexp (2,632 allocations at init), and rod's CDP type
// map (85 KB) and -rod flag parsing.
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
		// rod and got are patched copies (third_party/): the CDP type map, the
		// -rod flag, key maps and regexps no longer cost every process.
		{"github.com/go-rod/rod", 32 << 10, 40},
		{"github.com/ysmood/got", 1 << 10, 10},
		{"github.com/go-shiori/dom", 2 << 10, 20},
		{"codeberg.org/readeck/go-readability", 16 << 10, 100},
		{"github.com/ledongthuc/pdf", 16 << 10, 100},
		{"golang.org/x/net/html", 32 << 10, 100},
		// humanize's ParseSI regexp (57 allocations), chardet's recognizers
		// and mathutil's prime table index are built on first use.
		{"github.com/dustin/go-humanize", 6 << 10, 80},
		{"github.com/gogs/chardet", 1 << 10, 5},
		{"modernc.org/mathutil", 1 << 10, 20},
	}
	seen := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		// init <pkg> @<t> ms, <d> ms clock, <bytes> bytes, <allocs> allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" {
			continue
		}
		pkg := f[1]
		if strings.Contains(pkg, "olekukonko/tablewriter") {
			t.Errorf("%s is linked again (commands/table.go replaced it)", pkg)
		}
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
		t.Fatalf("read %d init lines of bounded packages; GODEBUG=inittrace=1 output:\n%s", seen, stderr.String())
	}
}
