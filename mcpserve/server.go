package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
)

// Runner runs one call of an agent tool action for env: tools.Invoke in
// this process, or a relay to the gateway for actions that run there. a
// is the action the args name (nil when they name none: Invoke then
// reports why).
type Runner func(ctx context.Context, env *tools.Env, tool string, a *tools.Action, args json.RawMessage) (json.RawMessage, error)

// Invoke is the Runner that runs every call through tools.Invoke here.
func Invoke(ctx context.Context, env *tools.Env, tool string, _ *tools.Action, args json.RawMessage) (json.RawMessage, error) {
	return tools.Invoke(ctx, env, tools.Call{Tool: tool, Args: args})
}

// Config is a Server's setup.
type Config struct {
	Options Options
	// Env returns the environment calls start from (the current config,
	// state dir, services); the Subject is replaced by the MCP Subject.
	Env func() (*tools.Env, error)
	// AgentID is the agent the calls are made for ("" = the default).
	AgentID string
	// Run runs calls; nil is Invoke.
	Run Runner
	// Version is the serverInfo version.
	Version string
	// Events, when set, is the gateway event buffer events_poll and
	// events_wait read (conversations toolset); nil: they are not served.
	Events *Events
	// Log receives diagnostics (never stdout); nil discards.
	Log *slog.Logger
}

// Server is the MCP server over the registry.
type Server struct {
	cfg Config
	srv *mcp.Server

	inflight atomic.Int64 // calls running (drain.go)

	mu     sync.Mutex
	listed map[string][]byte // name → the listed tool's JSON (to see changes)
	order  []Tool
}

// Instructions is the server's guidance to clients (kept under 2 KB:
// Claude Code cuts longer ones).
const Instructions = "OpenClaw's agent tools (browser, canvas, nodes, cron, web, memory, sessions, messaging, " +
	"files and exec, as the user's tool policy allows). Multi-action tools take an `action` " +
	"argument naming one action of their enum; the other arguments are that action's. " +
	"Files a tool produces (screenshots, PDFs, recordings) are saved under the OpenClaw state " +
	"directory's media/ and named by absolute path in the text; images also come inline when " +
	"the client accepts them. A refused or failed call is an error result whose text ends with " +
	"the JSON error {\"ok\":false,\"error\":{code,message,details}}."

// New builds the server and lists the tools the current env selects.
func New(cfg Config) (*Server, error) {
	if cfg.Run == nil {
		cfg.Run = Invoke
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, listed: map[string][]byte{}}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "openclaw", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       cfg.Log,
		// Tools only: no logging capability (stderr is the log), and the
		// list may change on a config reload.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	if err := s.Refresh(); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP is the SDK server (for transports).
func (s *Server) MCP() *mcp.Server { return s.srv }

// Tools is the current list, sorted by name.
func (s *Server) Tools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}

// env is the base env with the MCP caller.
func (s *Server) env() (*tools.Env, error) {
	env := &tools.Env{}
	if s.cfg.Env != nil {
		e, err := s.cfg.Env()
		if err != nil {
			return nil, err
		}
		c := *e
		env = &c
	}
	env.Subject = Subject(s.cfg.AgentID)
	env.Warn = nil
	return env, nil
}

// Refresh recomputes the list from the current env (after a config
// reload) and updates the SDK's: tools gone or changed are removed, new or
// changed ones added. The SDK then tells legacy sessions list_changed.
func (s *Server) Refresh() error {
	env, err := s.env()
	if err != nil {
		return err
	}
	list, err := Select(env, s.cfg.Options)
	if err != nil {
		return err
	}
	list = gatewayAdapters(context.Background(), list, env, s.cfg.Options, s.cfg.Run)
	list = withEvents(list, s.cfg.Options, s.cfg.Events)
	s.mu.Lock()
	defer s.mu.Unlock()
	next := map[string][]byte{}
	for _, t := range list {
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("mcp tool %s: %w", t.Name, err)
		}
		next[t.Name] = b
	}
	var gone []string
	for name, b := range s.listed {
		if nb, ok := next[name]; !ok || !bytes.Equal(nb, b) {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.srv.RemoveTools(gone...)
	}
	for _, t := range list {
		if b, ok := s.listed[t.Name]; ok && bytes.Equal(b, next[t.Name]) {
			continue
		}
		s.srv.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			Annotations: t.Annotations, Meta: mcp.Meta(t.Meta)}, s.handler(t))
	}
	s.listed, s.order = next, list
	return nil
}

