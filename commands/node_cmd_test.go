package commands

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/porttest"
)

// nodeProc is a real `openclaw node run` process.
type nodeProc struct {
	cmd    *exec.Cmd
	state  string
	logs   *syncBuffer
	exited chan struct{}
	err    error
}

func startNode(t *testing.T, state string, env []string, args ...string) *nodeProc {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	n := &nodeProc{state: state, logs: &syncBuffer{}, exited: make(chan struct{})}
	n.cmd = exec.Command(exe, append([]string{"node", "run"}, args...)...)
	n.cmd.Env = append(append(os.Environ(), "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state), env...)
	n.cmd.Stderr = n.logs
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { n.err = n.cmd.Wait(); close(n.exited) }()
	t.Cleanup(func() { _ = n.cmd.Process.Kill(); <-n.exited })
	return n
}

// nodeCLI runs `openclaw node ...` on a node's state dir.
func nodeCLI(t *testing.T, state string, args ...string) (string, string, int) {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"node"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// nodeTTY runs `openclaw node ...` on a real terminal (human output).
func nodeTTY(t *testing.T, state string, args ...string) string {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"node"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state, "NO_COLOR=1")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&buf, f); close(done) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return strings.ReplaceAll(buf.String(), "\r\n", "\n")
}

// waitNodeStatus polls `openclaw node status --json` until cond holds.
func waitNodeStatus(t *testing.T, n *nodeProc, what string, cond func(gjson.Result) bool) gjson.Result {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _, _ := nodeCLI(t, n.state, "status", "--json")
		if r := gjson.Parse(out); cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("node host never %s; status %s; log:\n%s", what, out, n.logs.String())
		}
		select {
		case <-n.exited:
			if !cond(gjson.Parse(out)) {
				t.Fatalf("node host exited (%v) before it %s:\n%s", n.err, what, n.logs.String())
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// serveOn runs `openclaw serve` on a given port (a restart keeps it).
func serveOn(t *testing.T, state string, port int) *gatewayProc {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	g := &gatewayProc{state: state, logs: &syncBuffer{}, exited: make(chan struct{})}
	g.cmd = exec.Command(exe, "serve", "--port", strconv.Itoa(port), "--auth", "token", "--token", "sig")
	g.cmd.Env = append(os.Environ(), "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state)
	g.cmd.Stderr = g.logs
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { g.err = g.cmd.Wait(); close(g.exited) }()
	t.Cleanup(func() { _ = g.cmd.Process.Kill(); <-g.exited })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not ready: %s", g.logs.String())
		}
	}
	g.url = "ws://127.0.0.1:" + strconv.Itoa(port)
	return g
}

func TestNodeRunAgainstOurGateway(t *testing.T) {
	t.Parallel()
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	gwState := filepath.Join(t.TempDir(), "gw")
	g := serveOn(t, gwState, port)
	state := filepath.Join(t.TempDir(), "node")

	// Not set up: status says so; no identity yet (exit 1).
	out, _, code := nodeCLI(t, state, "status", "--json")
	if code != 0 || gjson.Get(out, "running").Bool() || gjson.Get(out, "node").Exists() {
		t.Fatalf("status before the first run: %d %s", code, out)
	}
	if _, stderr, code := nodeCLI(t, state, "identity"); code != 1 || !strings.Contains(stderr, "openclaw node run") {
		t.Errorf("identity before the first run: %d %s", code, stderr)
	}

	n := startNode(t, state, []string{"OPENCLAW_GATEWAY_TOKEN=sig"}, "--port", strconv.Itoa(port), "--display-name", "script-node")
	st := waitNodeStatus(t, n, "connected", func(r gjson.Result) bool { return r.Get("status.connected").Bool() })
	if !st.Get("running").Bool() || st.Get("node.displayName").String() != "script-node" || st.Get("status.gatewayUrl").String() != g.url ||
		!strings.Contains(st.Get("status.commands").Raw, `"system.run"`) {
		t.Errorf("status: %s", st.Raw)
	}
	id, _, code := nodeCLI(t, state, "identity", "--json")
	if code != 0 || gjson.Get(id, "deviceId").String() != st.Get("deviceId").String() || len(gjson.Get(id, "publicKey").String()) != 43 {
		t.Errorf("identity: %s", id)
	}
	// The gateway paired the node's device (loopback: silently).
	devs, _, code := runCLI(t, g, "devices", "list", "--json")
	if code != 0 || !strings.Contains(devs, gjson.Get(id, "deviceId").String()) {
		t.Errorf("devices list does not show the node: %s", devs)
	}
	// A second node host on the same state dir refuses to start.
	second := startNode(t, state, []string{"OPENCLAW_GATEWAY_TOKEN=sig"}, "--port", strconv.Itoa(port))
	<-second.exited
	if ee, ok := second.err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(second.logs.String(), "another node host is running") {
		t.Errorf("second host: %v %s", second.err, second.logs.String())
	}

	// A gateway restart: the node reconnects by itself.
	before := st.Get("status.lastConnectedAtMs").Int()
	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-g.exited
	waitNodeStatus(t, n, "noticed the restart", func(r gjson.Result) bool { return !r.Get("status.connected").Bool() })
	serveOn(t, gwState, port)
	waitNodeStatus(t, n, "reconnected", func(r gjson.Result) bool {
		return r.Get("status.connected").Bool() && r.Get("status.lastConnectedAtMs").Int() > before
	})

	// SIGTERM ends it cleanly (exit 0); status then says not running.
	if err := n.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("node host ignored SIGTERM")
	}
	if n.err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", n.err, n.logs.String())
	}
	out, _, _ = nodeCLI(t, state, "status", "--json")
	if gjson.Get(out, "running").Bool() || gjson.Get(out, "status.connected").Bool() || gjson.Get(out, "status.stopped").String() != "stopped" ||
		gjson.Get(out, "node.deviceToken.token").String() == "sig" {
		t.Errorf("status after stop: %s", out)
	}
	human := nodeTTY(t, state, "status")
	if !strings.Contains(human, "Node host: not running") || !strings.Contains(human, "Name:      script-node") {
		t.Errorf("status (text): %s", human)
	}
}

