package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

// replaceFile writes content beside path and renames it over path, the way
// editors and our own writer do.
func replaceFile(t testing.TB, path, content string) {
	t.Helper()
	tmp := fmt.Sprintf("%s.edit-%d", path, time.Now().UnixNano())
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func gatewayLog(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "logs", "gateway.log"))
	return string(b)
}

// An $include fan-out written while the gateway runs (8 files, each
// including the next 10 times) is refused by the include caps: the
// gateway keeps answering, says why, and still shuts down.
func TestReloadIncludeFanOutDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{tools: {profile: "coding"}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: 10 * time.Millisecond})
	c := dialConnected(t, ts.url)
	for i := 0; i < 8; i++ {
		body := `{deny: ["exec"]}`
		if i < 7 {
			refs := strings.Repeat(fmt.Sprintf("%q,", fmt.Sprintf("f%d.json5", i+1)), 10)
			body = `{"$include": [` + strings.TrimSuffix(refs, ",") + `]}`
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%d.json5", i)), body)
	}
	replaceFile(t, cfgPath, `{tools: {"$include": "f0.json5"}}`)
	waitFor(t, 10*time.Second, func() bool { return strings.Contains(gatewayLog(dir), "maximum $include count") })
	f, err := c.tryCall("config.get", nil, 5*time.Second)
	if err != nil {
		t.Fatalf("config.get with an include fan-out on disk: %v", err)
	}
	if !f.OK || !strings.Contains(string(f.Payload), "maximum $include count") || !strings.Contains(string(f.Payload), `"valid":false`) {
		t.Errorf("config.get = %.300s %+v", f.Payload, f.Error)
	}
	if ts.s.Config().String("tools.profile", "") != "coding" {
		t.Errorf("the last good config was replaced")
	}
	if err := ts.s.Reload(); err == nil || !strings.Contains(err.Error(), "maximum $include count") {
		t.Errorf("Reload = %v", err)
	}
	ts.cancel()
	select {
	case <-ts.done:
		ts.done <- nil
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway did not shut down with an include fan-out on disk")
	}
}

