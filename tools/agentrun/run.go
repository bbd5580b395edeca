// Package agentrun is the agent runtime: one run is a loop that builds the
// system prompt and the tool schemas from the registry (the agent schemas
// tools.catalog serves, after the agent's tool policy), calls the agent's
// model (an OpenAI-compatible or Anthropic provider from models.providers),
// runs the model's tool calls through the one door (tools.Invoke) as the
// agent (Subject kind agent with the session key: policy and loop
// detection apply) holding the scopes of whoever started the run
// (Request.Scopes, tools/grant.go: never more), appends every message to
// the session's transcript and stops on a final answer, the step limit,
// the timeout or cancellation.
// Runs are gateway jobs: the `agent` method answers accepted at once and
// the final result on the same request; a caller that disconnects loses
// the answer, not the run (agent.wait and sessions history find it).
package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/agent/skills"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// Limits of one run.
const (
	// DefaultMaxSteps is how many model calls one run makes at most.
	DefaultMaxSteps = 32
	// defaultTimeoutSeconds is agents.defaults.timeoutSeconds' default.
	defaultTimeoutSeconds = 600
	// historyMessages is how much of the transcript a new turn sends.
	historyMessages = 400
	// bootstrapMaxChars caps each workspace prompt file (the original's
	// agents.defaults.bootstrapMaxChars default).
	bootstrapMaxChars = 20_000
	// toolResultMaxChars caps one tool result as the model sees it.
	toolResultMaxChars = 100_000
)

// bootstrapFiles are the workspace files the original puts into the
// system prompt, in its order.
var bootstrapFiles = []string{"AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"}

// Request is one run's input.
type Request struct {
	Message           string
	AgentID           string
	SessionKey        string
	Model             string
	ExtraSystemPrompt string
	Timeout           time.Duration
	MaxSteps          int
	// Cwd is the run's working directory (absolute, or relative to the
	// agent's workspace); empty: the workspace.
	Cwd string
	// Init fills a new session's entry (a spawned child's parent and
	// label); nil leaves the defaults.
	Init func(e *sessions.Entry)
	// Scopes are what the run's tool calls hold: the RunScopes of whoever
	// asked for the run (tools/grant.go), never more; empty holds
	// tools.LeastRunScopes.
	Scopes []string
}

// Outcome is one run's final answer in the original's shape (agent's
// second response).
type Outcome struct {
	RunID      string       `json:"runId"`
	Status     string       `json:"status"`  // ok | error | timeout
	Summary    string       `json:"summary"` // completed | failed | aborted
	StopReason string       `json:"stopReason,omitempty"`
	Error      string       `json:"error,omitempty"`
	SessionKey string       `json:"sessionKey"`
	AgentID    string       `json:"agentId"`
	Result     OutcomeBody  `json:"result"`
	Steps      int          `json:"steps"`
	ToolCalls  []ToolRecord `json:"toolCalls"`
}

// OutcomeBody is result: the reply payloads and the run's meta.
type OutcomeBody struct {
	Payloads []Payload `json:"payloads"`
	Meta     Meta      `json:"meta"`
}

// Payload is one reply.
type Payload struct {
	Text string `json:"text"`
}

// Meta is the run's measurements.
type Meta struct {
	DurationMs int64     `json:"durationMs"`
	AgentMeta  AgentMeta `json:"agentMeta"`
	// DeliveryStatus is delivered or not-delivered when the run was asked
	// to deliver (deliver:true); DeliveryError says why not; Delivery is
	// the message send's result.
	DeliveryStatus string         `json:"deliveryStatus,omitempty"`
	DeliveryError  string         `json:"deliveryError,omitempty"`
	Delivery       map[string]any `json:"delivery,omitempty"`
}

// AgentMeta names the session and model of the run.
type AgentMeta struct {
	SessionID string          `json:"sessionId"`
	Provider  string          `json:"provider"`
	Model     string          `json:"model"`
	Usage     providers.Usage `json:"usage"`
}

// ToolRecord is one tool call of the run and how it ended.
type ToolRecord struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	IsError bool   `json:"isError,omitempty"`
}

