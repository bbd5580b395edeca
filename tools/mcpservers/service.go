// Package mcpservers gives agent turns the tools of the MCP servers saved
// under mcp.servers (issue 32). Inside the gateway a service supervises one
// connection per enabled server (mcpclient) and provides each server tool
// as an agent tool named <server>__<tool> (tools.Provide), so calls go
// through tools.Invoke like every other tool: schema check, tool policy
// (plugin id bundle-mcp; a deny wins), loop detection. Config edits are
// picked up while the gateway runs: changed or removed servers are
// restarted or stopped, unchanged ones keep their connections.
package mcpservers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/mcpclient"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// ServiceName is the gateway service holding the connections.
const ServiceName = "mcpServers"

// Key reaches the running service.
var Key = tools.NewServiceKey[*Service](ServiceName)

func init() { tools.RegisterService(Key.Spec(New)) }

// configPoll is how often the service looks for a new config (a pointer
// compare, then mcp.servers compared only when the config changed).
const configPoll = time.Second

// Service supervises the saved servers of one gateway and provides their
// tools to the registry.
type Service struct {
	reg   *tools.Registry
	owner string
	log   io.Writer
	mgr   *mcpclient.Manager

	mu      sync.Mutex
	cfg     *config.Config
	raw     map[string]map[string]any
	invalid []mcpclient.Invalid
	envFn   func() *tools.Env
	stop    context.CancelFunc
	done    chan struct{}
}

// New builds the service from the gateway's config.
func New(env *tools.Env) (*Service, error) { return newService(env, tools.Default) }

func newService(env *tools.Env, reg *tools.Registry) (*Service, error) {
	s := &Service{reg: reg, log: env.Warn, cfg: env.Config}
	s.owner = fmt.Sprintf("%s/%p", ServiceName, s)
	if s.log == nil {
		s.log = io.Discard
	}
	s.mgr = mcpclient.NewManager(mcpclient.Options{ClientName: "openclaw", Stderr: s.log}, s.publish)
	return s, nil
}

// Start connects to the enabled servers in the background: the gateway
// does not wait for any of them.
func (s *Service) Start(ctx context.Context) error {
	s.mu.Lock()
	cfg := s.cfg
	s.mu.Unlock()
	s.apply(cfg)
	return nil
}

// Attach starts following config reloads.
func (s *Service) Attach(env func() *tools.Env) {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.envFn, s.stop, s.done = env, cancel, make(chan struct{})
	done := s.done
	s.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(configPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if e := env(); e != nil {
					s.apply(e.Config)
				}
			}
		}
	}()
}

// Stop ends every server and withdraws their tools.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	closed := make(chan struct{})
	go func() { s.mgr.Close(); close(closed) }()
	select {
	case <-closed:
	case <-ctx.Done():
	}
	return s.reg.Provide(s.owner, policy.MCPPluginID, nil)
}

// apply syncs the supervised servers with cfg's mcp.servers when they
// changed since the last look.
func (s *Service) apply(cfg *config.Config) {
	raw := mcpclient.Raw(cfg)
	s.mu.Lock()
	if s.raw != nil && reflect.DeepEqual(raw, s.raw) {
		s.cfg = cfg
		s.mu.Unlock()
		return
	}
	s.cfg, s.raw = cfg, raw
	var servers []mcpclient.Server
	var invalid []mcpclient.Invalid
	for _, name := range mcpclient.Names(raw) {
		srv, err := mcpclient.Resolve(name, raw[name])
		if err != nil {
			if srv.Enabled {
				invalid = append(invalid, mcpclient.Invalid{Name: name, Reason: err.Error()})
				fmt.Fprintf(s.log, "mcp:%s: skipped: %v\n", name, err)
			}
			continue
		}
		if srv.Enabled && srv.OAuth {
			invalid = append(invalid, mcpclient.Invalid{Name: name, Reason: mcpclient.ErrOAuth.Error()})
			fmt.Fprintf(s.log, "mcp:%s: skipped: %v\n", name, mcpclient.ErrOAuth)
			continue
		}
		if len(srv.DroppedEnv) > 0 {
			fmt.Fprintf(s.log, "mcp:%s: env %s refused for stdio start-up safety and ignored\n", name, strings.Join(srv.DroppedEnv, ", "))
		}
		servers = append(servers, srv)
	}
	s.invalid = invalid
	s.mu.Unlock()
	s.mgr.Sync(servers)
}

