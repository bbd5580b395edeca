package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

func loadConfigText(t *testing.T, text string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "openclaw.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// doctor's browser check is the one `browser start` would meet (issue 18
// item 11): as root without browser.noSandbox it fails with the fix, and a
// configured browser.executablePath is the one checked.
func TestDoctorBrowserCheck(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "my-chromium")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	withExe := `{browser: {executablePath: "` + exe + `"}}`

	c := doctorBrowser(loadConfigText(t, withExe), 0)
	if c.Status != "fail" || c.Hint != "openclaw config set browser.noSandbox true" {
		t.Errorf("root without noSandbox: %+v", c)
	}
	c = doctorBrowser(loadConfigText(t, `{browser: {noSandbox: true, executablePath: "`+exe+`"}}`), 0)
	if c.Status != "pass" || !strings.Contains(c.Message, exe) {
		t.Errorf("root with noSandbox: %+v", c)
	}
	c = doctorBrowser(loadConfigText(t, withExe), 1000)
	if c.Status != "pass" || !strings.Contains(c.Message, exe) {
		t.Errorf("non-root, executablePath: %+v", c)
	}
	c = doctorBrowser(loadConfigText(t, `{browser: {executablePath: "/no/such/chromium"}}`), 1000)
	if c.Status != "fail" || !strings.Contains(c.Message, "/no/such/chromium") {
		t.Errorf("missing executablePath: %+v", c)
	}
	if strings.Contains(c.Hint+c.Message, "once it lands") {
		t.Errorf("stale hint: %+v", c)
	}
}
