package browser

import (
	"context"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/browser/chromiumtest"
)

// stranger is another process's CDP endpoint on 127.0.0.1: it answers
// /json/version and counts every request.
func stranger(t *testing.T) (port int, hits *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hits = new(atomic.Int64)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"Browser":"Stranger/1.0","webSocketDebuggerUrl":"ws://` + r.Host + `/devtools/browser/stranger"}`))
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().(*net.TCPAddr).Port, hits
}

func portRaceEnv(t *testing.T, prof map[string]any) (*tools.Env, *profile) {
	t.Helper()
	b := map[string]any{"executablePath": chromiumtest.Path(t), "headless": true, "noSandbox": os.Geteuid() == 0,
		"ssrfPolicy": map[string]any{"dangerouslyAllowPrivateNetwork": true}}
	if prof != nil {
		b["profiles"] = map[string]any{"openclaw": prof}
	}
	env := &tools.Env{StateDir: t.TempDir(), Config: &config.Config{Doc: map[string]any{"browser": b}}}
	p, err := resolveProfile(env, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop(context.Background()) })
	return env, p
}

// Two starts at once (two state dirs, two profiles) could both find the
// same port free; the one whose Chromium lost the bind then drove the
// other's browser, because Chromium falls back to [::1] and 127.0.0.1
// answered for the winner. Start now takes its own Chromium's word for
// where it listens and moves on to another port.
func TestStartMovesOnWhenThePickedPortIsTaken(t *testing.T) {
	env, p := portRaceEnv(t, nil)
	taken, hits := stranger(t)
	calls := 0
	pickPort = func(start int) (int, error) {
		if calls++; calls == 1 {
			return taken, nil // what the check saw free, bound by now
		}
		return freePort(start)
	}
	t.Cleanup(func() { pickPort = freePort })
	st, err := p.start(context.Background(), env)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	if st.CdpPort == taken || !st.Running || !st.CdpReady || calls != 2 {
		t.Errorf("start: port %d (the taken one is %d), running %v, ready %v, %d picks", st.CdpPort, taken, st.Running, st.CdpReady, calls)
	}
	b, err := os.ReadFile(p.Dir + "/" + wsCacheFile)
	if err != nil || strings.Contains(string(b), "stranger") {
		t.Errorf("remembered endpoint %q (%v), want our Chromium's", b, err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("start asked the other process's endpoint %d times", n)
	}
}

// A configured port held by another process is refused with what to do;
// before, start reported the other process's endpoint as this profile's
// running browser.
func TestStartRefusesATakenConfiguredPort(t *testing.T) {
	taken, _ := stranger(t)
	env, p := portRaceEnv(t, map[string]any{"cdpPort": taken})
	st, err := p.start(context.Background(), env)
	if err == nil {
		t.Fatalf("start on a taken configured port succeeded: %+v", st)
	}
	if msg := tools.AsError(err).Message; !strings.Contains(msg, "in use by another process") || !strings.Contains(msg, "cdpPort") {
		t.Errorf("error %q does not say the port is taken and what to set", msg)
	}
	if pid := readInt(p.Dir + "/pid"); alive(pid) && p.owns(pid) {
		t.Errorf("the refused start left its Chromium (pid %d) running", pid)
	}
}

func TestDevToolsURLFromTheLog(t *testing.T) {
	path := t.TempDir() + "/chromium.log"
	for _, c := range []struct{ log, want string }{
		{"", ""},
		{"[1:2:ERROR:bus.cc] Failed\n", ""},
		{"bind() failed\nDevTools listening on ws://[::1]:18800/devtools/browser/ab\n", "ws://[::1]:18800/devtools/browser/ab"},
		{"DevTools listening on ws://127.0.0.1:18801/devtools/browser/cd\r\n", "ws://127.0.0.1:18801/devtools/browser/cd"},
		{"DevTools listening on ws://127.0.0.1:18801/devtools/bro", ""}, // still being written
	} {
		if err := os.WriteFile(path, []byte(c.log), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := devToolsURL(path); got != c.want {
			t.Errorf("log %q: %q, want %q", c.log, got, c.want)
		}
	}
	if got := devToolsURL(path + ".missing"); got != "" {
		t.Errorf("missing log: %q", got)
	}
}

// Once a profile's Chromium has died, another process that took its port
// is not driven as that profile's browser: calls say it is not running.
func TestCallsRefuseAStrangerOnADeadBrowsersPort(t *testing.T) {
	env, p := portRaceEnv(t, nil)
	taken, hits := stranger(t)
	if err := writeFileAtomic(p.Dir+"/cdp-port", []byte(strconv.Itoa(taken))); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(p.Dir+"/pid", []byte("999999999")); err != nil { // a browser long gone
		t.Fatal(err)
	}
	_, err := openSession(context.Background(), env, "")
	if err == nil || !strings.Contains(tools.AsError(err).Message, "is not running") {
		t.Fatalf("session on a dead browser's port: %v, want not running", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the call asked the other process's endpoint %d times", n)
	}
}
