package commands

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// `make install` puts the binary in PREFIX/bin (~/.local by default) and the
// man pages in PREFIX/share/man/man1 (checked as a dry run: no build).
func TestMakeInstallTarget(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is needed to build this project:", err)
	}
	out, err := exec.Command("make", "-C", "..", "-n", "install", "PREFIX=/opt/oc").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n install: %v\n%s", err, out)
	}
	for _, want := range []string{"bin/openclaw /opt/oc/bin/openclaw", "man/*.1 /opt/oc/share/man/man1/"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make install does not run %q:\n%s", want, out)
		}
	}
	out, err = exec.Command("make", "-C", "..", "-n", "install", "HOME=/home/u").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "/home/u/.local/bin/openclaw") {
		t.Errorf("default PREFIX is not ~/.local: %v\n%s", err, out)
	}
}

// Issue 30 item 15: `make test` gives go test an explicit -timeout well
// past Go's 10-minute default per package (commands, tools/browser and
// gateway each ran past it on a loaded 2-core machine), so a slow machine
// is not reported as a hung test.
func TestMakeTestHasATimeout(t *testing.T) {
	out, err := exec.Command("make", "-C", "..", "-n", "test").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test: %v\n%s", err, out)
	}
	var found bool
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[1] != "test" {
			continue
		}
		found = true
		var d time.Duration
		for i, w := range f {
			if v, ok := strings.CutPrefix(w, "-timeout="); ok {
				d, err = time.ParseDuration(v)
			} else if w == "-timeout" && i+1 < len(f) {
				d, err = time.ParseDuration(f[i+1])
			}
		}
		if err != nil || d < 30*time.Minute {
			t.Errorf("make test runs %q: want -timeout of 30m or more (got %v, %v)", line, d, err)
		}
	}
	if !found {
		t.Errorf("make test runs no go test:\n%s", out)
	}
}
