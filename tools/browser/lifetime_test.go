package browser_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/porttest"
)

// TestGatewayStopsTheBrowsersItStarted: SIGTERM to a real `openclaw
// serve` stops the browser a relayed `start` launched, and its recorder;
// a browser the CLI launched, and a profile attached to it (cdpUrl), are
// left running. A relayed `wait` still in flight ends by the drain
// deadline, so serve exits 0 (it used to exit 1 after the drain, leaving
// Chromium and the recorder running).
func TestGatewayStopsTheBrowsersItStarted(t *testing.T) {
	exe := chromium(t)
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<p>page</p>")
	}))
	t.Cleanup(pages.Close)
	r := &rig{t: t, state: t.TempDir(), base: pages.URL}
	minePort := porttest.Free(t)
	r.writeConfig(map[string]any{
		"executablePath": exe, "headless": true, "noSandbox": os.Geteuid() == 0,
		"ssrfPolicy": map[string]any{"dangerouslyAllowPrivateNetwork": true},
		"profiles": map[string]any{
			"openclaw": map[string]any{"cdpPort": porttest.Free(t)},
			"mine":     map[string]any{"cdpPort": minePort},
			"attached": map[string]any{"cdpUrl": fmt.Sprintf("http://127.0.0.1:%d", minePort)},
		},
	})
	for _, p := range []string{"openclaw", "mine"} {
		t.Cleanup(func() { r.run("browser", "stop", "--browser-profile", p) })
	}
	r.ok("browser", "start", "--browser-profile", "mine") // the CLI's, not the gateway's

	port := porttest.Free(t)
	serve := exec.Command(os.Args[0], "serve", "--port", fmt.Sprint(port), "--auth", "token", "--token", "t0k")
	serve.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+r.state, "HOME="+r.state)
	var serveLog bytes.Buffer
	serve.Stdout, serve.Stderr = &serveLog, &serveLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() {
		if serve.ProcessState == nil {
			_ = serve.Process.Kill()
		}
	})
	url := fmt.Sprintf("ws://127.0.0.1:%d", port)
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
			t.Fatalf("openclaw serve not ready:\n%s", serveLog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	relay := func(args ...string) []string { return append(args, "--url", url, "--token", "t0k") }

	pid := int(r.ok(relay("browser", "start")...).Get("pid").Int())
	r.ok(relay("browser", "start", "--browser-profile", "attached")...)
	minePid := int(r.ok("browser", "status", "--browser-profile", "mine").Get("pid").Int())
	if pid == 0 || minePid == 0 {
		t.Fatalf("pids: gateway's %d, CLI's %d", pid, minePid)
	}
	r.ok(relay("browser", "open", pages.URL)...)

	// A relayed wait that would last a minute; it marks the page when it
	// runs, so the signal comes while it is in flight.
	wait := exec.Command(os.Args[0], relay("browser", "wait", "--fn", `() => { document.title = "waiting"; return false }`, "--timeout-ms", "60000", "--json")...)
	wait.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+r.state, "HOME="+r.state)
	if err := wait.Start(); err != nil {
		t.Fatal(err)
	}
	waitDone := make(chan struct{})
	go func() { _ = wait.Wait(); close(waitDone) }()
	for r.eval(`() => document.title`) != "waiting" {
		if time.Now().After(deadline.Add(15 * time.Second)) {
			t.Fatal("the relayed wait never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}

	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve after SIGTERM with a browser wait in flight: %v\n%s", err, serveLog.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not exit after SIGTERM:\n%s", serveLog.String())
	}
	<-waitDone

	waitDead(t, pid) // bounded: fails if the gateway's browser survives
	sock := filepath.Join(r.state, "browser", "openclaw", "recorder.sock")
	if c, err := net.Dial("unix", sock); err == nil {
		c.Close()
		t.Error("the gateway's browser recorder still answers")
	}
	if dead(minePid) {
		t.Error("the gateway stopped a browser the CLI started")
	}
	mine := filepath.Join(r.state, "browser", "mine", "recorder.sock")
	if c, err := net.Dial("unix", mine); err != nil {
		t.Errorf("the CLI browser's recorder: %v", err)
	} else {
		c.Close()
	}
	if st := r.ok("browser", "status", "--browser-profile", "attached"); !st.Get("cdpReady").Bool() {
		t.Errorf("the attached profile's browser: %s", st.Raw)
	}
	if strings.Contains(serveLog.String(), "drain timeout") {
		t.Errorf("serve log:\n%s", serveLog.String())
	}
}
