package exectool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
)

func localEnv(t *testing.T) *tools.Env {
	t.Helper()
	dir := t.TempDir()
	return &tools.Env{StateDir: dir, Workspace: dir}
}

func invoke(t *testing.T, env *tools.Env, params string) (map[string]any, error) {
	t.Helper()
	return invokeCtx(context.Background(), t, env, params)
}

func invokeCtx(ctx context.Context, t *testing.T, env *tools.Env, params string) (map[string]any, error) {
	t.Helper()
	out, err := tools.Invoke(ctx, env, tools.Call{ID: "exec", Args: json.RawMessage(params)})
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m, nil
}

func details(m map[string]any) map[string]any { return m["details"].(map[string]any) }
func text(m map[string]any) string {
	return m["content"].([]any)[0].(map[string]any)["text"].(string)
}

func code(err error) string {
	var e *failure.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// gone waits (up to 5 s: a SIGKILLed process takes a moment to die) until
// pid no longer runs (exited, or a zombie nobody reaps).
func gone(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if dead(pid) {
			return true
		}
	}
	return false
}

func dead(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestExecForegroundExitCode(t *testing.T) {
	env := localEnv(t)
	m, err := invoke(t, env, `{"command":"echo out; echo err >&2; exit 3"}`)
	if err != nil {
		t.Fatal(err)
	}
	d := details(m)
	if d["status"] != "completed" || d["exitCode"] != float64(3) {
		t.Fatalf("details %v", d)
	}
	if !strings.Contains(text(m), "out") || !strings.Contains(text(m), "err") || !strings.HasSuffix(text(m), "(Command exited with code 3)") {
		t.Fatalf("text %q", text(m))
	}
	m, err = invoke(t, env, `{"command":"true"}`)
	if err != nil || text(m) != "(no output)" {
		t.Fatalf("%v %v", m, err)
	}
}

func TestExecWorkdirAndEnv(t *testing.T) {
	env := localEnv(t)
	sub := filepath.Join(env.Workspace, "sub")
	os.Mkdir(sub, 0o755)
	m, err := invoke(t, env, `{"command":"pwd; echo $GREETING $OPENCLAW_SHELL","workdir":"sub","env":{"GREETING":"hello"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := sub + "\nhello exec"; text(m) != want {
		t.Fatalf("text %q, want %q", text(m), want)
	}
	m, err = invoke(t, env, `{"command":"pwd","workdir":"missing"}`)
	if err != nil || !strings.HasPrefix(text(m), `Warning: workdir "missing" is unavailable`) {
		t.Fatalf("%v %v", m, err)
	}
}

func TestExecBlockedEnvRefused(t *testing.T) {
	env := localEnv(t)
	marker := filepath.Join(env.Workspace, "ran")
	for key, want := range map[string]string{
		"LD_PRELOAD":   "Security Violation: Environment variable 'LD_PRELOAD' is forbidden during host execution.",
		"path":         "Security Violation: Custom 'PATH' variable is forbidden during host execution.",
		"DYLD_FOO":     "Security Violation: Environment variable 'DYLD_FOO' is forbidden during host execution.",
		"NODE_OPTIONS": "Security Violation: Environment variable 'NODE_OPTIONS' is forbidden during host execution.",
	} {
		_, err := invoke(t, env, `{"command":"touch `+marker+`","env":{"`+key+`":"x"}}`)
		if err == nil || err.Error() != want || code(err) != tools.CodeDenied {
			t.Errorf("%s: err %v, want %q", key, err, want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran despite a refused env")
	}
}

func TestExecHosts(t *testing.T) {
	env := localEnv(t)
	// host=node runs through the gateway's node connections (host_node.go), never here.
	if _, err := invoke(t, env, `{"command":"true","host":"node"}`); code(err) != tools.CodeUsage || !strings.Contains(err.Error(), "add --remote") {
		t.Fatalf("node: %v", err)
	}
	// host=sandbox runs in the sandbox (package sandbox), here as on the gateway.
	if m, err := invoke(t, env, `{"command":"echo in=$OPENCLAW_SANDBOX","host":"sandbox"}`); err != nil || text(m) != "in=1" {
		t.Fatalf("sandbox: %v %v", m, err)
	}
	if _, err := invoke(t, env, `{"command":"true","host":"sandbox","elevated":true}`); code(err) != tools.CodeDenied {
		t.Fatalf("elevated without tools.elevated.enabled: %v", err)
	}
	if _, err := invoke(t, env, `{"command":"true","host":"example.com"}`); code(err) != tools.CodeInvalidParams {
		t.Fatalf("bad host: %v", err)
	}
}

// A timeout kills the whole group, children the shell started included.
func TestExecTimeoutKillsGroup(t *testing.T) {
	env := localEnv(t)
	pidf := filepath.Join(env.Workspace, "pid")
	_, err := invoke(t, env, `{"command":"sleep 60 & echo $! > `+pidf+`; wait","timeout":0.3}`)
	if code(err) != tools.CodeTimeout || !strings.Contains(err.Error(), "Command timed out after 0.3 seconds") {
		t.Fatalf("err %v", err)
	}
	var fe *failure.Error
	errors.As(err, &fe)
	if d := fe.Details.(map[string]any); d["timedOut"] != true || d["status"] != "failed" {
		t.Fatalf("details %v", fe.Details)
	}
	if pid := readPID(t, pidf); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d of the timed-out command survived", pid)
	}
}

// Cancelling the call (Ctrl-C, request cancel) kills the group: exit 130.
func TestExecCancelKillsGroup(t *testing.T) {
	env := localEnv(t)
	pidf := filepath.Join(env.Workspace, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	env.Sink = sinkFunc(func(name string, payload any) {
		if strings.Contains(payload.(map[string]any)["data"].(string), "ready") {
			cancel()
		}
	})
	_, err := invokeCtx(ctx, t, env, `{"command":"sleep 60 & echo $! > `+pidf+`; echo ready; wait"}`)
	if code(err) != tools.CodeInterrupted {
		t.Fatalf("err %v", err)
	}
	if pid := readPID(t, pidf); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d survived the cancel", pid)
	}
}

type sinkFunc func(name string, payload any)

func (f sinkFunc) Progress(string, int64, int64)  {}
func (f sinkFunc) Event(name string, payload any) { f(name, payload) }

func TestExecPTY(t *testing.T) {
	env := localEnv(t)
	m, err := invoke(t, env, `{"command":"if [ -t 0 ] && [ -t 1 ]; then echo tty; else echo pipe; fi","pty":true}`)
	if err != nil || !strings.Contains(text(m), "tty") {
		t.Fatalf("%v %v", m, err)
	}
	m, err = invoke(t, env, `{"command":"if [ -t 1 ]; then echo tty; else echo pipe; fi"}`)
	if err != nil || text(m) != "pipe" {
		t.Fatalf("%v %v", m, err)
	}
}

// Without a gateway there is nowhere to keep a background command: the
// error says where sessions live and what to add (--remote), not that no
// gateway runs (one may; issue 18 item 10), and it is a usage error.
func TestExecBackgroundNeedsGateway(t *testing.T) {
	env := localEnv(t)
	for _, p := range []string{`{"command":"true","background":true}`, `{"command":"true","yieldMs":50}`} {
		_, err := invoke(t, env, p)
		if code(err) != tools.CodeUsage || !strings.Contains(err.Error(), "live on the gateway") ||
			!strings.Contains(err.Error(), "add --remote") {
			t.Fatalf("%s: %v", p, err)
		}
	}
}

// Memory stays bounded by the caps whatever the command prints: 2 GiB
// through exec allocates a few hundred KiB of buffers, not gigabytes.
func TestExecOutputBounded(t *testing.T) {
	env := localEnv(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: "exec", Args: json.RawMessage(`{"command":"yes | head -c 2G"}`)})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(out) > 4*aggregateCap { // text and details.aggregated, JSON-escaped
		t.Fatalf("result is %d bytes", len(out))
	}
	var m map[string]any
	json.Unmarshal(out, &m)
	d := details(m)
	if d["truncated"] != true || d["totalBytes"] != float64(2<<30) {
		t.Fatalf("details truncated=%v total=%v", d["truncated"], d["totalBytes"])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Fatalf("allocated %d MiB for 2 GiB of output", alloc>>20)
	}
}

func TestTailBuf(t *testing.T) {
	tb := tailBuf{max: 10}
	for i := 0; i < 100; i++ {
		tb.write([]byte(strconv.Itoa(i % 10)))
	}
	if got := string(tb.bytes()); got != "0123456789" || !tb.dropped || cap(tb.b) > 64 {
		t.Fatalf("got %q dropped=%v cap=%d", got, tb.dropped, cap(tb.b))
	}
	tb.write([]byte("abcdefghijklmnop"))
	if got := string(tb.bytes()); got != "ghijklmnop" {
		t.Fatalf("got %q", got)
	}
}

func TestKeys(t *testing.T) {
	b, err := encodeKeys("hi", []string{"1b"}, []string{"Enter", "C-c", "^D", "Up", "M-x", "F5", "kp7"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "hi\x1b\r\x03\x04\x1b[A\x1bx\x1b[15~7"; string(b) != want {
		t.Fatalf("got %q want %q", b, want)
	}
	if _, err := encodeKeys("", nil, []string{"Bogus"}); err == nil {
		t.Fatal("unknown key accepted")
	}
}
