package sandbox_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/porttest"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

// TestMain doubles as the real CLI: each call below runs `openclaw` as its
// own process (OPENCLAW_TEST_CLI=1), against the real bubblewrap.
func TestMain(m *testing.M) {
	if os.Getenv("OPENCLAW_TEST_CLI") == "1" {
		os.Exit(commands.Main(append([]string{"openclaw"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// needBwrap stops the test when bubblewrap is missing: a failure under
// CI=true (CI installs it: apt-get install bubblewrap), a skip elsewhere.
func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("bubblewrap is not installed: CI must install it (apt-get install bubblewrap)")
	}
	t.Skip("bubblewrap is not installed: skipping the sandbox tests (they fail under CI=true)")
}

// rig is a state dir whose config puts every session in the sandbox, and
// the agent workspace.
type rig struct {
	t     *testing.T
	state string
	ws    string
}

func newRig(t *testing.T, sandbox map[string]any) *rig {
	needBwrap(t)
	r := &rig{t: t, state: t.TempDir(), ws: t.TempDir()}
	if sandbox["mode"] == nil {
		sandbox["mode"] = "all"
	}
	cfg := map[string]any{"agents": map[string]any{"defaults": map[string]any{"workspace": r.ws, "sandbox": sandbox}}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(r.state, "openclaw.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) cmd(args ...string) *exec.Cmd {
	c := exec.Command(os.Args[0], args...)
	c.Dir = r.ws // the CLI's workspace is where it runs
	c.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "OPENCLAW_STATE_DIR="+r.state, "HOME="+r.state,
		"OPENCLAW_GATEWAY_TOKEN=gateway-secret-xyz")
	return c
}

// exec runs `openclaw exec --json --command command` and returns the
// result's text and exit code, and whether it ran (ok).
func (r *rig) exec(command string, extra ...string) (out string, exit int, ok bool) {
	r.t.Helper()
	c := r.cmd(append([]string{"exec", "--json", "--command", command}, extra...)...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	_ = c.Run()
	res := gjson.ParseBytes(stdout.Bytes())
	if !res.Get("content").Exists() {
		r.t.Fatalf("exec %q: no result: %s %s", command, stdout.String(), stderr.String())
	}
	return res.Get("details.aggregated").String(), int(res.Get("details.exitCode").Int()), true
}

// The sandbox's view: no /etc/shadow, no gateway secrets in the
// environment, nothing of the host writable but its own workspace.
func TestSandboxHidesTheHost(t *testing.T) {
	r := newRig(t, map[string]any{})
	if os.Geteuid() == 0 { // as root the host file is readable: the sandbox is what hides it
		if _, err := os.ReadFile("/etc/shadow"); err != nil {
			t.Fatalf("host /etc/shadow: %v", err)
		}
	}
	if out, code, _ := r.exec("cat /etc/shadow"); code == 0 || !strings.Contains(out, "No such file") {
		t.Errorf("cat /etc/shadow in the sandbox: exit %d: %s", code, out)
	}
	if out, code, _ := r.exec("grep -c root /etc/passwd"); code != 0 {
		t.Errorf("/etc/passwd should be readable: exit %d: %s", code, out)
	}
	if out, _, _ := r.exec("echo token=$OPENCLAW_GATEWAY_TOKEN"); strings.TrimSpace(out) != "token=" {
		t.Errorf("the gateway's environment reached the sandbox: %s", out)
	}
	host := t.TempDir() // exists on the host, not in the sandbox
	for _, target := range []string{filepath.Join(host, "escaped"), "/usr/escaped", "/etc/escaped", "/escaped", filepath.Join(r.ws, "escaped")} {
		if out, code, _ := r.exec("echo x > " + target); code == 0 {
			t.Errorf("write to %s succeeded: %s", target, out)
		}
	}
	if out, code, _ := r.exec("echo x > /tmp/scratch && cat /tmp/scratch"); code != 0 || strings.TrimSpace(out) != "x" {
		t.Errorf("its private /tmp is not writable: exit %d: %s", code, out)
	}
	for _, p := range []string{filepath.Join(host, "escaped"), "/usr/escaped", "/etc/escaped", "/escaped", filepath.Join(r.ws, "escaped")} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("%s was written on the host", p)
		}
	}
	// Its own workspace (workspaceAccess none: a private one) is writable,
	// and what it writes is kept under the sandbox workspace root.
	if out, code, _ := r.exec("pwd && echo kept > note.txt"); code != 0 || strings.TrimSpace(out) != "/workspace" {
		t.Fatalf("write to its workspace: exit %d: %s", code, out)
	}
	found, _ := filepath.Glob(filepath.Join(r.state, "sandboxes", "agent-main-*", "note.txt"))
	if len(found) != 1 {
		t.Fatalf("the private workspace's file is not under %s/sandboxes: %v", r.state, found)
	}
	if out, _, _ := r.exec("cat note.txt"); strings.TrimSpace(out) != "kept" {
		t.Errorf("scope agent: the next call does not see the workspace: %s", out)
	}
}

// workspaceAccess ro: the agent workspace is readable at /agent and no
// write reaches it; rw: it is /workspace and writable.
func TestSandboxWorkspaceAccess(t *testing.T) {
	r := newRig(t, map[string]any{"workspaceAccess": "ro"})
	if err := os.WriteFile(filepath.Join(r.ws, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(r.ws, 0o755) // as root the sandbox runs as its own uid, which must be able to read it
	if out, code, _ := r.exec("cat /agent/hello.txt"); code != 0 || strings.TrimSpace(out) != "hello" {
		t.Fatalf("ro: read /agent/hello.txt: exit %d: %s", code, out)
	}
	for _, c := range []string{"echo x > /agent/new.txt", "echo x >> /agent/hello.txt", "rm -f /agent/hello.txt", "mkdir /agent/d"} {
		if out, code, _ := r.exec(c); code == 0 {
			t.Errorf("ro: %s succeeded: %s", c, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "hello.txt")); string(b) != "hello\n" {
		t.Errorf("ro: hello.txt changed: %q", b)
	}
	for _, n := range []string{"new.txt", "d"} {
		if _, err := os.Stat(filepath.Join(r.ws, n)); err == nil {
			t.Errorf("ro: %s was created in the agent workspace", n)
		}
	}

	r = newRig(t, map[string]any{"workspaceAccess": "rw"})
	os.Chmod(r.ws, 0o777) // as root the sandbox's uid must be able to write it
	if out, code, _ := r.exec("pwd && echo x > new.txt"); code != 0 || strings.TrimSpace(out) != "/workspace" {
		t.Fatalf("rw: write: exit %d: %s", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "new.txt")); err != nil || string(b) != "x\n" {
		t.Errorf("rw: the write did not reach the agent workspace: %q %v", b, err)
	}
}

// With the network off a listener on the host's loopback is out of reach;
// docker.network other than none shares the host's network.
func TestSandboxNetworkOff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 64)
			n, _ := c.Read(b)
			got <- string(b[:n])
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	send := fmt.Sprintf("echo hello > /dev/tcp/127.0.0.1/%d && echo sent", port)

	r := newRig(t, map[string]any{})
	if out, code, _ := r.exec(send); code == 0 || strings.Contains(out, "sent") {
		t.Errorf("network off: connected to the host's loopback: %s", out)
	}
	r = newRig(t, map[string]any{"docker": map[string]any{"network": "host"}})
	if out, code, _ := r.exec(send); code != 0 || !strings.Contains(out, "sent") {
		t.Fatalf("network on: exit %d: %s", code, out)
	}
	select {
	case s := <-got:
		if strings.TrimSpace(s) != "hello" {
			t.Errorf("listener got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("network on: the listener got nothing")
	}
	select {
	case s := <-got:
		t.Errorf("a second connection arrived (network off?): %q", s)
	default:
	}
}

// A fork bomb stops at the process limit (docker.pidsLimit): with 20 the
// 60th fork fails and the sandbox never holds more; with the default 256
// the same loop forks all 60 (the limit, not the loop, stops it).
func TestSandboxProcessLimit(t *testing.T) {
	bomb := `sh -c 'i=0; while [ $i -lt 60 ]; do sleep 30 & i=$((i+1)); done' 2>/dev/null; echo status=$?; ` +
		`n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo procs=$n`
	count := func(out string) int {
		i := strings.Index(out, "procs=")
		if i < 0 {
			t.Fatalf("no count: %s", out)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(out[i+6:]))
		return n
	}
	r := newRig(t, map[string]any{"docker": map[string]any{"pidsLimit": 20}})
	out, _, _ := r.exec(bomb, "--timeout", "60")
	if !strings.Contains(out, "status=2") || count(out) > 22 { // 20 of the sandbox's user, bwrap's init, the counter
		t.Errorf("pidsLimit 20: %s", out)
	}
	r = newRig(t, map[string]any{})
	out, _, _ = r.exec(bomb, "--timeout", "60")
	if !strings.Contains(out, "status=0") || count(out) < 61 {
		t.Errorf("default limit: %s", out)
	}
}

// sleepers lists the pids running `sleep <arg>`.
func sleepers(arg string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(b) == "sleep\x00"+arg+"\x00" {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
				f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
				if len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
					continue
				}
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGone waits (bounded) until no `sleep arg` runs; what is left is reported.
func waitGone(arg string) []int {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(sleepers(arg)) == 0 {
			return nil
		}
	}
	return sleepers(arg)
}

// A process the command leaves behind — its own session, its environment
// cleared, so nothing tags it — is gone when the command ends: the
// sandbox's pid namespace ends with it.
func TestSandboxLeavesNothingBehind(t *testing.T) {
	r := newRig(t, map[string]any{})
	arg := strconv.Itoa(4000 + os.Getpid()%1000)
	out, code, _ := r.exec("env -i setsid sleep " + arg + " >/dev/null 2>&1 < /dev/null & sleep 0.2; echo left")
	if code != 0 || !strings.Contains(out, "left") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if left := waitGone(arg); len(left) > 0 {
		for _, p := range left {
			syscall_kill(p)
		}
		t.Fatalf("sleep %s outlived its sandboxed command: %v", arg, left)
	}
}

func syscall_kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// kill -9 of a real `openclaw serve` in the middle of a sandboxed
// background command leaves nothing running: not the command, not what it
// started in its own session with its environment cleared.
func TestSandboxGatewayKillLeavesNothing(t *testing.T) {
	r := newRig(t, map[string]any{})
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	serve := r.cmd("serve", "--port", strconv.Itoa(port), "--auth", "token", "--token", "sbx-token")
	var logs bytes.Buffer
	serve.Stdout, serve.Stderr = &logs, &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = serve.Wait(); close(exited) }()
	t.Cleanup(func() { _ = serve.Process.Kill(); <-exited })
	url := "ws://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not ready: %s", logs.String())
		}
	}
	base := 5000 + os.Getpid()%1000
	child, detached := strconv.Itoa(base), strconv.Itoa(base+1)
	c := r.cmd("exec", "--json", "--url", url, "--token", "sbx-token", "--remote", "--background",
		"--command", "env -i setsid sleep "+detached+" >/dev/null 2>&1 </dev/null & sleep "+child)
	out, err := c.CombinedOutput()
	if err != nil || gjson.GetBytes(out, "details.status").String() != "running" {
		t.Fatalf("background exec: %v %s", err, out)
	}
	for deadline := time.Now().Add(20 * time.Second); len(sleepers(child)) == 0 || len(sleepers(detached)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the sandboxed sleeps never started: %s", out)
		}
	}
	if err := serve.Process.Kill(); err != nil { // SIGKILL: nothing runs on the way out
		t.Fatal(err)
	}
	<-exited
	for _, arg := range []string{child, detached} {
		if left := waitGone(arg); len(left) > 0 {
			for _, p := range left {
				syscall_kill(p)
			}
			t.Errorf("sleep %s survived the gateway's kill -9: %v", arg, left)
		}
	}
}