// Runner runs agent turns for one gateway: env is the gateway's (config,
// services, events), never a connection's.
type Runner struct {
	Sessions *sessions.Service
	// Events receives agent events (nil: none).
	Events tools.Events
	// resolve finds a provider (tests may replace it).
	resolve func(cfg *config.Config, ref string) (providers.Provider, providers.Ref, error)
	mu      sync.Mutex
	seq     map[string]int
	// lanes serialise the runs of one session (a slot per session key),
	// so two turns never interleave in one transcript.
	lanes map[string]*lane
	// prelude is set by Service.SetPrelude (nil: none).
	prelude atomic.Pointer[Prelude]
}

// Prelude is what a turn's message is prefixed with, asked once the run
// holds its session's slot: the session's queued system events (tools/cron
// owns that queue). "" adds nothing; seen, when not nil, is called once the
// message carrying the text is in the transcript.
type Prelude func(ctx context.Context, sessionKey string) (text string, seen func())

// NewRunner builds a runner over a session store.
func NewRunner(s *sessions.Service, ev tools.Events) *Runner {
	return &Runner{Sessions: s, Events: ev, seq: map[string]int{}, lanes: map[string]*lane{}, resolve: func(cfg *config.Config, ref string) (providers.Provider, providers.Ref, error) {
		p, _, r, err := providers.Resolve(cfg, ref)
		return p, r, err
	}}
}

// ModelFor is the agent's model: agents.list[].model, else
// agents.defaults.model.
func ModelFor(cfg *config.Config, agentID string) string { return sessions.AgentModel(cfg, agentID) }

// lane waits for key's slot (or ctx) and returns its release. A lane
// lives while a run holds or waits for it.
func (r *Runner) lane(ctx context.Context, key string) (func(), error) {
	r.mu.Lock()
	l := r.lanes[key]
	if l == nil {
		l = &lane{ch: make(chan struct{}, 1)}
		r.lanes[key] = l
	}
	l.refs++
	r.mu.Unlock()
	drop := func() {
		r.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(r.lanes, key)
		}
		r.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; drop() }, nil
	case <-ctx.Done():
		drop()
		return nil, ctx.Err()
	}
}

// lane is one session's slot and how many runs hold or wait for it.
type lane struct {
	ch   chan struct{}
	refs int
}

// agentEnv is the env a run's tool calls carry: the gateway's services,
// the agent's identity and workspace, and the scopes of whoever started
// the run (tools.AgentTurn), but no connection (it may be gone).
func agentEnv(base *tools.Env, agentID, key, cwd string, scopes []string) *tools.Env {
	env := *base
	env.Subject = tools.AgentTurn(agentID, key, scopes)
	env.ConnID, env.Sink, env.Workspace = "", nil, ""
	env.Workspace = env.WorkspaceDir()
	if cwd != "" {
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(env.Workspace, cwd)
		}
		env.Workspace = filepath.Clean(cwd)
	}
	return &env
}

// publishChat sends the original's chat event for how the run ended
// (final, aborted, error); textStream sends the delta ones.
func (r *Runner) publishChat(runID, key, state, text, errMsg string) {
	if r.Events == nil {
		return
	}
	ev := map[string]any{"runId": runID, "sessionKey": key, "seq": r.chatSeq(runID, state), "state": state}
	if text != "" || state == "final" {
		ev["message"] = assistantMessage(text)
	}
	if errMsg != "" {
		ev["errorMessage"] = errMsg
	}
	_ = r.Events.Publish("chat", ev)
}

func (r *Runner) publish(runID, stream string, data map[string]any) {
	if r.Events == nil {
		return
	}
	r.mu.Lock()
	r.seq[runID]++
	seq := r.seq[runID]
	r.mu.Unlock()
	_ = r.Events.Publish("agent", map[string]any{"runId": runID, "seq": seq, "stream": stream, "ts": time.Now().UnixMilli(), "data": data})
}

