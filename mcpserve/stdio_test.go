package mcpserve_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/mcpserve"
)

// bin is the real openclaw binary, built once, by the first test that
// makes a home (newHome): a fuzz worker runs TestMain too, and a build there
// (tens of seconds on a loaded machine) used the whole fuzz time of
// FuzzCheckLine before its baseline could run.
var (
	bin      string
	binDir   string
	binErr   error
	binBuild sync.Once
)

func buildBin(t *testing.T) {
	t.Helper()
	binBuild.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "mcpserve-bin"); binErr != nil {
			return
		}
		out := filepath.Join(binDir, "openclaw")
		build := exec.Command("go", "build", "-o", out, "../cmd/openclaw")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if binErr = build.Run(); binErr == nil {
			bin = out
		}
	})
	if binErr != nil {
		t.Fatalf("build openclaw: %v", binErr)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// eras are the handshakes a client may open with: the two initialize
// revisions clients send today, and the stateless 2026-07-28 one the Go
// client negotiates by default (server/discover).
var eras = []string{"2025-06-18", "2025-11-25", ""}

func eraName(v string) string {
	if v == "" {
		return "2026-07-28"
	}
	return v
}

// home is one isolated user: HOME, state dir, config and a workspace.
type home struct {
	dir, state, config, ws string
}

func newHome(t *testing.T) home {
	t.Helper()
	buildBin(t)
	d := t.TempDir()
	h := home{dir: d, state: filepath.Join(d, ".openclaw"), ws: filepath.Join(d, "ws")}
	h.config = filepath.Join(h.state, "openclaw.json")
	for _, p := range []string{h.state, h.ws} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h home) writeConfig(t *testing.T, body string) {
	t.Helper()
	if err := atomicfile.WriteFile(h.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (h home) cmd(args ...string) *exec.Cmd {
	c := exec.Command(bin, append([]string{"mcp", "serve"}, args...)...)
	c.Env = append(os.Environ(), "HOME="+h.dir, "OPENCLAW_STATE_DIR="+h.state, "OPENCLAW_CONFIG_PATH="+h.config,
		"OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=")
	c.Stderr = os.Stderr
	return c
}

type client struct {
	cs       *mcp.ClientSession
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
	changed  chan struct{}
}

func connect(t *testing.T, h home, era string, args ...string) *client {
	t.Helper()
	cl := &client{changed: make(chan struct{}, 8)}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			cl.mu.Lock()
			cl.progress = append(cl.progress, r.Params)
			cl.mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case cl.changed <- struct{}{}:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: h.cmd(args...)}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatalf("connect (%s): %v", eraName(era), err)
	}
	t.Cleanup(func() { cs.Close() })
	cl.cs = cs
	return cl
}

// stdioSession starts `openclaw mcp serve args…` with env added (a
// gateway's URL and token, see gatewayEnv) and connects a plain MCP client.
func stdioSession(t *testing.T, h home, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	c := h.cmd(args...)
	c.Env = append(c.Env, env...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// gatewayEnv points mcp serve at a gateway.
func gatewayEnv(url, token string) []string {
	return []string{"OPENCLAW_GATEWAY_URL=" + url, "OPENCLAW_GATEWAY_TOKEN=" + token}
}

// patchSession runs the real CLI's `gateway call sessions.patch` with params.
func patchSession(t *testing.T, h home, url, token, params string) {
	t.Helper()
	patch := exec.Command(bin, "gateway", "call", "sessions.patch", "--url", url, "--token", token, "--params", params)
	patch.Env = h.cmd().Env
	if out, err := patch.CombinedOutput(); err != nil {
		t.Fatalf("sessions.patch: %v\n%s", err, out)
	}
}

func names(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func TestStdioEras(t *testing.T) {
	for _, era := range eras {
		t.Run(eraName(era), func(t *testing.T) {
			h := newHome(t)
			h.writeConfig(t, `{tools: {byProvider: {mcp: {deny: ["write"]}}}}`)
			if err := os.WriteFile(filepath.Join(h.ws, "notes.txt"), []byte("hello from the workspace\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cl := connect(t, h, era, "--toolsets", "default,fs,runtime", "--workspace", h.ws)
			if got := cl.cs.InitializeResult().ProtocolVersion; got != eraName(era) {
				t.Errorf("negotiated %s, want %s", got, eraName(era))
			}
			list := names(t, cl.cs)
			for _, want := range []string{"read", "exec", "edit", "web_fetch"} {
				if !slices.Contains(list, want) {
					t.Errorf("tools/list lacks %s: %v", want, list)
				}
			}
			// gateway: the stdio default deny; write: tools.byProvider.mcp.deny.
			for _, gone := range []string{"gateway", "write"} {
				if slices.Contains(list, gone) {
					t.Errorf("tools/list has %s: %v", gone, list)
				}
			}
			if !slices.IsSorted(list) {
				t.Errorf("tools/list not sorted: %v", list)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			res, err := cl.cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "notes.txt"}})
			if err != nil || res.IsError || text(res) != "hello from the workspace\n" {
				t.Fatalf("read: %v %+v %q", err, res, text(res))
			}

			// A denied tool is not listed and not callable.
			_, err = cl.cs.CallTool(ctx, &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "x", "content": "y"}})
			if err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("write (denied): %v, want an unknown tool error", err)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "x")); err == nil {
				t.Errorf("denied write wrote its file")
			}
		})
	}
}

