package commands

import (
	"os/exec"
	"strings"
	"testing"
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
