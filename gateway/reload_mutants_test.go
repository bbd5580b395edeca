package gateway

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

// These pin reload.go lines that a one-line mutation (`make mutate`) could
// change with the other tests still passing (issue 17, item 20).

// Password auth from the config file: a reload that rotates the password
// applies (and says so in the log) and closes the sessions the old one
// authorized with 4001; a reload to mode none is refused, naming the mode.
func TestReloadPasswordRotation(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{gateway: {auth: {mode: "password", password: "pw-one"}}}`)
	ts := startServerRaw(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1})
	withPassword := func(pw string) func(map[string]any) {
		return func(p map[string]any) { p["auth"] = map[string]any{"password": pw} }
	}
	c := dialConnected(t, ts.url, withPassword("pw-one"))

	replaceFile(t, cfgPath, `{gateway: {auth: {mode: "password", password: "pw-two"}}}`)
	if err := ts.s.Reload(); err != nil {
		t.Fatalf("reload with a rotated password: %v", err)
	}
	if a := ts.s.auth.Load(); a.mode != AuthPassword || a.password != "pw-two" {
		t.Fatalf("auth after the reload: %s", a.mode)
	}
	if log := gatewayLog(dir); !strings.Contains(log, "config reloaded from") || strings.Contains(log, "config reload skipped") {
		t.Errorf("the reload is not logged as applied:\n%s", log)
	}
	if code, reason := c.waitClose(t); code != 4001 || reason != "gateway auth changed" {
		t.Errorf("the old password's session closed %d %q, want 4001", code, reason)
	}
	dialConnected(t, ts.url, withPassword("pw-two"))

	replaceFile(t, cfgPath, `{gateway: {auth: {mode: "none"}}}`)
	_ = ts.s.Reload()
	if log := gatewayLog(dir); !strings.Contains(log, "refusing to weaken gateway auth (to none without a secret)") {
		t.Errorf("the refused weakening does not name its mode:\n%s", log)
	}
}

// ScheduleRestart: a restart without a reason is logged as "requested";
// a second while one is pending coalesces (ErrRestartPending); within the
// cooldown the error says how long is left. A start with no leftover
// config temp files logs no cleanup line.
func TestScheduleRestartPendingAndCooldown(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1})
	if err := ts.s.ScheduleRestart(time.Hour, ""); err != nil {
		t.Fatal(err)
	}
	if log := gatewayLog(dir); !strings.Contains(log, "restart scheduled in 1h0m0s (requested)") {
		t.Errorf("restart not logged with its default reason:\n%s", log)
	}
	if err := ts.s.ScheduleRestart(time.Hour, "again"); !errors.Is(err, ErrRestartPending) {
		t.Errorf("second restart: %v, want ErrRestartPending", err)
	}
	ts.s.restart.stop()
	ts.s.restart.mu.Lock()
	ts.s.restart.last = time.Now().Add(-restartCooldown / 2)
	ts.s.restart.mu.Unlock()
	err := ts.s.ScheduleRestart(0, "soon")
	if want := fmt.Sprintf("retry in %s", (restartCooldown / 2).Round(time.Second)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("restart within the cooldown: %v, want %q", err, want)
	}
	if log := gatewayLog(dir); strings.Contains(log, "temp file(s) left by interrupted config writes") {
		t.Errorf("a cleanup with nothing to remove was logged:\n%s", log)
	}
}