func TestStdioCancelExec(t *testing.T) {
	for _, era := range eras {
		t.Run(eraName(era), func(t *testing.T) {
			h := newHome(t)
			cl := connect(t, h, era, "--toolsets", "runtime", "--workspace", h.ws)
			pidFile := filepath.Join(h.ws, "pid")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := cl.cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec",
					Arguments: map[string]any{"command": "echo $$ > pid.tmp && mv pid.tmp pid && sleep 60 & sleep 60"}})
				done <- err
			}()
			var pgid int
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if b, err := os.ReadFile(pidFile); err == nil {
					pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
					if err != nil {
						t.Fatal(err)
					}
					if pgid, err = syscall.Getpgid(pid); err != nil {
						t.Fatalf("getpgid: %v", err)
					}
					break
				}
			}
			if pgid == 0 {
				t.Fatal("exec never started")
			}
			cancel()
			if err := <-done; err == nil {
				t.Errorf("cancelled call returned no error")
			}
			// The process group (the shell and both sleeps) is gone within
			// 1 s of the cancellation (the spec's bound).
			start := time.Now()
			for alive := groupAlive(pgid); len(alive) > 0; alive = groupAlive(pgid) {
				if time.Since(start) > time.Second {
					syscall.Kill(-pgid, syscall.SIGKILL)
					t.Fatalf("process group %d still alive 1 s after the cancel: %v", pgid, alive)
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("%s: process group gone %v after the cancel returned", eraName(era), time.Since(start))
			// The session survives the cancellation.
			if l := names(t, cl.cs); !slices.Contains(l, "exec") {
				t.Errorf("after cancel: %v", l)
			}
		})
	}
}

func TestStdioProgress(t *testing.T) {
	for _, era := range eras {
		t.Run(eraName(era), func(t *testing.T) {
			h := newHome(t)
			cl := connect(t, h, era, "--toolsets", "runtime", "--workspace", h.ws)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p := &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "for i in 1 2 3 4 5 6; do echo line$i; sleep 0.3; done"}}
			p.SetProgressToken("tok-1")
			res, err := cl.cs.CallTool(ctx, p)
			if err != nil || res.IsError {
				t.Fatalf("exec: %v %+v", err, res)
			}
			if !strings.Contains(text(res), "line6") {
				t.Errorf("exec text %q", text(res))
			}
			cl.mu.Lock()
			defer cl.mu.Unlock()
			if len(cl.progress) == 0 {
				t.Fatal("no progress notification for a 1.8 s exec")
			}
			last := 0.0
			for _, n := range cl.progress {
				if n.ProgressToken != "tok-1" || n.Progress <= last {
					t.Errorf("progress %+v after %v", n, last)
				}
				last = n.Progress
			}
		})
	}
}

func TestStdioConfigReload(t *testing.T) {
	for _, era := range eras {
		t.Run(eraName(era), func(t *testing.T) {
			h := newHome(t)
			h.writeConfig(t, `{}`)
			cl := connect(t, h, era, "--toolsets", "default,runtime", "--workspace", h.ws)
			if l := names(t, cl.cs); !slices.Contains(l, "exec") {
				t.Fatalf("before: %v", l)
			}
			h.writeConfig(t, `{tools: {byProvider: {mcp: {deny: ["exec"]}}}}`)
			legacy := era != ""
			if legacy {
				select {
				case <-cl.changed:
				case <-time.After(20 * time.Second):
					t.Fatal("no notifications/tools/list_changed after the config edit")
				}
			}
			// Modern clients hear of changes only on subscriptions/listen;
			// they see the new list on their next tools/list.
			var l []string
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if l = names(t, cl.cs); !slices.Contains(l, "exec") {
					break
				}
			}
			if slices.Contains(l, "exec") || !slices.Contains(l, "process") {
				t.Errorf("after the edit: %v", l)
			}
		})
	}
}

// groupAlive lists the processes of group pgid that are not zombies
// (exited, not yet reaped: they run nothing).
func groupAlive(pgid int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) < 3 || f[0] == "Z" || f[2] != strconv.Itoa(pgid) {
			continue
		}
		out = append(out, e.Name()+" "+s[:i+1]+" "+f[0])
	}
	return out
}

// rawPipe is a client transport over the real binary's stdio that also
// lets the test write raw bytes to its stdin between the SDK client's
// messages, and takes the server's answers to those bytes (errors with
// a null id or an id starting "raw-") off stdout before the client sees
// them (the Go SDK client, like the server, ends its session on a frame
// it cannot match).
type rawPipe struct {
	mu      sync.Mutex
	stdin   io.WriteCloser
	answers chan string
}

func (p *rawPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdin.Write(b)
}