// Run runs one turn to its end. It returns an Outcome for every ending a
// run can have (a model error is status error); err is only for a run
// that could not start (no session store).
func (r *Runner) Run(ctx context.Context, base *tools.Env, runID string, req Request) (*Outcome, error) {
	started := time.Now()
	cfg := base.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	agentID := sessions.NormalizeAgentID(req.AgentID)
	if req.AgentID == "" {
		agentID = sessions.NormalizeAgentID(tools.DefaultAgentID(cfg))
	}
	key := sessions.Canonical(req.SessionKey, agentID)
	if key == "" {
		key = sessions.MainKey(agentID)
	} else if req.AgentID == "" {
		agentID = sessions.AgentOf(key)
	}
	out := &Outcome{RunID: runID, SessionKey: key, AgentID: agentID, ToolCalls: []ToolRecord{},
		Result: OutcomeBody{Payloads: []Payload{}}}
	finish := func(status, summary, stop, msg string) (*Outcome, error) {
		out.Status, out.Summary, out.StopReason, out.Error = status, summary, stop, msg
		out.Result.Meta.DurationMs = time.Since(started).Milliseconds()
		r.publish(runID, "lifecycle", map[string]any{"phase": "end", "status": status, "stopReason": stop, "error": msg})
		state, final := "final", ""
		if len(out.Result.Payloads) > 0 {
			final = out.Result.Payloads[len(out.Result.Payloads)-1].Text
		}
		switch {
		case summary == "aborted":
			state = "aborted"
		case status != "ok":
			state = "error"
		}
		r.publishChat(runID, key, state, final, msg)
		r.mu.Lock()
		delete(r.seq, runID)
		r.mu.Unlock()
		_, _ = r.Sessions.Update(context.WithoutCancel(ctx), key, func(e *sessions.Entry) {
			e.Status = map[string]string{"ok": "done", "error": "failed", "timeout": "timeout"}[status]
			if summary == "aborted" && status != "timeout" {
				e.Status = "killed"
			}
			u := out.Result.Meta.AgentMeta.Usage
			e.InputTokens += int64(u.InputTokens)
			e.OutputTokens += int64(u.OutputTokens)
			e.TotalTokens = e.InputTokens + e.OutputTokens
			e.EndedAt = time.Now().UnixMilli()
			e.RuntimeMs = e.EndedAt - started.UnixMilli()
			e.AbortedLastRun = summary == "aborted"
		})
		return out, nil
	}

	release, err := r.lane(ctx, key)
	if err != nil {
		return finish("error", "aborted", "aborted", "the run was aborted before it started")
	}
	defer release()
	entry, err := r.Sessions.Ensure(ctx, key, req.Init)
	if err != nil {
		return nil, err
	}
	modelRef := strings.TrimSpace(req.Model)
	if modelRef == "" {
		modelRef = sessions.EffectiveModel(cfg, entry)
	}
	out.Result.Meta.AgentMeta.SessionID = entry.SessionID
	// The transcript so far, before this turn's message is added.
	prior, err := r.Sessions.History(ctx, key, historyMessages, true)
	if err != nil {
		return nil, err
	}
	var seen func()
	if p := r.prelude.Load(); p != nil {
		if pre, done := (*p)(ctx, key); pre != "" {
			req.Message, seen = pre+"\n\n"+req.Message, done
		}
	}
	if err := r.Sessions.Append(ctx, key, sessions.Message{Role: "user", Content: []sessions.ContentBlock{{Type: "text", Text: req.Message}}}); err != nil {
		return nil, err
	}
	if seen != nil {
		seen()
	}
	r.publish(runID, "lifecycle", map[string]any{"phase": "start", "sessionKey": key})
	if modelRef == "" {
		return finish("error", "failed", "error", "no model configured for agent "+agentID+": set agents.defaults.model (provider/model) and models.providers")
	}
	prov, ref, err := r.resolve(cfg, modelRef)
	if err != nil {
		return finish("error", "failed", "error", err.Error())
	}
	out.Result.Meta.AgentMeta.Provider, out.Result.Meta.AgentMeta.Model = ref.Provider, ref.Model
	now := time.Now().UnixMilli()
	_, _ = r.Sessions.Update(ctx, key, func(e *sessions.Entry) {
		e.Model, e.ModelProvider, e.Status, e.StartedAt, e.EndedAt = ref.Model, ref.Provider, "running", now, 0
	})

	timeout := req.Timeout
	if timeout <= 0 {
		timeout = time.Duration(cfg.Int("agents.defaults.timeoutSeconds", defaultTimeoutSeconds)) * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	env := agentEnv(base, agentID, key, req.Cwd, req.Scopes)
	defs, err := toolDefs(env)
	if err != nil {
		return finish("error", "failed", "error", err.Error())
	}
	msgs := append(toProvider(prior), providers.Message{Role: "user", Parts: []providers.Part{providers.TextPart(req.Message)}})
	system := systemPrompt(env, agentID, req.ExtraSystemPrompt, defs)
	maxSteps := req.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	for step := 0; step < maxSteps; step++ {
		out.Steps = step + 1
		stream := r.newTextStream(runID, key)
		resp, err := prov.Chat(ctx, providers.Request{Model: ref.Model, System: system, Messages: msgs, Tools: defs,
			OnDelta: stream.onDelta})
		stream.end()
		if err != nil {
			return r.ended(ctx, finish, err)
		}
		out.Result.Meta.AgentMeta.Usage.InputTokens += resp.Usage.InputTokens
		out.Result.Meta.AgentMeta.Usage.OutputTokens += resp.Usage.OutputTokens
		am := sessions.Message{Role: "assistant", StopReason: resp.StopReason, Provider: ref.Provider, Model: resp.Model}
		if resp.Text != "" {
			am.Content = append(am.Content, sessions.ContentBlock{Type: "text", Text: resp.Text})
		}
		for _, c := range resp.ToolCalls {
			args := json.RawMessage(c.Arguments)
			if !json.Valid(args) {
				args, _ = json.Marshal(c.Arguments)
			}
			am.Content = append(am.Content, sessions.ContentBlock{Type: "toolCall", ID: c.ID, Name: c.Name, Arguments: args})
		}
		if err := r.Sessions.Append(context.WithoutCancel(ctx), key, am); err != nil {
			return nil, err
		}
		msgs = append(msgs, providers.Message{Role: "assistant", Parts: textParts(resp.Text), ToolCalls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			if resp.Text != "" {
				out.Result.Payloads = append(out.Result.Payloads, Payload{Text: resp.Text})
			}
			return finish("ok", "completed", stopOf(resp.StopReason), "")
		}
		for _, c := range resp.ToolCalls {
			r.publish(runID, "tool", map[string]any{"phase": "start", "name": c.Name, "toolCallId": c.ID, "args": json.RawMessage(validJSON(c.Arguments))})
			text, isErr := callTool(ctx, env, c)
			r.publish(runID, "tool", map[string]any{"phase": "result", "name": c.Name, "toolCallId": c.ID, "isError": isErr})
			out.ToolCalls = append(out.ToolCalls, ToolRecord{ID: c.ID, Name: c.Name, IsError: isErr})
			tr := sessions.Message{Role: "toolResult", ToolCallID: c.ID, ToolName: c.Name, IsError: isErr,
				Content: []sessions.ContentBlock{{Type: "text", Text: text}}}
			if err := r.Sessions.Append(context.WithoutCancel(ctx), key, tr); err != nil {
				return nil, err
			}
			msgs = append(msgs, providers.Message{Role: "tool", ToolCallID: c.ID, Parts: textParts(text)})
			if ctx.Err() != nil {
				return r.ended(ctx, finish, ctx.Err())
			}
		}
	}
	return finish("error", "failed", "max_steps", fmt.Sprintf("the run stopped after %d model calls (step limit)", maxSteps))
}

// ended maps how a model call failed to the run's ending.
func (r *Runner) ended(ctx context.Context, finish func(status, summary, stop, msg string) (*Outcome, error), err error) (*Outcome, error) {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return finish("timeout", "aborted", "timeout", "the run timed out")
	case ctx.Err() != nil:
		return finish("error", "aborted", "aborted", "the run was aborted")
	}
	return finish("error", "failed", "error", err.Error())
}

func stopOf(s string) string {
	switch s {
	case "", "stop", "end_turn":
		return "stop"
	}
	return s
}

func validJSON(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func textParts(s string) []providers.Part {
	if s == "" {
		return nil
	}
	return []providers.Part{providers.TextPart(s)}
}

// callTool runs one tool call through the one door as the agent. A
// refusal (policy, loop detection, bad arguments) or failure is what the
// model sees, as an error result.
func callTool(ctx context.Context, env *tools.Env, c providers.ToolCall) (string, bool) {
	args := json.RawMessage(c.Arguments)
	if strings.TrimSpace(c.Arguments) == "" {
		args = json.RawMessage(`{}`)
	}
	if !json.Valid(args) {
		return fmt.Sprintf("error: the arguments of %s are not valid JSON", c.Name), true
	}
	res, err := tools.Invoke(ctx, env, tools.Call{Tool: c.Name, Args: args})
	if err != nil {
		msg := err.Error()
		if e := tools.AsError(err); e != nil {
			msg = e.Code + ": " + e.Message
		}
		return "error: " + msg, true
	}
	return resultText(res), false
}

// resultText is what the model reads of a tool result: its text blocks
// (a non-Result JSON as is), capped.
func resultText(res json.RawMessage) string {
	var r struct {
		Content []tools.Block `json:"content"`
	}
	text := string(res)
	if json.Unmarshal(res, &r) == nil && len(r.Content) > 0 {
		var parts []string
		for _, b := range r.Content {
			switch b.Type {
			case "text":
				parts = append(parts, b.Text)
			case "image":
				parts = append(parts, "[image "+b.MimeType+"]")
			}
		}
		text = strings.Join(parts, "\n")
	}
	if len(text) > toolResultMaxChars {
		text = text[:toolResultMaxChars] + "\n[truncated]"
	}
	return text
}

// toolDefs are the tools the agent may call now: every registered agent
// tool that exists for it and that its policy allows, with the agent
// schema tools.catalog serves.
func toolDefs(env *tools.Env) ([]providers.ToolDef, error) {
	quiet := *env
	quiet.Warn = nil
	res := tools.EffectiveRegistered(&quiet)
	var defs []providers.ToolDef
	for _, name := range tools.ToolNames() {
		if tools.Unavailable(env, name) != nil || !res.Allows(name) {
			continue
		}
		raw, err := tools.AgentSchema(name)
		if err != nil {
			return nil, fmt.Errorf("agent: schema of %s: %w", name, err)
		}
		var schema map[string]any
		if err := json.Unmarshal(raw, &schema); err != nil {
			return nil, fmt.Errorf("agent: schema of %s: %w", name, err)
		}
		defs = append(defs, providers.ToolDef{Name: name, Description: tools.AgentDescription(name), Parameters: schema})
	}
	return defs, nil
}

// systemPrompt is the run's system prompt: who the agent is, its
// workspace, its tools, and the workspace's bootstrap files.
func systemPrompt(env *tools.Env, agentID, extra string, defs []providers.ToolDef) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are a personal assistant running inside OpenClaw (agent %s).\n", agentID)
	fmt.Fprintf(&b, "Your working directory is the workspace %s; relative file paths resolve there.\n", env.Workspace)
	if len(defs) > 0 {
		b.WriteString("Tools available: ")
		for i, d := range defs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.Name)
		}
		b.WriteString(". Call a tool when it helps; answer in plain text when done.\n")
	}
	b.WriteString(fmt.Sprintf("Current time: %s.\n", time.Now().UTC().Format(time.RFC3339)))
	for _, name := range bootstrapFiles {
		text, ok := readCapped(filepath.Join(env.Workspace, name), bootstrapMaxChars)
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", name, text)
	}
	if sk := skills.PromptSection(skills.Inputs{Config: env.Config, StateDir: env.StateDir, Workspace: env.Workspace, AgentID: agentID}); sk != "" {
		b.WriteString("\n" + sk)
	}
	if extra = strings.TrimSpace(extra); extra != "" {
		b.WriteString("\n" + extra + "\n")
	}
	return b.String()
}

