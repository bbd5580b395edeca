package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/tools"
)

// A launched browser leaves two small files in its profile dir so later
// processes find it: "pid" and "cdp-port". They are written atomically
// (atomicfile: temp, fsync, rename, fsync of the directory) and
// removed by stop; a stale pair (process gone) reads as not running.

func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

func pidFile(p *profile) string { return filepath.Join(p.Dir, "pid") }

func readInt(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func alive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil && !zombie(pid)
}

// zombie reports an exited child not yet reaped (Linux /proc).
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}

// endpoint is where a profile's CDP answers: the attach-only cdpUrl, or the
// loopback port the launched browser recorded.
func (p *profile) endpoint() string {
	if p.CdpURL != "" {
		return strings.TrimSuffix(p.CdpURL, "/")
	}
	if port := p.port(); port > 0 {
		return fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	return ""
}

func (p *profile) port() int {
	if n := readInt(filepath.Join(p.Dir, "cdp-port")); n > 0 {
		return n
	}
	return p.CdpPort
}

// wsURL asks the endpoint's /json/version for the browser WebSocket URL. A
// ws:// cdpUrl is used as is.
func wsURL(ctx context.Context, endpoint string) (string, error) {
	if strings.HasPrefix(endpoint, "ws://") || strings.HasPrefix(endpoint, "wss://") {
		return endpoint, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/json/version", nil)
	if err != nil {
		return "", err
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&v); err != nil {
		return "", fmt.Errorf("%s/json/version: %w", endpoint, err)
	}
	if v.WS == "" {
		return "", fmt.Errorf("%s/json/version: no webSocketDebuggerUrl", endpoint)
	}
	return v.WS, nil
}

// status is the status action's result (the original's field names).
type status struct {
	Enabled        bool   `json:"enabled"`
	Profile        string `json:"profile"`
	Running        bool   `json:"running"`
	CdpReady       bool   `json:"cdpReady"`
	Pid            int    `json:"pid,omitempty"`
	CdpPort        int    `json:"cdpPort,omitempty"`
	CdpURL         string `json:"cdpUrl,omitempty"`
	UserDataDir    string `json:"userDataDir"`
	Color          string `json:"color"`
	Headless       bool   `json:"headless"`
	NoSandbox      bool   `json:"noSandbox"`
	ExecutablePath string `json:"executablePath,omitempty"`
	AttachOnly     bool   `json:"attachOnly"`
}

func (p *profile) status(ctx context.Context) status {
	st := status{Enabled: true, Profile: p.Name, UserDataDir: p.UserDataDir, Color: p.Color, Headless: p.Headless,
		NoSandbox: p.NoSandbox, AttachOnly: p.AttachOnly, CdpURL: p.endpoint()}
	if exe, err := p.findExecutable(); err == nil {
		st.ExecutablePath = exe
	}
	if !p.AttachOnly {
		st.Pid = readInt(filepath.Join(p.Dir, "pid"))
		st.Running = p.owns(st.Pid)
		if !st.Running {
			st.Pid = 0
		}
		st.CdpPort = p.port()
	}
	if st.CdpURL != "" {
		if _, err := wsURL(ctx, st.CdpURL); err == nil {
			st.CdpReady = true
			if p.AttachOnly {
				st.Running = true
			}
		}
	}
	return st
}

// pickPort is freePort; a test makes it answer a taken port, as a race
// between the check and Chromium's bind would.
var pickPort = freePort

// freePort picks the first port of the managed range nobody listens on.
func freePort(start int) (int, error) {
	if start <= 0 {
		start = portRangeStart
	}
	for port := start; port <= start+(portRangeEnd-portRangeStart); port++ {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			l.Close()
			return port, nil
		}
	}
	return 0, tools.Errorf(tools.CodeFailed, "no free CDP port in %d-%d", start, start+portRangeEnd-portRangeStart)
}

// start launches the profile's Chromium detached (its own session, so it
// outlives this process) and waits until CDP answers. A running browser is
// left alone.
func (p *profile) start(ctx context.Context, env *tools.Env) (status, error) {
	// Running: a process of ours, not a stranger that took our port.
	if st := p.status(ctx); st.CdpReady && (st.Running || p.AttachOnly) {
		return st, nil
	}
	if p.AttachOnly {
		return status{}, tools.Errorf(tools.CodeUnreachable, "browser profile %q is attach-only and its CDP endpoint %s is not reachable", p.Name, p.endpoint())
	}
	// A browser without a reachable CDP is stuck (or lost its pid file):
	// end every process on the profile's data, never a stranger that
	// reused a recorded pid, then relaunch.
	if err := p.killStale(ctx); err != nil {
		return status{}, err
	}
	exe, err := p.findExecutable()
	if err != nil {
		return status{}, err
	}
	if err := os.MkdirAll(p.UserDataDir, 0o700); err != nil {
		return status{}, fmt.Errorf("browser start: %w", err)
	}
	port, next := p.CdpPort, p.conf.CdpPortStart
	for attempt := 1; ; attempt++ {
		if p.CdpPort == 0 {
			if port, err = pickPort(next); err != nil {
				return status{}, err
			}
		}
		ws, err := p.launch(ctx, env, exe, port)
		var taken portTakenError
		if errors.As(err, &taken) && p.CdpPort == 0 && attempt < maxLaunchAttempts {
			// Another process bound the port between our check and
			// Chromium's bind: try the next one.
			env.Progress(fmt.Sprintf("CDP port %d was taken; trying another", port), 0, -1)
			next = port + 1
			continue
		}
		if err != nil {
			return status{}, err
		}
		// The recorder keeps console, requests, dialogs and downloads
		// between calls; without it the browser still works.
		env.Progress("CDP ready; starting the event recorder", 0, -1)
		if err := p.spawnRecorder(ctx, ws); err != nil {
			if !p.conf.SSRF.allowsPrivate() { // it also enforces the request guard: fail closed
				return status{}, tools.Errorf(tools.CodeFailed, "browser start: the request guard needs the browser recorder: %v", err)
			}
			env.Progress("capture unavailable: "+err.Error(), 0, -1)
		}
		env.Progress("browser ready", 1, 1)
		return p.status(ctx), nil
	}
}

// maxLaunchAttempts bounds the retries when the picked CDP port is taken.
const maxLaunchAttempts = 5

// portTakenError: Chromium could not bind its CDP port on 127.0.0.1.
type portTakenError struct{ error }

func (e portTakenError) Unwrap() error { return e.error }

// launch starts Chromium on port and waits until it says where its CDP
// listens. Its own "DevTools listening on" line is what counts, not
// whatever answers on the port: when the port is taken, Chromium falls
// back to [::1] with the same number, and asking 127.0.0.1 would reach
// the other process (two starts at once, on another state dir or profile,
// drove one Chromium between them). The URL is remembered for later calls.
func (p *profile) launch(ctx context.Context, env *tools.Env, exe string, port int) (string, error) {
	clearLocks(p.UserDataDir)
	logPath := filepath.Join(p.Dir, "chromium.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return "", fmt.Errorf("browser start: %w", err)
	}
	defer logf.Close()
	env.Progress("launching "+filepath.Base(exe), 0, -1)
	cmd := exec.Command(exe, p.launchArgs(port)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Env = filterProxyEnv(os.Environ())
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("browser start: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // reaps it if it dies while we live
	kill := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // its own session: the whole group
		_ = cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
		}
	}
	if err := writeFileAtomic(filepath.Join(p.Dir, "pid"), []byte(strconv.Itoa(cmd.Process.Pid))); err != nil {
		kill()
		return "", fmt.Errorf("browser start: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(p.Dir, "cdp-port"), []byte(strconv.Itoa(port))); err != nil {
		kill()
		return "", fmt.Errorf("browser start: %w", err)
	}
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	want := fmt.Sprintf("ws://127.0.0.1:%d/", port)
	for {
		if ws := devToolsURL(logPath); ws != "" {
			if !strings.HasPrefix(ws, want) {
				kill()
				return "", portTakenError{tools.Errorf(tools.CodeFailed,
					"CDP port %d for profile %q is in use by another process (Chromium listened on %s instead): free it or set browser.profiles.%s.cdpPort", port, p.Name, ws, p.Name)}
			}
			if _, err := wsURL(ctx, p.endpoint()); err == nil {
				_ = writeFileAtomic(filepath.Join(p.Dir, wsCacheFile), []byte(p.endpoint()+" "+ws))
				return ws, nil
			}
		}
		select {
		case <-exited:
			return "", launchFailure(p, port, logPath)
		case <-ctx.Done():
			kill()
			return "", tools.AsError(ctx.Err())
		case <-deadline.C:
			kill()
			return "", tools.Errorf(tools.CodeTimeout, "Failed to start Chrome CDP on port %d for profile %q (see %s)", port, p.Name, logPath)
		case <-tick.C:
		}
	}
}

// devToolsURL is the browser WebSocket URL Chromium printed to its log
// ("DevTools listening on ws://…"), or "" before it has. Only the log's
// head is read: the line comes right after start.
func devToolsURL(logPath string) string {
	f, err := os.Open(logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 256<<10))
	const mark = "DevTools listening on "
	i := strings.Index(string(b), mark)
	if i < 0 {
		return ""
	}
	line := string(b[i+len(mark):])
	if j := strings.IndexAny(line, "\r\n"); j >= 0 {
		return strings.TrimSpace(line[:j])
	}
	return "" // the line is still being written
}

// launchFailure explains why Chromium exited during start, naming the
// noSandbox setting when it refused to run as root.
func launchFailure(p *profile, port int, logPath string) error {
	b, _ := readTail(logPath, 4096)
	if strings.Contains(b, "without --no-sandbox") || strings.Contains(b, "No usable sandbox") {
		return tools.Errorf(tools.CodeFailed, "Chromium refused to start for profile %q: running as root needs the sandbox off: set browser.noSandbox=true (or browser.profiles.%s.noSandbox=true)", p.Name, p.Name)
	}
	return tools.Errorf(tools.CodeFailed, "Failed to start Chrome CDP on port %d for profile %q: the browser exited: %s", port, p.Name, strings.TrimSpace(lastLine(b)))
}

func readTail(path string, n int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		_, _ = f.Seek(fi.Size()-n, io.SeekStart)
	}
	b, err := io.ReadAll(io.LimitReader(f, n))
	return string(b), err
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// filterProxyEnv drops provider proxy variables: the managed browser must
// not inherit them (--no-proxy-server is passed as well).
func filterProxyEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k := strings.ToUpper(kv[:max(strings.IndexByte(kv, '='), 0)])
		if k == "HTTP_PROXY" || k == "HTTPS_PROXY" || k == "ALL_PROXY" || k == "NO_PROXY" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// stop ends a browser this profile launched: Browser.close over CDP, then
// SIGKILL if it lingers. Attach-only profiles are never killed.
func (p *profile) stop(ctx context.Context) (status, error) {
	if p.AttachOnly {
		return p.status(ctx), nil
	}
	pidPath := filepath.Join(p.Dir, "pid")
	pid := readInt(pidPath)
	p.quitRecorder(ctx)
	if p.owns(pid) {
		if ws, err := wsURL(ctx, p.endpoint()); err == nil {
			if b, err := connect(ctx, ws); err == nil {
				_ = b.Close()
			}
		}
		waitExit(ctx, pid, 3*time.Second)
		if alive(pid) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
			waitExit(ctx, pid, 3*time.Second)
		}
		if alive(pid) {
			return status{}, tools.Errorf(tools.CodeFailed, "browser stop: process %d did not exit", pid)
		}
	}
	for _, f := range []string{pidPath, filepath.Join(p.Dir, "cdp-port"), filepath.Join(p.Dir, wsCacheFile), filepath.Join(p.Dir, "current-tab"), filepath.Join(p.Dir, tabAliasFile)} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return status{}, fmt.Errorf("browser stop: %w", err)
		}
	}
	if err := os.RemoveAll(filepath.Join(p.Dir, stageDirName)); err != nil { // staged upload copies
		return status{}, fmt.Errorf("browser stop: %w", err)
	}
	return p.status(ctx), nil
}

// owns reports whether pid is this profile's browser: alive and started
// on its user-data dir. A pid file outliving its browser (killed -9, host
// reboot) may name a stranger that reused the number; that one is neither
// reported as running nor ever killed.
func (p *profile) owns(pid int) bool {
	if !alive(pid) {
		return false
	}
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		return true // no /proc: trust the pid file
	}
	return cmdlineHas(pid, "--user-data-dir="+p.UserDataDir)
}

func waitExit(ctx context.Context, pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for alive(pid) && time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}