func (p *rawPipe) Close() error { return p.stdin.Close() }

// pumpAnswers copies stdout to the returned reader, line by line, taking
// the answers to raw bytes off onto answers.
func pumpAnswers(stdout io.Reader, answers chan<- string) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				id := gjson.GetBytes(line, "id")
				if gjson.GetBytes(line, "error").Exists() && (id.Type == gjson.Null || strings.HasPrefix(id.String(), "raw-")) {
					answers <- strings.TrimSpace(string(line))
				} else if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// A line that is not JSON, is not one JSON-RPC message, or is longer than
// 16 MiB gets a JSON-RPC error on stdout and the session carries on (the
// Go SDK alone ends it with exit 1), in every era.
func TestStdioMalformedLines(t *testing.T) {
	for _, era := range eras {
		t.Run(eraName(era), func(t *testing.T) {
			h := newHome(t)
			if err := os.WriteFile(filepath.Join(h.ws, "notes.txt"), []byte("still here\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			c := h.cmd("--toolsets", "fs", "--workspace", h.ws)
			stdin, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			pipe := &rawPipe{stdin: stdin, answers: make(chan string, 16)}
			out := pumpAnswers(stdout, pipe.answers)
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			t.Cleanup(func() {
				stdin.Close()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					c.Process.Kill()
					<-done
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			answer := func(what string) gjson.Result {
				t.Helper()
				select {
				case a := <-pipe.answers:
					return gjson.Parse(a)
				case err := <-done:
					t.Fatalf("%s: the server exited: %v", what, err)
				case <-ctx.Done():
					t.Fatalf("%s: no answer", what)
				}
				return gjson.Result{}
			}
			raw := func(s string) {
				t.Helper()
				if _, err := pipe.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}

			// Before the handshake: garbage.
			raw("this is not json\n")
			if a := answer("garbage"); a.Get("error.code").Int() != -32700 || a.Get("id").Type != gjson.Null {
				t.Errorf("garbage: %s, want -32700 with a null id", a.Raw)
			}
			tr := &mcp.IOTransport{Reader: out, Writer: pipe}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				t.Fatalf("connect after garbage: %v", err)
			}
			defer cs.Close()

			// After it: an unterminated object, a wrong version tag with an
			// id, a batch, and a line one byte over 16 MiB.
			raw(`{"jsonrpc":"2.0","id":1,"method":"tools/list"` + "\n")
			if a := answer("truncated"); a.Get("error.code").Int() != -32700 {
				t.Errorf("truncated object: %s", a.Raw)
			}
			raw(`{"jsonrpc":"1.0","id":"raw-1","method":"tools/list"}` + "\n")
			if a := answer("version"); a.Get("error.code").Int() != -32600 || a.Get("id").String() != "raw-1" {
				t.Errorf("wrong version tag: %s, want -32600 for id raw-1", a.Raw)
			}
			raw(`[{"jsonrpc":"2.0","id":"raw-2","method":"ping"}]` + "\n")
			if a := answer("batch"); a.Get("error.code").Int() != -32600 {
				t.Errorf("batch: %s", a.Raw)
			}
			raw(`{"jsonrpc":"2.0","id":"raw-3","method":"ping","params":{"x":"` + strings.Repeat("a", mcpserve.MaxLine) + "\"}}\n")
			if a := answer("long"); a.Get("error.code").Int() != -32700 || !strings.Contains(a.Get("error.message").String(), "longer than") {
				t.Errorf("over-long line: %s", a.Raw)
			}

			// The session is still up.
			if list := names(t, cs); !slices.Contains(list, "read") {
				t.Errorf("tools/list after bad lines: %v", list)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "notes.txt"}})
			if err != nil || res.IsError || text(res) != "still here\n" {
				t.Fatalf("read after bad lines: %v %q", err, text(res))
			}
		})
	}
}

// The README's Claude Code example, run as written (from the project
// directory, as Claude Code starts it): its server lists the file tools and
// `read` of a relative path reads the file in that directory.
func TestReadmeClaudeExample(t *testing.T) {
	h := newHome(t)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "claude mcp add openclaw -- openclaw "
	var args []string
	for _, line := range strings.Split(string(readme), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			args = strings.Fields(rest)
			break
		}
	}
	if len(args) < 2 || args[0] != "mcp" || args[1] != "serve" {
		t.Fatalf("README has no %q… example: %q", prefix, args)
	}
	project := filepath.Join(h.dir, "project")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "notes.txt"), []byte("from the project\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(bin, args...)
	c.Env, c.Stderr, c.Dir = h.cmd().Env, os.Stderr, project
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatalf("connect %v: %v", args, err)
	}
	defer cs.Close()
	if list := names(t, cs); !slices.Contains(list, "read") || !slices.Contains(list, "edit") || slices.Contains(list, "gateway") {
		t.Fatalf("`openclaw %s` lists %v: no file tools", strings.Join(args, " "), list)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "notes.txt"}})
	if err != nil || res.IsError || text(res) != "from the project\n" {
		t.Fatalf("read notes.txt: %v %q", err, text(res))
	}
}
