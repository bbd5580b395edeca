package browser_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/porttest"
	"github.com/openclaw-go/openclaw/tools/browser/chromiumtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestMain doubles as the real CLI: a test runs `openclaw` as a separate
// process by re-executing this binary with OPENCLAW_TEST_CLI=1, so every
// call below is a new process attaching to the detached browser. The
// recorder those processes start is this binary run as `openclaw
// __browser-recorder`, through the same entrypoint as the real binary's.
func TestMain(m *testing.M) {
	if os.Getenv("OPENCLAW_TEST_CLI") == "1" || (len(os.Args) > 1 && os.Args[1] == "__browser-recorder") {
		os.Exit(commands.Main(append([]string{"openclaw"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// chromium is the system Chromium (chromiumtest: fails under CI=true when missing).
func chromium(t *testing.T) string { return chromiumtest.Path(t) }

// rig is one test's state dir, config, local page server and browser.
type rig struct {
	t     *testing.T
	state string
	base  string // http://127.0.0.1:PORT
}

// newRig writes a config (private network allowed: the pages are on
// loopback; noSandbox as root) and starts the browser, stopped at cleanup.
func newRig(t *testing.T, extra map[string]any) *rig {
	exe := chromium(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "pages", "browser"))))
	t.Cleanup(srv.Close)
	r := &rig{t: t, state: t.TempDir(), base: srv.URL}
	browser := map[string]any{
		"executablePath": exe,
		"headless":       true,
		"noSandbox":      os.Geteuid() == 0,
		"ssrfPolicy":     map[string]any{"dangerouslyAllowPrivateNetwork": true},
		"profiles":       map[string]any{"openclaw": map[string]any{"cdpPort": porttest.Free(t)}},
	}
	for k, v := range extra {
		browser[k] = v
	}
	r.writeConfig(browser)
	r.ok("browser", "start")
	t.Cleanup(func() { r.run("browser", "stop") })
	return r
}

func (r *rig) writeConfig(browser map[string]any) {
	b, _ := json.Marshal(map[string]any{"browser": browser})
	if err := os.WriteFile(filepath.Join(r.state, "openclaw.json"), b, 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// run executes the CLI in a new process and returns stdout, stderr, exit code.
func (r *rig) run(args ...string) (string, string, int) {
	cmd := exec.Command(os.Args[0], append(args, "--json")...)
	cmd.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+r.state, "HOME="+r.state, "CI=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (r *rig) ok(args ...string) gjson.Result {
	r.t.Helper()
	out, errs, code := r.run(args...)
	if code != 0 {
		r.t.Fatalf("openclaw %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return gjson.Parse(out)
}

func (r *rig) snapshot(args ...string) string {
	r.t.Helper()
	return r.ok(append([]string{"browser", "snapshot"}, args...)...).Get("content.0.text").String()
}

func (r *rig) eval(fn string) string {
	r.t.Helper()
	return r.ok("browser", "evaluate", "--fn", fn).Get("result").String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "pages", "browser", name)
	if *update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if strings.TrimSuffix(string(want), "\n") != got {
		t.Errorf("snapshot differs from %s:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestBrowser drives one browser through the whole surface, each step a
// new CLI process: snapshot golden, acts that change the page, refs that
// survive snapshots and processes, a stale ref, screenshot media, the SSRF
// refusal and the evaluate switch.
func TestBrowser(t *testing.T) {
	r := newRig(t, nil)
	st := r.ok("browser", "status")
	if !st.Get("running").Bool() || !st.Get("cdpReady").Bool() || st.Get("pid").Int() == 0 {
		t.Fatalf("status after start: %s", st.Raw)
	}
	if prof := r.ok("browser", "profiles").Get("profiles.0"); prof.Get("name").String() != "openclaw" || !prof.Get("running").Bool() || !prof.Get("isDefault").Bool() {
		t.Errorf("profiles: %s", prof.Raw)
	}
	r.ok("browser", "open", r.base+"/form.html")

	t.Run("golden", func(t *testing.T) {
		golden(t, "form.ai.golden", r.snapshot())
		golden(t, "form.interactive.golden", r.snapshot("--interactive"))
	})

	t.Run("acts", func(t *testing.T) {
		snap := r.snapshot()
		ref := func(line string) string {
			for _, l := range strings.Split(snap, "\n") {
				if strings.Contains(l, line) {
					i := strings.Index(l, "[ref=")
					return l[i+5 : i+5+strings.IndexByte(l[i+5:], ']')]
				}
			}
			t.Fatalf("no line %q in\n%s", line, snap)
			return ""
		}
		r.ok("browser", "click", ref(`button "Press me"`))
		if got := r.eval(`() => document.getElementById("b").textContent`); got != "Clicked 1" {
			t.Errorf("after click: %q", got)
		}
		r.ok("browser", "select", ref("combobox"), "blue")
		r.ok("browser", "fill", "--fields", fmt.Sprintf(`[{"ref":%q,"type":"checkbox","value":true}]`, ref(`checkbox "Remember me"`)))
		r.ok("browser", "type", ref(`textbox "User"`), "alice", "--submit")
		after := r.snapshot()
		// A typed value prints as the textbox's text, after its placeholder.
		for _, want := range []string{"[ref=" + ref(`textbox "User"`) + "]:\n      - /placeholder: user name\n      - text: alice", `option "blue" [selected]`,
			`checkbox "Remember me" [checked]`, `button "Clicked 1"`, "submitted alice"} {
			if !strings.Contains(after, want) {
				t.Errorf("snapshot after acts lacks %q:\n%s", want, after)
			}
		}
		r.ok("browser", "press", "Tab")
		r.ok("browser", "wait", "--text", "submitted alice")
		// A covered target: the error names the condition and the cover.
		out, _, code := r.run("browser", "click", ref(`button "Covered"`), "--timeout-ms", "600")
		if code != 124 || !strings.Contains(out, "covered by div#cover") {
			t.Errorf("covered click: exit %d %s", code, out)
		}
	})

	t.Run("refs-stable", func(t *testing.T) {
		first := r.snapshot()
		// New element before everything: old refs must not move.
		r.eval(`() => { const b = document.createElement("button"); b.textContent = "Inserted"; document.body.prepend(b); return 1 }`)
		second := r.snapshot()
		for _, l := range strings.Split(first, "\n") {
			if strings.Contains(l, "[ref=") && !strings.Contains(second, strings.TrimSpace(l)) && !strings.Contains(l, "Inserted") {
				t.Errorf("line %q of the first snapshot changed in the second:\n%s", l, second)
			}
		}
		if !strings.Contains(second, `button "Inserted" [ref=e`) {
			t.Errorf("inserted button has no ref:\n%s", second)
		}
	})

	t.Run("stale-ref", func(t *testing.T) {
		snap := r.snapshot()
		i := strings.Index(snap, `button "Inserted" [ref=`)
		ref := snap[i+len(`button "Inserted" [ref=`):]
		ref = ref[:strings.IndexByte(ref, ']')]
		r.eval(`() => { document.body.firstElementChild.remove(); return 1 }`)
		out, _, code := r.run("browser", "click", ref)
		if code != 1 || !strings.Contains(out, "Run a new snapshot") {
			t.Errorf("stale ref %s: exit %d %s", ref, code, out)
		}
	})

	t.Run("truncate", func(t *testing.T) {
		res := r.ok("browser", "snapshot", "--max-chars", "120")
		text := res.Get("content.0.text").String()
		if !strings.HasSuffix(text, "\n\n[...TRUNCATED - page too large]") || len(text) > 120 || !res.Get("details.truncated").Bool() {
			t.Errorf("truncated snapshot (%d chars): %q", len(text), text)
		}
		if n := res.Get("details.stats.refs").Int(); n != int64(strings.Count(text, "[ref=")) {
			t.Errorf("stats.refs %d for %q", n, text)
		}
	})

	t.Run("media", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "shot.png")
		res := r.ok("browser", "screenshot", "--out", out)
		if !strings.HasPrefix(res.Get("content.0.text").String(), "MEDIA:") {
			t.Errorf("screenshot text: %s", res.Raw)
		}
		b, err := os.ReadFile(out)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("--out file: %v %q", err, b[:min(len(b), 8)])
		}
		res = r.ok("browser", "pdf")
		p := strings.TrimPrefix(res.Get("content.0.text").String(), "MEDIA:")
		if b, err := os.ReadFile(p); err != nil || !bytes.HasPrefix(b, []byte("%PDF")) {
			t.Errorf("pdf %s: %v", p, err)
		}
	})

	t.Run("navigate-and-tabs", func(t *testing.T) {
		res := r.ok("browser", "navigate", r.base+"/next.html")
		if !strings.HasSuffix(res.Get("url").String(), "/next.html") {
			t.Errorf("navigate: %s", res.Raw)
		}
		if !strings.Contains(r.snapshot(), `heading "Second page" [level=2]`) {
			t.Error("snapshot after navigate lacks the new page")
		}
		tabs := r.ok("browser", "tabs").Get("tabs")
		if !strings.Contains(tabs.Raw, "/next.html") {
			t.Errorf("tabs: %s", tabs.Raw)
		}
	})

	t.Run("relayed-through-serve", func(t *testing.T) {
		// Two relayed acts in a row: the gateway must not reuse the first
		// request's (finished) context for the second.
		port := porttest.Free(t)
		cmd := exec.Command(os.Args[0], "serve", "--port", fmt.Sprint(port), "--auth", "token", "--token", "t0k")
		cmd.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+r.state, "HOME="+r.state)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
		deadline := time.Now().Add(15 * time.Second)
		for {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", port))
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("gateway not ready")
			}
			time.Sleep(50 * time.Millisecond)
		}
		url := fmt.Sprintf("ws://127.0.0.1:%d", port)
		r.ok("browser", "navigate", r.base+"/form.html")
		snap := r.ok("browser", "snapshot", "--url", url, "--token", "t0k").Get("content.0.text").String()
		i := strings.Index(snap, `button "Press me" [ref=`)
		if i < 0 {
			t.Fatalf("relayed snapshot:\n%s", snap)
		}
		ref := snap[i+len(`button "Press me" [ref=`):]
		ref = ref[:strings.IndexByte(ref, ']')]
		r.ok("browser", "click", ref, "--url", url, "--token", "t0k")
		r.ok("browser", "click", ref, "--url", url, "--token", "t0k")
		if got := r.eval(`() => document.getElementById("b").textContent`); got != "Clicked 2" {
			t.Errorf("after two relayed clicks: %q", got)
		}
	})

	t.Run("ssrf-and-evaluate-off", func(t *testing.T) {
		r.writeConfig(map[string]any{"headless": true, "noSandbox": os.Geteuid() == 0, "evaluateEnabled": false,
			"profiles": map[string]any{"openclaw": map[string]any{"cdpPort": gjson.Get(r.ok("browser", "status").Raw, "cdpPort").Int()}}})
		out, _, code := r.run("browser", "navigate", r.base+"/form.html")
		if code != 3 || !strings.Contains(out, "navigation blocked") {
			t.Errorf("private navigation without the allowance: exit %d %s", code, out)
		}
		out, _, code = r.run("browser", "open", "file:///etc/passwd")
		if code != 3 || !strings.Contains(out, "unsupported protocol") {
			t.Errorf("file: URL: exit %d %s", code, out)
		}
		out, _, code = r.run("browser", "evaluate", "--fn", "() => 1")
		if code != 3 || !strings.Contains(out, "evaluateEnabled") {
			t.Errorf("evaluate disabled: exit %d %s", code, out)
		}
	})

	r.ok("browser", "stop")
	if st := r.ok("browser", "status"); st.Get("running").Bool() {
		t.Errorf("status after stop: %s", st.Raw)
	}
	out, _, code := r.run("browser", "snapshot")
	if code != 5 || !strings.Contains(out, "openclaw browser start") {
		t.Errorf("snapshot with the browser stopped: exit %d %s", code, out)
	}
}

// TestStartAsRootNeedsNoSandbox: as root, Chromium refuses to run with its
// sandbox and start says which setting fixes it.
func TestStartAsRootNeedsNoSandbox(t *testing.T) {
	exe := chromium(t)
	r := &rig{t: t, state: t.TempDir()}
	r.writeConfig(map[string]any{"executablePath": exe, "headless": true, "noSandbox": false,
		"profiles": map[string]any{"openclaw": map[string]any{"cdpPort": porttest.Free(t)}}})
	// Registered before start so it runs after stop and before the temp
	// dir's removal: Chromium's crash handler, detached, may still be
	// writing its reports under the dir when a refused start returns.
	t.Cleanup(func() { waitNoProcessUsing(t, r.state) })
	out, _, code := r.run("browser", "start")
	t.Cleanup(func() { r.run("browser", "stop") })
	if os.Geteuid() != 0 {
		if code != 0 {
			t.Errorf("start as a normal user: exit %d %s", code, out)
		}
		return
	}
	if code != 1 || !strings.Contains(out, "browser.noSandbox=true") {
		t.Errorf("start as root without noSandbox: exit %d %s", code, out)
	}
}

// waitNoProcessUsing waits (bounded) until no process names dir on its
// command line.
func waitNoProcessUsing(t *testing.T, dir string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		busy := 0
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(dir)) {
				busy++
			}
		}
		if busy == 0 {
			return
		}
		select {
		case <-deadline:
			t.Errorf("%d processes still use %s", busy, dir)
			return
		case <-tick.C:
		}
	}
}

// dead reports whether pid has exited (a zombie counts: it holds nothing).
func dead(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitDead waits (bounded) for pid to exit.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !dead(pid) {
		select {
		case <-deadline:
			t.Fatalf("process %d still alive", pid)
		case <-tick.C:
		}
	}
}

// TestCrashRecovery: a browser killed with -9 reads as not running and
// start brings it back; a pid file naming a stranger (the pid reused) is
// neither reported as running nor killed by start.
func TestCrashRecovery(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/form.html")
	pid := int(r.ok("browser", "status").Get("pid").Int())
	if pid == 0 {
		t.Fatal("no pid after start")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDead(t, pid)
	st := r.ok("browser", "status")
	if st.Get("running").Bool() || st.Get("cdpReady").Bool() {
		t.Errorf("status after kill -9: %s", st.Raw)
	}
	if out, _, code := r.run("browser", "snapshot"); code != 5 {
		t.Errorf("snapshot of a crashed browser: exit %d %s", code, out)
	}
	st = r.ok("browser", "start")
	if !st.Get("running").Bool() || !st.Get("cdpReady").Bool() || st.Get("pid").Int() == int64(pid) {
		t.Fatalf("start after the crash: %s", st.Raw)
	}
	r.ok("browser", "open", r.base+"/next.html")
	if !strings.Contains(r.snapshot(), "Second page") {
		t.Error("recovered browser does not serve pages")
	}

	// A stranger under the recorded pid.
	r.ok("browser", "stop")
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	pidFile := filepath.Join(r.state, "browser", "openclaw", "pid")
	if err := os.WriteFile(pidFile, []byte(fmt.Sprint(sleeper.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := r.ok("browser", "status"); st.Get("running").Bool() {
		t.Errorf("status with a reused pid: %s", st.Raw)
	}
	r.ok("browser", "start")
	if dead(sleeper.Process.Pid) {
		t.Error("start killed an unrelated process that reused the browser's pid")
	}
}

// TestProfilesManage: create-profile takes the first free port of the
// range into the config, the profile starts, delete-profile stops it and
// removes it; reset-profile frees a profile whose state files were lost
// (its browser still holds the port and the user data).
func TestProfilesManage(t *testing.T) {
	rangeStart := porttest.Free(t)
	r := newRig(t, map[string]any{"cdpPortRangeStart": rangeStart})
	res := r.ok("browser", "create-profile", "--name", "work", "--color", "#0066CC")
	if res.Get("profile").String() != "work" || res.Get("cdpPort").Int() != int64(rangeStart) || res.Get("color").String() != "#0066CC" {
		t.Errorf("create-profile: %s", res.Raw)
	}
	cfg, _ := os.ReadFile(filepath.Join(r.state, "openclaw.json"))
	if gjson.GetBytes(cfg, "browser.profiles.work.cdpPort").Int() != int64(rangeStart) {
		t.Errorf("config after create-profile: %s", cfg)
	}
	if out, _, code := r.run("browser", "create-profile", "--name", "work"); code != 2 || !strings.Contains(out, "already exists") {
		t.Errorf("second create: exit %d %s", code, out)
	}
	if out, _, code := r.run("browser", "create-profile", "--name", "Bad_Name"); code != 2 {
		t.Errorf("bad name: exit %d %s", code, out)
	}
	st := r.ok("browser", "start", "--browser-profile", "work")
	workPid := int(st.Get("pid").Int())
	if !st.Get("running").Bool() || st.Get("cdpPort").Int() != int64(rangeStart) {
		t.Fatalf("start work: %s", st.Raw)
	}
	if !strings.Contains(r.ok("browser", "profiles").Raw, `"work"`) {
		t.Error("profiles lacks work")
	}
	if out, _, code := r.run("browser", "delete-profile", "--name", "openclaw"); code != 2 || !strings.Contains(out, "default profile") {
		t.Errorf("delete the default: exit %d %s", code, out)
	}
	res = r.ok("browser", "delete-profile", "--name", "work")
	if !res.Get("ok").Bool() || !res.Get("deleted").Bool() {
		t.Errorf("delete-profile: %s", res.Raw)
	}
	waitDead(t, workPid)
	if _, err := os.Stat(filepath.Join(r.state, "browser", "work")); !os.IsNotExist(err) {
		t.Errorf("profile dir after delete: %v", err)
	}
	if strings.Contains(r.ok("browser", "profiles").Raw, `"work"`) {
		t.Error("profiles still lists work")
	}

	// Lost state: the browser runs but its pid and port files are gone.
	pid := int(r.ok("browser", "status").Get("pid").Int())
	dir := filepath.Join(r.state, "browser", "openclaw")
	for _, f := range []string{"pid", "cdp-port"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	res = r.ok("browser", "reset-profile")
	if !res.Get("moved").Bool() || res.Get("from").String() != filepath.Join(dir, "user-data") {
		t.Errorf("reset-profile: %s", res.Raw)
	}
	waitDead(t, pid)
	for _, lock := range []string{"SingletonLock", "SingletonSocket"} {
		if _, err := os.Lstat(filepath.Join(dir, "user-data", lock)); !os.IsNotExist(err) {
			t.Errorf("%s after reset: %v", lock, err)
		}
	}
	r.ok("browser", "start")
	r.ok("browser", "open", r.base+"/next.html")
	if !strings.Contains(r.snapshot(), "Second page") {
		t.Error("browser after reset does not serve pages")
	}
}

// refFor finds the ref on the first snapshot line containing what.
func refFor(t *testing.T, snap, what string) string {
	t.Helper()
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, what) {
			if i := strings.Index(l, "[ref="); i >= 0 {
				return l[i+5 : i+5+strings.IndexByte(l[i+5:], ']')]
			}
		}
	}
	t.Fatalf("no line %q with a ref in\n%s", what, snap)
	return ""
}

// TestActEffects: every act's result says what it caused, and the capture
// lives between CLI processes: console messages logged while the page
// loaded, the requests a click started and their bodies, dialogs (open,
// answered later, or armed beforehand), downloads stored as media, tabs
// opened, navigations with their HTTP status, and an HTML5 drag.
func TestActEffects(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/events.html")

	// Logged during page load, before any call asked for it.
	msgs := r.ok("browser", "console", "--since-last").Get("messages")
	if !strings.Contains(msgs.Raw, "load-error") || !strings.Contains(msgs.Raw, "loaded") {
		t.Errorf("console after load: %s", msgs.Raw)
	}
	if again := r.ok("browser", "console", "--since-last").Get("messages"); len(again.Array()) != 0 {
		t.Errorf("second --since-last read: %s", again.Raw)
	}

	snap := r.snapshot()
	res := r.ok("browser", "click", refFor(t, snap, `button "Log error"`))
	if !strings.Contains(res.Get("consoleErrors").Raw, "clicked-error") || !res.Get("tookMs").Exists() || res.Get("consoleWarnings").Int() != 1 {
		t.Errorf("click that logs an error: %s", res.Raw)
	}
	if errs := r.ok("browser", "console", "--since-last", "--level", "error").Get("messages"); len(errs.Array()) != 1 || errs.Get("0.text").String() != "clicked-error" {
		t.Errorf("new errors since the last read: %s", errs.Raw)
	}

	res = r.ok("browser", "click", refFor(t, snap, `button "Fetch data"`))
	if res.Get("requests").Int() < 1 {
		t.Errorf("click that fetches: %s", res.Raw)
	}
	if got := r.eval(`() => document.getElementById("out").textContent`); got != "hello from data" {
		t.Errorf("page after fetch: %q", got)
	}
	reqs := r.ok("browser", "requests", "--since-last").Get("requests")
	var dataID int64
	for _, q := range reqs.Array() {
		if strings.HasSuffix(q.Get("url").String(), "/data.json") {
			dataID = q.Get("id").Int()
			if q.Get("status").Int() != 200 || q.Get("method").String() != "GET" || !q.Get("done").Bool() || !q.Get("durationMs").Exists() {
				t.Errorf("data.json request: %s", q.Raw)
			}
		}
	}
	if dataID == 0 {
		t.Fatalf("requests lack data.json: %s", reqs.Raw)
	}
	if body := r.ok("browser", "response-body", fmt.Sprint(dataID)); !strings.Contains(body.Get("body").String(), "hello from data") {
		t.Errorf("response-body %d: %s", dataID, body.Raw)
	}
	if again := r.ok("browser", "requests", "--since-last").Get("requests"); len(again.Array()) != 0 {
		t.Errorf("requests --since-last twice: %s", again.Raw)
	}

	// An unarmed alert: the click returns at once, reporting it open.
	res = r.ok("browser", "click", refFor(t, snap, `button "Alert"`))
	if res.Get("blockedByDialog.type").String() != "alert" || res.Get("blockedByDialog.message").String() != "hello" {
		t.Fatalf("click that opens an alert: %s", res.Raw)
	}
	if ans := r.ok("browser", "dialog", "--accept"); ans.Get("answered.type").String() != "alert" {
		t.Errorf("dialog --accept with the alert open: %s", ans.Raw)
	}
	r.ok("browser", "wait", "--text", "alert done")

	// Armed answers.
	if arm := r.ok("browser", "dialog", "--accept", "--prompt-text", "bob"); !arm.Get("armed").Bool() {
		t.Errorf("arming: %s", arm.Raw)
	}
	res = r.ok("browser", "click", refFor(t, snap, `button "Prompt"`))
	if d := res.Get("dialogs.0"); d.Get("type").String() != "prompt" || d.Get("handled").String() != "accepted" || res.Get("blockedByDialog").Exists() {
		t.Errorf("click with an armed prompt: %s", res.Raw)
	}
	if got := r.eval(`() => document.getElementById("out").textContent`); got != "prompt: bob" {
		t.Errorf("after the armed prompt: %q", got)
	}
	r.ok("browser", "dialog", "--dismiss")
	r.ok("browser", "click", refFor(t, snap, `button "Confirm"`))
	if got := r.eval(`() => document.getElementById("out").textContent`); got != "confirm: false" {
		t.Errorf("after the dismissed confirm: %q", got)
	}

	res = r.ok("browser", "click", refFor(t, snap, `button "Open tab"`))
	if !strings.Contains(res.Get("tabsOpened").Raw, "next.html") {
		t.Errorf("click that opens a tab: %s", res.Raw)
	}

	res = r.ok("browser", "click", refFor(t, snap, `link "Download report"`))
	dl := res.Get("downloads.0")
	if dl.Get("state").String() != "completed" || dl.Get("suggestedFilename").String() != "report.txt" {
		t.Fatalf("click that downloads: %s", res.Raw)
	}
	if b, err := os.ReadFile(dl.Get("path").String()); err != nil || strings.TrimSpace(string(b)) != "quarterly numbers" {
		t.Errorf("downloaded media %s: %v %q", dl.Get("path"), err, b)
	}
	if all := r.ok("browser", "downloads", "--since-last").Get("downloads"); len(all.Array()) != 1 || all.Get("0.path").String() != dl.Get("path").String() {
		t.Errorf("downloads: %s", all.Raw)
	}

	r.ok("browser", "drag", refFor(t, snap, `: Drag me`), refFor(t, snap, `region "Drop zone"`))
	if got := r.eval(`() => document.getElementById("zone").textContent`); got != "dropped item" {
		t.Errorf("after drag: %q", got)
	}

	res = r.ok("browser", "click", refFor(t, snap, `link "Missing page"`))
	if !strings.HasSuffix(res.Get("navigated.url").String(), "/missing.html") || res.Get("navigated.status").Int() != 404 {
		t.Errorf("click on a link to a missing page: %s", res.Raw)
	}
	res = r.ok("browser", "navigate", r.base+"/events.html")
	if res.Get("status").Int() != 200 || !strings.Contains(res.Get("consoleErrors").Raw, "load-error") {
		t.Errorf("navigate reports the status and the load's console errors: %s", res.Raw)
	}
	res = r.ok("browser", "click", refFor(t, r.snapshot(), `link "Go next"`))
	if !strings.HasSuffix(res.Get("navigated.url").String(), "/next.html") || res.Get("navigated.status").Int() != 200 {
		t.Errorf("click on a link: %s", res.Raw)
	}

	// A resize lasts beyond the call that made it.
	r.ok("browser", "resize", "500", "400")
	if got := r.eval(`() => window.innerWidth + "x" + window.innerHeight`); got != "500x400" {
		t.Errorf("viewport in the next call after resize 500 400: %s", got)
	}
}

// waitOut waits for the page's #out to read want (the upload page sets it
// when the file's text promise resolves, after the upload call returns)
// and reports what it read instead if it never does.
func (r *rig) waitOut(want, what string) {
	r.t.Helper()
	fn := fmt.Sprintf(`() => document.getElementById("out").textContent === %q`, want)
	if out, _, code := r.run("browser", "wait", "--fn", fn, "--timeout-ms", "10000"); code != 0 {
		r.t.Errorf("%s: #out is %q, not %q (wait: exit %d %s)", what, r.eval(`() => document.getElementById("out").textContent`), want, code, out)
	}
}

// TestUpload: files from the uploads root reach a file input, set directly
// or through the chooser a button opens; paths outside the root and
// symlinks are refused with exit 3.
func TestUpload(t *testing.T) {
	r := newRig(t, nil)
	root := filepath.Join(os.TempDir(), "openclaw", "uploads")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(root, "test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	file := filepath.Join(dir, "cv.txt")
	if err := os.WriteFile(file, []byte("my cv\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.ok("browser", "open", r.base+"/upload.html")
	snap := r.snapshot()
	r.ok("browser", "upload", file, "--input-ref", refFor(t, snap, "Attach"))
	r.waitOut("f: cv.txt = my cv", "after upload to the input")
	r.ok("browser", "upload", file, "--ref", refFor(t, snap, `button "Choose file"`))
	r.waitOut("hidden: cv.txt = my cv", "after upload through the chooser")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _, code := r.run("browser", "upload", outside, "--input-ref", refFor(t, snap, "Attach")); code != 3 {
		t.Errorf("upload from outside the root: exit %d %s", code, out)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if out, _, code := r.run("browser", "upload", link, "--input-ref", refFor(t, snap, "Attach")); code != 3 {
		t.Errorf("upload through a symlink: exit %d %s", code, out)
	}
}
