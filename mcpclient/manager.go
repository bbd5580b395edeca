package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one server tool as agents see it: Name is the projected
// "<server>__<tool>" name, MCP the server's own tool.
type Tool struct {
	Name   string
	Server string
	MCP    *mcp.Tool
}

// Status is what a supervised server is doing now.
type Status struct {
	Name      string `json:"name"`
	State     string `json:"state"` // connecting | ready | backoff | stopped
	Tools     int    `json:"tools"`
	LastError string `json:"lastError,omitempty"`
	Restarts  int    `json:"restarts"`
	// PID is a running stdio server's process id.
	PID int `json:"pid,omitempty"`
}

// Backoff bounds between restarts of a server whose connection ended.
var (
	BackoffMin = 500 * time.Millisecond
	BackoffMax = 30 * time.Second
)

// stableAfter is how long a session must have lived for the next failure
// to start the backoff from BackoffMin again.
const stableAfter = 30 * time.Second

// Manager supervises one connection per enabled saved server. A server
// whose connection ends (it crashed, exited, hung past a call timeout) is
// restarted with exponential backoff; its tools stay listed meanwhile and
// calls fail at once with one line saying why. Nothing here blocks longer
// than the caller's ctx and the server's own timeouts.
type Manager struct {
	opts     Options
	onChange func()

	mu    sync.Mutex
	ctx   context.Context
	stop  context.CancelFunc
	conns map[string]*conn
	wg    sync.WaitGroup
}

// NewManager returns a Manager; onChange (may be nil) is called, outside
// any lock, whenever the set of tools may have changed.
func NewManager(o Options, onChange func()) *Manager {
	ctx, stop := context.WithCancel(context.Background())
	return &Manager{opts: o, onChange: onChange, ctx: ctx, stop: stop, conns: map[string]*conn{}}
}

// Sync makes the supervised set match servers (enabled ones only): new
// servers start, removed or changed ones stop, unchanged ones keep their
// connections. It returns at once; connecting happens in the background.
func (m *Manager) Sync(servers []Server) {
	want := map[string]Server{}
	for _, s := range servers {
		if s.Enabled {
			want[s.Name] = s
		}
	}
	m.mu.Lock()
	if m.ctx.Err() != nil {
		m.mu.Unlock()
		return
	}
	var stopped []*conn
	for name, c := range m.conns {
		if s, ok := want[name]; !ok || !reflect.DeepEqual(s, c.srv) {
			stopped = append(stopped, c)
			delete(m.conns, name)
		}
	}
	for name, s := range want {
		if _, ok := m.conns[name]; ok {
			continue
		}
		c := newConn(m, s)
		m.conns[name] = c
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			c.run()
		}()
	}
	m.mu.Unlock()
	for _, c := range stopped {
		c.cancel()
	}
	if len(stopped) > 0 {
		m.changed()
	}
}

// Close stops every server and waits for them to end (bounded by the
// servers' termination delays).
func (m *Manager) Close() {
	m.mu.Lock()
	m.stop()
	conns := m.conns
	m.conns = map[string]*conn{}
	m.mu.Unlock()
	for _, c := range conns {
		c.cancel()
	}
	m.wg.Wait()
}

func (m *Manager) changed() {
	if m.onChange != nil {
		m.onChange()
	}
}

// Tools returns every ready or restarting server's tools that its
// toolFilter exposes, under their projected names, sorted by name.
func (m *Manager) Tools() []Tool {
	m.mu.Lock()
	names := make([]string, 0, len(m.conns))
	for n := range m.conns {
		names = append(names, n)
	}
	conns := make(map[string]*conn, len(m.conns))
	for k, v := range m.conns {
		conns[k] = v
	}
	m.mu.Unlock()
	sort.Strings(names)
	return Project(names, func(name string) (Server, []*mcp.Tool) {
		c := conns[name]
		return c.srv, c.toolList()
	})
}