func readCapped(path string, n int) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(n)+1))
	if err != nil {
		return "", false
	}
	if len(b) > n {
		return string(b[:n]) + "\n[truncated]", true
	}
	return string(b), true
}

// toProvider turns a stored transcript into the model's messages: tool
// calls with their results; a result whose call is not in the window is
// dropped (providers refuse orphans), as is a call left without results.
func toProvider(msgs []sessions.Message) []providers.Message {
	var out []providers.Message
	open := map[string]bool{}
	for _, m := range msgs {
		switch m.Role {
		case "user":
			out = append(out, providers.Message{Role: "user", Parts: textParts(m.Text())})
		case "assistant":
			pm := providers.Message{Role: "assistant", Parts: textParts(m.Text())}
			for _, b := range m.Content {
				if b.Type == "toolCall" {
					pm.ToolCalls = append(pm.ToolCalls, providers.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Arguments)})
					open[b.ID] = true
				}
			}
			out = append(out, pm)
		case "toolResult":
			if open[m.ToolCallID] {
				out = append(out, providers.Message{Role: "tool", ToolCallID: m.ToolCallID, Parts: textParts(m.Text())})
				delete(open, m.ToolCallID)
			}
		}
	}
	if len(open) > 0 { // an interrupted turn: drop its unanswered calls
		for i := range out {
			var kept []providers.ToolCall
			for _, c := range out[i].ToolCalls {
				if !open[c.ID] {
					kept = append(kept, c)
				}
			}
			out[i].ToolCalls = kept
		}
	}
	return out
}