// handler runs one MCP call of t. Tool failures are isError results,
// never JSON-RPC errors; a panic in a handler is one too.
func (s *Server) handler(t Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		var prog *progress
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		defer func() {
			if p := recover(); p != nil {
				s.cfg.Log.Error("mcp tool panic", "tool", t.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				prog.stop()
				res = errorResult(t.Name, failure.Errorf(failure.CodeFailed, "internal error in %s: %v", t.Name, p))
			}
		}()
		env, err := s.env()
		if err != nil {
			return errorResult(t.Name, err), nil
		}
		args := json.RawMessage(`{}`)
		if req.Params != nil && len(req.Params.Arguments) > 0 && string(req.Params.Arguments) != "null" {
			args = req.Params.Arguments
		}
		if t.local != nil {
			out, err := t.local(ctx, args)
			if err != nil {
				return errorResult(t.Name, err), nil
			}
			return toResult(out, s.cfg.Options), nil
		}
		name, args, err := t.call(args)
		if err != nil {
			return errorResult(t.Name, err), nil
		}
		a := resolve(name, args)
		if t.adapter != nil && t.adapter.method {
			a = tools.ByMethod(name)
		}
		if t.Verbs != nil && (a == nil || !slices.Contains(t.Verbs, a.Verb)) {
			return errorResult(t.Name, failure.Errorf(failure.CodeDenied,
				"%s: action %q is not served read-only (actions: %v)", t.Name, gjson.GetBytes(args, "action").String(), t.Verbs).
				WithDetails(map[string]any{"tool": t.Name, "step": "mcp --read-only"})), nil
		}
		prog = startProgress(ctx, req)
		env.Sink = prog
		out, err := s.cfg.Run(ctx, env, name, a, args)
		prog.stop()
		if err == nil && t.adapter != nil && t.adapter.result != nil {
			out, err = t.adapter.result(out)
		}
		if err != nil {
			return errorResult(t.Name, err), nil
		}
		return toResult(out, s.cfg.Options), nil
	}
}

// resolve finds the action args name for tool (nil when none).
func resolve(tool string, args json.RawMessage) *tools.Action {
	acts := tools.ToolActions(tool)
	if len(acts) == 1 && acts[0].Verb == "" {
		return acts[0]
	}
	verb := gjson.GetBytes(args, "action").String()
	for _, a := range acts {
		if a.Verb == verb && verb != "" {
			return a
		}
	}
	return nil
}

// errorResult is a failed call as MCP sees it: one human line, then the
// CLI's JSON error. A refusal by the tool policy (its error names the policy
// step) reads as the original's "Tool not available"; any other refusal (the
// network guard, a disabled tool, a path outside the workspace) keeps its
// own message, which says why and what to do.
func errorResult(tool string, err error) *mcp.CallToolResult {
	te := failure.AsError(err)
	line := te.Message
	if te.Code == failure.CodeDenied {
		details := mustJSON(te.Details)
		if step := gjson.Get(details, "step").String(); step != "" && step != "mcp --read-only" &&
			gjson.Get(details, "tool").Exists() {
			line = fmt.Sprintf("Tool not available: %s (denied by %s)", tool, step)
		}
	}
	env, _ := json.Marshal(struct {
		OK    bool           `json:"ok"`
		Error *failure.Error `json:"error"`
	}{false, te})
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: line + "\n" + string(env)}}}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