func TestNodeRunStopsOnARefusedToken(t *testing.T) {
	t.Parallel()
	g := startGateway(t, "")
	port := strings.TrimPrefix(g.url, "ws://127.0.0.1:")
	state := filepath.Join(t.TempDir(), "node")
	n := startNode(t, state, []string{"OPENCLAW_GATEWAY_TOKEN=wrong"}, "--port", port)
	select {
	case <-n.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the node host kept retrying a refused token:\n%s", n.logs.String())
	}
	ee, ok := n.err.(*exec.ExitError)
	log := n.logs.String()
	if !ok || ee.ExitCode() != 4 || !strings.Contains(log, "refused the connection") || !strings.Contains(log, "OPENCLAW_GATEWAY_TOKEN") {
		t.Errorf("refusal: %v\n%s", n.err, log)
	}
	out, _, _ := nodeCLI(t, state, "status", "--json")
	if !strings.Contains(gjson.Get(out, "status.stopped").String(), "token mismatch") {
		t.Errorf("status after refusal: %s", out)
	}
}

func TestNodeRunUsage(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "node")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--tls", "--no-tls"}, "--tls and --no-tls conflict"},
		{[]string{"run", "--commands", "camera.snap"}, `"camera.snap" is not a command this node host has`},
		{[]string{"run", "--host", "gateway.example.com"}, "refusing plaintext ws://"},
		{[]string{"run", "--tls", "--tls-fingerprint", "nothex"}, "--tls-fingerprint must be a sha256 fingerprint"},
	} {
		_, stderr, code := nodeCLI(t, state, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %s", c.args, code, stderr)
		}
	}
	var v map[string]any
	out, _, _ := nodeCLI(t, state, "status", "--json")
	if json.Unmarshal([]byte(out), &v) != nil {
		t.Errorf("status --json: %s", out)
	}
}

