package mcpclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options tune how sessions are opened.
type Options struct {
	// ClientName and Version are sent as clientInfo.
	ClientName, Version string
	// Stderr receives a stdio server's stderr, each line prefixed with
	// "mcp:<server>: " (nil discards it).
	Stderr io.Writer
	// OnToolsChanged is called when the server says its tool list changed.
	OnToolsChanged func()
	// Environ is the parent environment a stdio server inherits from (nil:
	// this process's); only inheritedEnv's variables pass.
	Environ func() []string
	// HTTPClient is the base client for HTTP transports (nil: a new one).
	HTTPClient *http.Client
}

// Session is one open MCP client session to a saved server.
type Session struct {
	srv     Server
	cs      *mcp.ClientSession
	cmd     *exec.Cmd // stdio only
	started time.Time
	once    sync.Once
	closed  chan struct{}
}

// ErrOAuth is returned for servers saved with auth: "oauth".
var ErrOAuth = errors.New("OAuth MCP servers are not supported by this port yet (openclaw mcp login is not implemented); use a static Authorization header instead")

// terminateAfter is how long closing a stdio server waits after closing its
// stdin before SIGTERM (and as long again before SIGKILL).
const terminateAfter = 2 * time.Second

// Open connects to s and completes the MCP handshake within s's connect
// timeout (and ctx). A stdio server is started in its own process group;
// Close ends the whole group.
func Open(ctx context.Context, s Server, o Options) (*Session, error) {
	if s.OAuth {
		return nil, ErrOAuth
	}
	ctx, cancel := context.WithTimeout(ctx, s.ConnectTimeout)
	defer cancel()
	sess := &Session{srv: s, started: time.Now(), closed: make(chan struct{})}
	var t mcp.Transport
	switch s.Transport {
	case TransportStdio:
		cmd, err := sess.command(o)
		if err != nil {
			return nil, err
		}
		sess.cmd = cmd
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}
	case TransportStreamable, TransportSSE:
		hc, err := httpClient(s, o.HTTPClient)
		if err != nil {
			return nil, err
		}
		if s.Transport == TransportSSE {
			t = &mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}
		} else {
			t = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: -1}
		}
	default:
		return nil, fmt.Errorf("transport %q is not supported", s.Transport)
	}
	name := o.ClientName
	if name == "" {
		name = "openclaw"
	}
	copts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	if o.OnToolsChanged != nil {
		f := o.OnToolsChanged
		copts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { f() }
	}
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: o.Version}, copts)
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		sess.killGroup()
		return nil, connectError(s, ctx, err)
	}
	sess.cs = cs
	return sess, nil
}

func connectError(s Server, ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no MCP handshake within %s (connectionTimeoutMs): %w", s.ConnectTimeout, err)
	}
	if s.Transport == TransportStdio {
		var ee *exec.Error
		var pe *os.PathError
		switch {
		case errors.As(err, &ee):
			return fmt.Errorf("cannot start %s: %v", s.Command, ee.Err)
		case errors.As(err, &pe):
			return fmt.Errorf("cannot start %s: %v", s.Command, pe.Err)
		}
	}
	return err
}

// command builds the stdio server's process: the parent environment plus
// the server's env (refused keys already dropped), its cwd, its own process
// group, stderr to o.Stderr line by line.
func (sess *Session) command(o Options) (*exec.Cmd, error) {
	s := sess.srv
	path := s.Command
	if !strings.Contains(path, "/") {
		// Look the command up on the PATH the server will run with.
		if p, err := lookPath(path, mergedEnv(o, s.Env)); err == nil {
			path = p
		} else {
			return nil, fmt.Errorf("cannot start %s: not found on PATH", s.Command)
		}
	}
	cmd := exec.Command(path, s.Args...)
	cmd.Args[0] = s.Command
	cmd.Env = mergedEnv(o, s.Env)
	if s.Cwd != "" {
		st, err := os.Stat(s.Cwd)
		if err != nil || !st.IsDir() {
			return nil, fmt.Errorf("stdio cwd does not exist: %s", s.Cwd)
		}
		cmd.Dir = s.Cwd
	}
	if o.Stderr != nil {
		cmd.Stderr = &linePrefixer{w: o.Stderr, prefix: "mcp:" + s.Name + ": "}
	}
	cmd.WaitDelay = terminateAfter
	ownGroup(cmd)
	return cmd, nil
}