// Statuses reports the supervised servers.
func (s *Service) Statuses() []mcpclient.Status { return s.mgr.Statuses() }

// publish provides the current server tools to the registry.
func (s *Service) publish() {
	var acts []*tools.Action
	for _, t := range s.mgr.Tools() {
		acts = append(acts, s.action(t))
	}
	if err := s.reg.Provide(s.owner, policy.MCPPluginID, acts); err != nil {
		fmt.Fprintf(s.log, "mcp: %v\n", err)
	}
}

// action is the agent tool for one server tool.
func (s *Service) action(t mcpclient.Tool) *tools.Action {
	server, name := t.Server, t.MCP.Name
	summary := strings.TrimSpace(t.MCP.Description)
	if summary == "" {
		summary = fmt.Sprintf("Tool %s of the MCP server %s.", name, server)
	}
	a := &tools.Action{
		Tool:        t.Name,
		Summary:     summary,
		Schema:      inputSchema(t.MCP),
		Where:       tools.Gateway,
		Description: "",
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			return s.call(ctx, t.Name, server, name, params)
		},
	}
	if an := t.MCP.Annotations; an != nil {
		a.ReadOnly, a.Idempotent = an.ReadOnlyHint, an.IdempotentHint
		a.Destructive = !an.ReadOnlyHint && (an.DestructiveHint == nil || *an.DestructiveHint)
		a.OpenWorld = an.OpenWorldHint == nil || *an.OpenWorldHint
	}
	return a
}

// call runs one call and shapes the result as an agent tool result:
// content blocks plus details naming the server and tool.
func (s *Service) call(ctx context.Context, agentName, server, tool string, params json.RawMessage) (any, error) {
	res, err := s.mgr.Call(ctx, server, tool, params)
	if err != nil {
		var te *mcpclient.TimeoutError
		switch {
		case errors.As(err, &te):
			return nil, tools.Errorf(tools.CodeTimeout, "%s: %v", agentName, err)
		case ctx.Err() != nil:
			return nil, err
		}
		return nil, tools.Errorf(tools.CodeFailed, "%s: %v", agentName, err)
	}
	blocks := mcpclient.Blocks(res)
	if res.IsError {
		text := mcpclient.Text(blocks)
		if text == "" {
			text = "the tool reported an error"
		}
		return nil, tools.Errorf(tools.CodeFailed, "%s: %s", agentName, text).
			WithDetails(map[string]any{"mcp": map[string]any{"server": server, "tool": tool}})
	}
	out := &tools.Result{Content: make([]tools.Block, 0, len(blocks))}
	for _, b := range blocks {
		out.Content = append(out.Content, tools.Block{Type: b.Type, Text: b.Text, Data: b.Data, MimeType: b.MimeType})
	}
	details := map[string]any{"mcp": map[string]any{"server": server, "tool": tool}}
	if res.StructuredContent != nil {
		details["structuredContent"] = res.StructuredContent
	}
	out.Details = details
	return out, nil
}

// inputSchema is the tool's input schema as an object schema without its
// $schema (models take the schema as is; the dialect line only gets in
// the way).
func inputSchema(t *mcp.Tool) string {
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return `{"type":"object"}`
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return `{"type":"object"}`
	}
	delete(m, "$schema")
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if m["type"] != "object" {
		return `{"type":"object"}`
	}
	out, err := json.Marshal(m)
	if err != nil {
		return `{"type":"object"}`
	}
	return string(out)
}
