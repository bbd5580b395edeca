// Package chromiumtest finds the system Chromium for tests that drive a
// real one. Under CI=true a missing Chromium fails the test (CI installs
// it; a silent skip there would hide every browser test); elsewhere the
// test is skipped with a note. The families' tests each carried a copy.
package chromiumtest

import (
	"os"
	"os/exec"
	"testing"
)

// Path is the Chromium binary, or the test stops (see the package doc).
func Path(t testing.TB) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed: CI must install it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed: skipping real-browser tests (they fail under CI=true)")
	return ""
}