// inheritedEnv are the only variables a stdio server inherits from this
// process (the TypeScript SDK's default set, which the original uses): the
// gateway's own secrets (its token, provider API keys) never reach a
// third-party server unless its definition's env names them.
var inheritedEnv = map[string]bool{"HOME": true, "LOGNAME": true, "PATH": true, "SHELL": true, "TERM": true, "USER": true}

func mergedEnv(o Options, extra map[string]string) []string {
	parent := os.Environ()
	if o.Environ != nil {
		parent = o.Environ()
	}
	out := make([]string, 0, len(inheritedEnv)+len(extra))
	for _, kv := range parent {
		k, v, _ := strings.Cut(kv, "=")
		if !inheritedEnv[k] || strings.HasPrefix(v, "()") { // no exported shell functions
			continue
		}
		if _, override := extra[k]; !override {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}

// lookPath finds file on the PATH of env.
func lookPath(file string, env []string) (string, error) {
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range strings.Split(pathVar, string(os.PathListSeparator)) {
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + file
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// httpClient adds the server's headers and TLS settings to every request.
func httpClient(s Server, base *http.Client) (*http.Client, error) {
	var tr http.RoundTripper = http.DefaultTransport
	if base != nil && base.Transport != nil {
		tr = base.Transport
	}
	insecure := s.SSLVerify != nil && !*s.SSLVerify
	if insecure || s.ClientCert != "" || s.ClientKey != "" {
		t, ok := tr.(*http.Transport)
		if !ok {
			t = http.DefaultTransport.(*http.Transport)
		}
		t = t.Clone()
		if t.TLSClientConfig == nil {
			t.TLSClientConfig = &tls.Config{}
		}
		if insecure {
			t.TLSClientConfig.InsecureSkipVerify = true //nolint:gosec // the user asked for it (sslVerify:false)
		}
		if s.ClientCert != "" || s.ClientKey != "" {
			if s.ClientCert == "" || s.ClientKey == "" {
				return nil, fmt.Errorf("mutual TLS needs both clientCert and clientKey")
			}
			pair, err := tls.LoadX509KeyPair(s.ClientCert, s.ClientKey)
			if err != nil {
				return nil, fmt.Errorf("client certificate: %w", err)
			}
			t.TLSClientConfig.Certificates = []tls.Certificate{pair}
		}
		tr = t
	}
	c := &http.Client{Transport: headerTransport{base: tr, headers: s.Headers}}
	if base != nil {
		c.CheckRedirect, c.Jar = base.CheckRedirect, base.Jar
	}
	return c, nil
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// Server is the definition this session was opened with.
func (sess *Session) Server() Server { return sess.srv }

// Info is the server's initialize (or discover) result.
func (sess *Session) Info() *mcp.InitializeResult { return sess.cs.InitializeResult() }

// Tools lists every tool (all pages) within ctx.
func (sess *Session) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	for t, err := range sess.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Call calls one tool (its MCP name) with args (a JSON object).
func (sess *Session) Call(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a any = args
	if len(bytes.TrimSpace(args)) == 0 {
		a = map[string]any{}
	}
	return sess.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
}

// Done is closed once the connection has ended (the server exited or hung
// up, or Close).
func (sess *Session) Done() <-chan struct{} {
	sess.once.Do(func() {
		go func() {
			_ = sess.cs.Wait()
			close(sess.closed)
		}()
	})
	return sess.closed
}

// Close ends the session: stdin closed, then SIGTERM and SIGKILL to a
// stdio server that lingers, and its whole process group killed.
func (sess *Session) Close() error {
	err := sess.cs.Close()
	sess.killGroup()
	return err
}

func (sess *Session) killGroup() {
	if sess.cmd != nil && sess.cmd.Process != nil {
		killGroup(sess.cmd.Process.Pid)
	}
}

// linePrefixer writes each line with a prefix, holding a partial line (at
// most 8 KiB) until its newline.
type linePrefixer struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

const maxStderrLine = 8 << 10

func (l *linePrefixer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		fmt.Fprintf(l.w, "%s%s\n", l.prefix, bytes.TrimRight(l.buf[:i], "\r"))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > maxStderrLine {
		fmt.Fprintf(l.w, "%s%s [stderr line truncated]\n", l.prefix, l.buf[:maxStderrLine])
		l.buf = l.buf[:0]
	}
	return len(p), nil
}