// Project names the tools of servers (in names order) as the original
// does: "<safe server>__<safe tool>", unique case-insensitively, keeping
// only what each server's toolFilter exposes.
func Project(names []string, get func(name string) (Server, []*mcp.Tool)) []Tool {
	safe := SafeServerNames(names)
	taken := map[string]bool{}
	var out []Tool
	for _, name := range names {
		srv, list := get(name)
		sorted := append([]*mcp.Tool(nil), list...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
		for _, t := range sorted {
			if strings.TrimSpace(t.Name) == "" || !srv.Allows(t.Name) {
				continue
			}
			out = append(out, Tool{Name: ToolName(safe[name], strings.TrimSpace(t.Name), taken), Server: name, MCP: t})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Statuses reports each supervised server, sorted by name.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	var out []Status
	for _, c := range m.conns {
		out = append(out, c.status())
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Call calls tool (its MCP name) on server with args, within the server's
// request timeout and ctx. A server that is not connected fails at once; a
// call that times out restarts the server (a hung server would otherwise
// hold every later call for the full timeout).
func (m *Manager) Call(ctx context.Context, server, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	m.mu.Lock()
	c := m.conns[server]
	m.mu.Unlock()
	if c == nil {
		return nil, fmt.Errorf("MCP server %q is not configured or is disabled", server)
	}
	return c.call(ctx, tool, args)
}

// conn supervises one server.
type conn struct {
	m      *Manager
	srv    Server
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	state    string
	sess     *Session
	tools    []*mcp.Tool
	lastErr  string
	restarts int
	retryAt  time.Time
	refresh  chan struct{}
}

func newConn(m *Manager, s Server) *conn {
	ctx, cancel := context.WithCancel(m.ctx)
	return &conn{m: m, srv: s, ctx: ctx, cancel: cancel, state: "connecting", refresh: make(chan struct{}, 1)}
}

func (c *conn) toolList() []*mcp.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools
}

func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{Name: c.srv.Name, State: c.state, Tools: len(c.tools), LastError: c.lastErr, Restarts: c.restarts}
	if c.sess != nil && c.sess.cmd != nil && c.sess.cmd.Process != nil {
		st.PID = c.sess.cmd.Process.Pid
	}
	return st
}

// run connects, lists tools, waits for the session to end, and starts
// again after a backoff, until cancelled.
func (c *conn) run() {
	backoff := BackoffMin
	defer func() {
		c.mu.Lock()
		c.state, c.sess = "stopped", nil
		c.mu.Unlock()
	}()
	for c.ctx.Err() == nil {
		c.setState("connecting", nil)
		sess, tools, err := c.open()
		if err != nil {
			c.fail(err, backoff)
			if !c.sleep(backoff) {
				return
			}
			backoff = min(backoff*2, BackoffMax)
			continue
		}
		c.mu.Lock()
		c.sess, c.tools, c.state, c.lastErr, c.retryAt = sess, tools, "ready", "", time.Time{}
		c.mu.Unlock()
		c.m.changed()
		reason := c.serve(sess)
		c.mu.Lock()
		c.sess = nil
		c.mu.Unlock()
		_ = sess.Close()
		if c.ctx.Err() != nil {
			return
		}
		if time.Since(sess.started) > stableAfter {
			backoff = BackoffMin
		}
		c.fail(reason, backoff)
		if !c.sleep(backoff) {
			return
		}
		backoff = min(backoff*2, BackoffMax)
		c.mu.Lock()
		c.restarts++
		c.mu.Unlock()
	}
}

// open starts a session and lists its tools.
func (c *conn) open() (*Session, []*mcp.Tool, error) {
	o := c.m.opts
	o.OnToolsChanged = func() {
		select {
		case c.refresh <- struct{}{}:
		default:
		}
	}
	sess, err := Open(c.ctx, c.srv, o)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.srv.ConnectTimeout)
	defer cancel()
	tools, err := sess.Tools(ctx)
	if err != nil {
		_ = sess.Close()
		return nil, nil, fmt.Errorf("tools/list: %w", err)
	}
	return sess, tools, nil
}

// serve waits until the session ends, re-listing tools when the server
// announces a change; it returns why the session ended.
func (c *conn) serve(sess *Session) error {
	for {
		select {
		case <-c.ctx.Done():
			return c.ctx.Err()
		case <-sess.Done():
			return errors.New("the server closed the connection")
		case <-c.refresh:
			ctx, cancel := context.WithTimeout(c.ctx, c.srv.RequestTimeout)
			tools, err := sess.Tools(ctx)
			cancel()
			if err != nil {
				return fmt.Errorf("tools/list after list_changed: %w", err)
			}
			c.mu.Lock()
			c.tools = tools
			c.mu.Unlock()
			c.m.changed()
		}
	}
}

func (c *conn) setState(state string, err error) {
	c.mu.Lock()
	c.state = state
	if err != nil {
		c.lastErr = err.Error()
	}
	c.mu.Unlock()
}

func (c *conn) fail(err error, wait time.Duration) {
	c.mu.Lock()
	c.state, c.lastErr, c.retryAt = "backoff", oneLine(err.Error()), time.Now().Add(wait)
	c.mu.Unlock()
	if c.m.opts.Stderr != nil {
		fmt.Fprintf(c.m.opts.Stderr, "mcp:%s: %s; restarting in %s\n", c.srv.Name, oneLine(err.Error()), wait.Round(time.Millisecond))
	}
}

func (c *conn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// call runs one tool call on the current session.
func (c *conn) call(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	c.mu.Lock()
	sess, state, lastErr, retryAt := c.sess, c.state, c.lastErr, c.retryAt
	c.mu.Unlock()
	if sess == nil {
		msg := fmt.Sprintf("MCP server %q is not connected (%s", c.srv.Name, state)
		if lastErr != "" {
			msg += ": " + lastErr
		}
		if !retryAt.IsZero() {
			if d := time.Until(retryAt); d > 0 {
				msg += fmt.Sprintf("; retrying in %s", d.Round(100*time.Millisecond))
			}
		}
		return nil, errors.New(msg + ")")
	}
	cctx, cancel := context.WithTimeout(ctx, c.srv.RequestTimeout)
	defer cancel()
	res, err := sess.Call(cctx, tool, args)
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		// A hung server: restart it, so the next call does not wait too.
		go func() { _ = sess.Close() }()
		return nil, &TimeoutError{Server: c.srv.Name, Tool: tool, After: c.srv.RequestTimeout}
	case errors.Is(err, mcp.ErrConnectionClosed):
		return nil, fmt.Errorf("MCP server %q closed the connection during %s (it is being restarted)", c.srv.Name, tool)
	}
	return nil, err
}

// TimeoutError is a call the server did not answer within requestTimeoutMs.
type TimeoutError struct {
	Server, Tool string
	After        time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("MCP server %q did not answer %s within %s (requestTimeoutMs); the server is being restarted", e.Server, e.Tool, e.After)
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