// Gateway, node host and CLI as three real processes: the node's surface
// waits in `nodes pending`, `nodes approve` lets it in, the CLI reaches its
// commands, and system.run goes through the exec approvals on the node:
// a command they hold waits for `approvals resolve`, allow-always is
// stored in the node's own file.
func TestNodeHostPairInvokeApprove(t *testing.T) {
	t.Parallel()
	port, err := porttest.Pick()
	if err != nil {
		t.Fatal(err)
	}
	g := serveOn(t, filepath.Join(t.TempDir(), "gw"), port)
	state := filepath.Join(t.TempDir(), "node")
	n := startNode(t, state, []string{"OPENCLAW_GATEWAY_TOKEN=sig"}, "--port", strconv.Itoa(port), "--display-name", "pair-node")
	waitNodeStatus(t, n, "connected", func(r gjson.Result) bool { return r.Get("status.connected").Bool() })
	id, _, _ := nodeCLI(t, state, "identity", "--json")
	nodeID := gjson.Get(id, "deviceId").String()
	cli := func(want int, args ...string) gjson.Result {
		t.Helper()
		out, stderr, code := runCLI(t, g, append(args, "--json")...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s\nnode log:\n%s", args, code, want, out, stderr, n.logs.String())
		}
		return gjson.Parse(out)
	}
	pending := cli(0, "nodes", "pending").Get("pending")
	var rid string
	for _, p := range pending.Array() {
		if p.Get("nodeId").String() == nodeID {
			rid = p.Get("requestId").String()
		}
	}
	if rid == "" || !strings.Contains(pending.Raw, `"system.run"`) {
		t.Fatalf("the node's surface is not pending: %s", pending.Raw)
	}
	if r := cli(2, "nodes", "invoke", "--node", "pair-node", "--command", "system.which", "--tool-params", `{"bins":["sh"]}`); !strings.Contains(r.Get("error.message").String(), "pending approval") {
		t.Errorf("invoked before approval: %s", r.Raw)
	}
	cli(0, "nodes", "approve", rid)
	if which := cli(0, "nodes", "which", "pair-node", "sh"); !strings.HasSuffix(which.Get("bins.sh").String(), "/sh") {
		t.Errorf("nodes which: %s", which.Raw)
	}
	st := cli(0, "nodes", "status").Get("nodes.#(nodeId==" + nodeID + ")")
	if !st.Get("connected").Bool() || st.Get("hostStats.cpuCount").Int() < 1 {
		t.Errorf("nodes status: %s", st.Raw)
	}
	// fs.listDir needs operator.admin besides node.invoke's write: the CLI
	// asks for it for that call (Action.CallScopes), through the nodes tool
	// and through gateway call alike.
	listDir := t.TempDir()
	if err := os.Mkdir(filepath.Join(listDir, "seen.d"), 0o755); err != nil { // fs.listDir lists directories
		t.Fatal(err)
	}
	if ls := cli(0, "nodes", "invoke", "--node", "pair-node", "--command", "fs.listDir", "--tool-params", `{"path":"`+listDir+`"}`); !strings.Contains(ls.Raw, "seen.d") {
		t.Errorf("nodes invoke fs.listDir: %s", ls.Raw)
	}
	if ls := cli(0, "gateway", "call", "node.invoke", "--params", `{"nodeId":"`+nodeID+`","command":"fs.listDir","params":{"path":"`+listDir+`"},"idempotencyKey":"ls-1"}`); !strings.Contains(ls.Raw, "seen.d") {
		t.Errorf("gateway call node.invoke fs.listDir: %s", ls.Raw)
	}
	if run := cli(0, "nodes", "run", "--node", "pair-node", "--command", "echo", "--command", "hi there"); run.Get("stdout").String() != "hi there\n" {
		t.Errorf("nodes run: %s", run.Raw)
	}

	// The node's own approvals: allowlist, asking on a miss.
	approvals := func(args ...string) {
		t.Helper()
		exe, _ := exec.LookPath("openclaw")
		cmd := exec.Command(exe, append([]string{"approvals"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("approvals %v: %v %s", args, err, out)
		}
	}
	approvals("set", "--security", "allowlist", "--ask", "on-miss")
	held := cli(8, "nodes", "run", "--node", "pair-node", "--command", "echo", "--command", "approved once")
	aid := held.Get("error.details.approvalId").String()
	if aid == "" || held.Get("error.details.host").String() != "node" {
		t.Fatalf("held: %s", held.Raw)
	}
	cli(0, "approvals", "resolve", aid, "allow-once")
	waitTask := func(want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			for _, task := range cli(0, "tasks", "list").Get("tasks").Array() {
				if task.Get("status").String() == "ok" && task.Get("result.details.stdout").String() == want {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no task printed %q; node log:\n%s", want, n.logs.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitTask("approved once\n")
	held = cli(8, "nodes", "run", "--node", "pair-node", "--command", "echo", "--command", "approved always")
	cli(0, "approvals", "resolve", held.Get("error.details.approvalId").String(), "allow-always")
	waitTask("approved always\n")
	file, err := os.ReadFile(filepath.Join(state, "exec-approvals.json"))
	if err != nil || !strings.Contains(string(file), `"source": "allow-always"`) {
		t.Errorf("allow-always is not in the node's approvals file: %v %s", err, file)
	}
	approvals("set", "--security", "deny")
	denied := cli(3, "nodes", "run", "--node", "pair-node", "--command", "echo", "--command", "never")
	if !strings.Contains(denied.Raw, "security=deny") {
		t.Errorf("security deny on the node: %s", denied.Raw)
	}
}