// A hot reload racing config.patch and external edits never leaves the
// gateway running a config other than the file's: once the file stops
// changing, the running hash equals the file's hash. Each round an
// external edit starts a reload and, while that reload is loading (a
// 1.5 MB $include makes loads slow), a config.patch arrives: before the
// reload took the config lock, the patch landed in that window, the
// reload applied the older file and remembered the newer file's stat, and
// the gateway never reloaded again.
func TestReloadRaceWithPatchConverges(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, filepath.Join(dir, "big.json5"), `{bigNote: "`+strings.Repeat("x", 1500<<10)+`"}`)
	doc := func(profile string) string {
		return `{"$include": "big.json5", tools: {profile: "` + profile + `"}}`
	}
	writeFile(t, cfgPath, doc("full"))
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: 2 * time.Millisecond})
	c := dialConnected(t, ts.url)
	external := []string{"full", "minimal"}
	patched := []string{"coding", "messaging"}
	patch := func(profile string) {
		get := c.call("config.get", nil)
		hash := decode[map[string]any](t, get.Payload)["hash"]
		if f := c.call("config.patch", map[string]any{"raw": `{tools: {profile: "` + profile + `"}}`, "baseHash": hash}); !f.OK {
			t.Errorf("config.patch: %+v", f.Error)
		}
	}
	for round := 0; round < 6; round++ {
		var once sync.Once
		var wg sync.WaitGroup
		wg.Add(1)
		ext := external[round%2]
		hook := func(loaded *config.Config) {
			// Only the reload of this round's external edit: a reload that
			// loaded something older (still in flight from the previous
			// round) would let the edit land between the patch's config.get
			// and its config.patch, and the compare-and-set rightly fails.
			if loaded == nil || loaded.String("tools.profile", "") != ext {
				return
			}
			once.Do(func() {
				// Patch inside the reload's window. If the reload holds the
				// config lock (as it must), the patch waits for it instead.
				if ts.s.configMu.TryLock() {
					ts.s.configMu.Unlock()
					patch(patched[round%2])
					wg.Done()
					return
				}
				go func() { defer wg.Done(); patch(patched[round%2]) }()
			})
		}
		ts.s.watch.afterLoad.Store(&hook)
		replaceFile(t, cfgPath, doc(ext))
		wg.Wait()
		raw, err := os.ReadFile(cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		want := config.HashRaw(raw)
		deadline := time.Now().Add(10 * time.Second)
		for ts.s.Config().Hash != want {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the gateway runs tools.profile %q but the file says %s", round,
					ts.s.Config().String("tools.profile", ""), raw[len(raw)-25:])
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// Concurrent external edits and patches, with no window forced.
	var wg sync.WaitGroup
	wg.Add(2)
	ts.s.watch.afterLoad.Store(nil)
	go func() {
		defer wg.Done()
		for i := 0; i < 6; i++ {
			replaceFile(t, cfgPath, doc(external[i%2]))
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 6; i++ {
			get := c.call("config.get", nil)
			hash := decode[map[string]any](t, get.Payload)["hash"]
			_ = c.call("config.patch", map[string]any{"raw": `{tools: {profile: "` + patched[i%2] + `"}}`, "baseHash": hash})
		}
	}()
	wg.Wait()
	raw, _ := os.ReadFile(cfgPath)
	want := config.HashRaw(raw)
	waitFor(t, 10*time.Second, func() bool { return ts.s.Config().Hash == want })
}

// A reload never weakens auth: deleting or emptying openclaw.json, setting
// mode none or removing the token keep the token in force (with a log
// line) until a restart. Rotating the token still works.
func TestReloadNeverWeakensAuth(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{gateway: {auth: {token: "file-token"}}}`)
	ts := startServerRaw(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: 5 * time.Millisecond})
	withToken := func(tok string) func(map[string]any) {
		return func(p map[string]any) {
			if tok == "" {
				delete(p, "auth")
			} else {
				p["auth"] = map[string]any{"token": tok}
			}
		}
	}
	dialConnected(t, ts.url, withToken("file-token"))
	mutations := []struct {
		name  string
		apply func()
	}{
		{"mode none", func() { replaceFile(t, cfgPath, `{gateway: {auth: {mode: "none"}}, tools: {profile: "coding"}}`) }},
		{"token removed", func() { replaceFile(t, cfgPath, `{gateway: {auth: {mode: "token"}}}`) }},
		{"token emptied", func() { replaceFile(t, cfgPath, `{gateway: {auth: {token: ""}}}`) }},
		{"file emptied", func() { replaceFile(t, cfgPath, `{}`) }},
		{"file deleted", func() {
			if err := os.Remove(cfgPath); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, m := range mutations {
		m.apply()
		waitFor(t, 5*time.Second, func() bool {
			return strings.Count(gatewayLog(dir), "refusing to weaken gateway auth") > i
		})
		if got := ts.s.auth.Load(); got.mode != AuthToken || got.token != "file-token" {
			t.Fatalf("%s: auth is now %s", m.name, got.mode)
		}
		anon := dial(t, ts.url)
		if f := anon.call("connect", connectParams(withToken(""))); f.OK {
			t.Fatalf("%s: a client without a token connected", m.name)
		}
		dialConnected(t, ts.url, withToken("file-token"))
	}
	// The rest of a weakening config still applies; the auth does not.
	if ts.s.Config().Exists {
		t.Errorf("running config should be the deleted file's (defaults)")
	}
	// Rotation is not weakening.
	replaceFile(t, cfgPath, `{gateway: {auth: {token: "rotated-token"}}}`)
	waitFor(t, 5*time.Second, func() bool { return ts.s.auth.Load().token == "rotated-token" })
	dialConnected(t, ts.url, withToken("rotated-token"))
}

// A LAN-bound gateway whose config loses its secret keeps its auth: it is
// never left reachable without one. (Not listening: tests bind loopback.)
func TestReloadKeepsLANGatewaySecured(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{gateway: {bind: "lan", auth: {password: "lan-secret"}}}`)
	s, err := New(Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if s.host != "0.0.0.0" {
		t.Fatalf("host %s", s.host)
	}
	for _, body := range []string{`{gateway: {bind: "lan", auth: {mode: "none"}}}`, `{gateway: {bind: "lan"}}`, ""} {
		if body == "" {
			_ = os.Remove(cfgPath)
		} else {
			writeFile(t, cfgPath, body)
		}
		_ = s.Reload()
		if a := s.auth.Load(); !a.secured() || a.password != "lan-secret" {
			t.Fatalf("after reloading %q the LAN gateway runs auth %s", body, a.mode)
		}
	}
}

// Temp files left by interrupted config writes are removed at start.
func TestStartRemovesConfigTempFiles(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{}`)
	left := []string{".openclaw.json.tmp-1234", ".openclaw.json.bak.tmp-99", ".openclaw.json.validate-7", ".openclaw-validate-3.json"}
	for _, n := range left {
		writeFile(t, filepath.Join(dir, n), `{"half":`)
	}
	startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1})
	waitFor(t, 5*time.Second, func() bool {
		for _, n := range left {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				return false
			}
		}
		return strings.Contains(gatewayLog(dir), "interrupted config writes")
	})
}

// An external edit that lands while a reload is loading the previous
// version is picked up by the next poll: the watcher remembers the stat
// of the bytes it loaded, not the file's stat after the apply.
func TestReloadEditDuringLoadIsNotLost(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, filepath.Join(dir, "big.json5"), `{bigNote: "`+strings.Repeat("x", 1500<<10)+`"}`)
	doc := func(profile string) string { return `{"$include": "big.json5", tools: {profile: "` + profile + `"}}` }
	writeFile(t, cfgPath, doc("full"))
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: 2 * time.Millisecond})
	var once sync.Once
	hook := func(*config.Config) { once.Do(func() { replaceFile(t, cfgPath, doc("minimal")) }) }
	ts.s.watch.afterLoad.Store(&hook)
	replaceFile(t, cfgPath, doc("coding"))
	want := config.HashRaw([]byte(doc("minimal")))
	deadline := time.Now().Add(10 * time.Second)
	for ts.s.Config().Hash != want {
		if time.Now().After(deadline) {
			t.Fatalf("the gateway runs tools.profile %q; the file says minimal", ts.s.Config().String("tools.profile", ""))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A config.patch that would weaken auth is written (the admin asked), the
// running config follows the file (same hash), and the auth in force stays
// until a restart.
func TestConfigPatchWeakeningAuthKeepsAuth(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{gateway: {auth: {token: "file-token"}}}`)
	ts := startServerRaw(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1})
	c := dialConnected(t, ts.url, func(p map[string]any) { p["auth"] = map[string]any{"token": "file-token"} })
	hash := decode[map[string]any](t, c.call("config.get", nil).Payload)["hash"]
	f := c.call("config.patch", map[string]any{"raw": `{gateway: {auth: {mode: "none", token: null}}}`, "baseHash": hash})
	if !f.OK {
		t.Fatalf("config.patch: %+v", f.Error)
	}
	raw, _ := os.ReadFile(cfgPath)
	if ts.s.Config().Hash != config.HashRaw(raw) {
		t.Errorf("running hash %s, file hash %s", short(ts.s.Config().Hash), short(config.HashRaw(raw)))
	}
	if a := ts.s.auth.Load(); a.mode != AuthToken || a.token != "file-token" {
		t.Errorf("auth weakened by config.patch: %s", a.mode)
	}
	if !strings.Contains(gatewayLog(dir), "refusing to weaken gateway auth") {
		t.Errorf("no log line")
	}
	anon := dial(t, ts.url)
	if f := anon.call("connect", connectParams(func(p map[string]any) { delete(p, "auth") })); f.OK {
		t.Errorf("a client without a token connected")
	}
}

// A FIFO in place of openclaw.json never hangs config.get or the watcher.
func TestConfigFIFODoesNotHang(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{tools: {profile: "coding"}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: 5 * time.Millisecond})
	c := dialConnected(t, ts.url)
	if err := os.Remove(cfgPath); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(cfgPath, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := c.tryCall("config.get", nil, 5*time.Second)
	if err != nil {
		t.Fatalf("config.get with a FIFO as the config: %v", err)
	}
	if f.OK || !strings.Contains(f.Error.Message, "not a regular file") {
		t.Errorf("config.get = %s %+v", f.Payload, f.Error)
	}
	waitFor(t, 5*time.Second, func() bool { return strings.Contains(gatewayLog(dir), "not a regular file") })
	if ts.s.Config().String("tools.profile", "") != "coding" {
		t.Errorf("the last good config was replaced")
	}
}

// The watcher does not reload the gateway's own config writes: a poll
// that lands between a config.patch's write and its apply used to settle
// into a full reload of the file just written (same hash, $includes read
// again), which also raced with the next external edit.
func TestOwnConfigWritesAreNotReloaded(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, filepath.Join(dir, "big.json5"), `{bigNote: "`+strings.Repeat("x", 512<<10)+`"}`)
	writeFile(t, cfgPath, `{"$include": "big.json5", tools: {profile: "full"}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: time.Millisecond})
	var mu sync.Mutex
	var loads []string
	hook := func(cfg *config.Config) {
		mu.Lock()
		defer mu.Unlock()
		loads = append(loads, cfg.String("tools.profile", "?"))
	}
	ts.s.watch.afterLoad.Store(&hook)
	c := dialConnected(t, ts.url)
	for i, profile := range []string{"coding", "messaging", "coding", "messaging", "coding", "messaging", "coding", "messaging"} {
		hash := decode[map[string]any](t, c.call("config.get", nil).Payload)["hash"]
		if f := c.call("config.patch", map[string]any{"raw": `{tools: {profile: "` + profile + `"}}`, "baseHash": hash}); !f.OK {
			t.Fatalf("patch %d: %+v", i, f.Error)
		}
	}
	// An external edit: once it is in force, every reload the patches
	// could have caused has happened (one watcher goroutine, in order).
	replaceFile(t, cfgPath, `{"$include": "big.json5", tools: {profile: "minimal"}}`)
	waitFor(t, 10*time.Second, func() bool { return ts.s.Config().String("tools.profile", "") == "minimal" })
	mu.Lock()
	defer mu.Unlock()
	for _, p := range loads {
		if p != "minimal" {
			t.Errorf("the watcher reloaded the gateway's own write (loads: %v)", loads)
			break
		}
	}
}
