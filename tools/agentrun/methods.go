package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// Key is the runtime's typed handle. Other families (cron's agentTurn)
// reach runs through the `agent` method, not this type.
var Key = tools.NewServiceKey[*Service]("agentrun")

// Service is the runtime inside a gateway: the runner and the runs in
// progress by session (chat.abort, the spawn caps).
type Service struct {
	runner *Runner
	env    *tools.Env

	// full is the handler Env (every service), set by Attach once the
	// gateway's services all run; runs this service starts by itself
	// (cron's agent turns) use it.
	full func() *tools.Env

	mu       sync.Mutex
	active   map[string]map[string]bool // session key -> run ids in progress
	children map[string]int             // requester key -> sub-agent runs in progress
	idem     map[string]string          // chat.send idempotencyKey -> run id
}

func init() {
	spec := Key.Spec(func(env *tools.Env) (*Service, error) {
		s, err := sessions.Key.From(env, "the agent runtime")
		if err != nil {
			return nil, err
		}
		return &Service{runner: NewRunner(s, env.Events), env: env, active: map[string]map[string]bool{},
			children: map[string]int{}, idem: map[string]string{}}, nil
	})
	spec.Requires = []string{"sessions"}
	tools.RegisterService(spec)

	tools.Register(&tools.Action{
		Method: "agent", Where: tools.Gateway, Scope: protocol.ScopeWrite,
		Summary: "Run an agent turn: accepted at once, the final answer on the same request",
		Schema: `{"type":"object","properties":{
			"message":{"type":"string","minLength":1,"description":"what to ask the agent"},
			"idempotencyKey":{"type":"string"},
			"agentId":{"type":"string","description":"the agent (default: the default agent)"},
			"sessionKey":{"type":"string","description":"the session (default agent:<id>:main)"},
			"model":{"type":"string","description":"provider/model for this run"},
			"provider":{"type":"string"},
			"timeout":{"type":"integer","minimum":0,"description":"seconds (default agents.defaults.timeoutSeconds)"},
			"extraSystemPrompt":{"type":"string"},
			"thinking":{"type":"string"},"deliver":{"type":"boolean"},"channel":{"type":"string"},"to":{"type":"string"},
			"accountId":{"type":"string"},"threadId":{"type":["string","number"]},"replyTo":{"type":"string"},
			"label":{"type":"string"},"lane":{"type":"string"},"sessionId":{"type":"string"},"bestEffortDeliver":{"type":"boolean"}
		},"required":["message"],"additionalProperties":true}`,
		Run:    tools.Typed(runAgent),
		Render: renderOutcome,
		Hidden: true,
	})
	tools.Register(&tools.Action{
		Method: "agent.wait", Where: tools.Gateway, Scope: protocol.ScopeWrite,
		Summary: "Wait for an agent run to end",
		Schema: `{"type":"object","properties":{
			"runId":{"type":"string","minLength":1},"timeoutMs":{"type":"integer","minimum":0}
		},"required":["runId"],"additionalProperties":false}`,
		Run:    tools.Typed(waitAgent),
		Hidden: true,
	})
}

type agentParams struct {
	Message           string `json:"message"`
	AgentID           string `json:"agentId"`
	SessionKey        string `json:"sessionKey"`
	SessionID         string `json:"sessionId"`
	Model             string `json:"model"`
	Provider          string `json:"provider"`
	Timeout           int    `json:"timeout"`
	ExtraSystemPrompt string `json:"extraSystemPrompt"`
	Deliver           bool   `json:"deliver"`
	BestEffortDeliver bool   `json:"bestEffortDeliver"`
	Channel           string `json:"channel"`
	To                string `json:"to"`
	AccountID         string `json:"accountId"`
	ThreadID          any    `json:"threadId"`
	ReplyTo           string `json:"replyTo"`
}

// target is the agent and canonical session key a request names: the
// key's agent unless agentId says otherwise, the agent's main session
// when no key is given.
func target(env *tools.Env, agentID, key string) (string, string) {
	if agentID == "" && key != "" {
		agentID = sessions.AgentOf(sessions.Canonical(key, tools.DefaultAgentID(env.Config)))
	}
	if agentID == "" {
		agentID = tools.DefaultAgentID(env.Config)
	}
	agentID = sessions.NormalizeAgentID(agentID)
	key = sessions.Canonical(key, agentID)
	if key == "" {
		key = sessions.MainKey(agentID)
	}
	return agentID, key
}

func (s *Service) track(key, runID string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		if s.active[key] == nil {
			s.active[key] = map[string]bool{}
		}
		s.active[key][runID] = true
		return
	}
	delete(s.active[key], runID)
	if len(s.active[key]) == 0 {
		delete(s.active, key)
	}
}

// Active is the run ids in progress on key.
func (s *Service) Active(key string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id := range s.active[key] {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// start runs req as a gateway job (kind agent; agent.wait and chat.abort
// find it by its id). after, when set, runs in the job once the run
// ended (however it ended), with a context that outlives an abort
// (announce steps).
func (s *Service) start(jobs tools.Jobs, base *tools.Env, req Request, after func(ctx context.Context, out *Outcome)) (tools.JobInfo, error) {
	// Every turn (agent, chat.send, a session send, a spawn, a cron job,
	// an announce) is for a configured agent: an unknown id would run
	// under the defaults' tool policy, which nobody chose for it.
	if err := tools.CheckAgentID(base.Config, req.AgentID); err != nil {
		return tools.JobInfo{}, err
	}
	idc := make(chan string, 1)
	b := *base
	info, err := jobs.Start(tools.JobSpec{Kind: "agent", Owner: req.SessionKey, Run: func(jctx context.Context, _ tools.Sink) (any, error) {
		id := <-idc
		defer s.track(req.SessionKey, id, false)
		out, err := s.runner.Run(jctx, &b, id, req)
		if after != nil {
			end := out
			if err != nil { // the run could not start (the store failed)
				end = &Outcome{RunID: id, Status: "error", Summary: "failed", Error: err.Error(), SessionKey: req.SessionKey, AgentID: req.AgentID}
			}
			after(context.WithoutCancel(jctx), end)
		}
		return out, err
	}})
	if err != nil {
		return info, err
	}
	s.track(req.SessionKey, info.ID, true)
	idc <- info.ID
	return info, nil
}

func runAgent(ctx context.Context, env *tools.Env, p agentParams) (any, error) {
	s, err := Key.From(env, "agent")
	if err != nil {
		return nil, err
	}
	jobs, err := env.NeedJobs("agent")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Message) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "agent: message is empty")
	}
	model := p.Model
	if p.Provider != "" && model != "" && !strings.Contains(model, "/") {
		model = p.Provider + "/" + model
	}
	key := p.SessionKey
	if key == "" && p.SessionID != "" {
		if e, err := s.runner.Sessions.BySessionID(ctx, p.SessionID); err == nil {
			key = e.Key
		}
	}
	agentID, key := target(env, p.AgentID, key)
	req := Request{Message: p.Message, AgentID: agentID, SessionKey: key, Model: model,
		ExtraSystemPrompt: p.ExtraSystemPrompt, Timeout: time.Duration(p.Timeout) * time.Second,
		Scopes: env.Subject.RunScopes()} // the turn holds what this connection holds
	var after func(context.Context, *Outcome)
	if p.Deliver {
		d := Delivery{Channel: p.Channel, To: strings.TrimSpace(p.To), AccountID: p.AccountID, ThreadID: idString(p.ThreadID),
			ReplyTo: p.ReplyTo, SessionKey: key, AgentID: agentID}
		if err := s.CheckRoute(ctx, env, d); err != nil && !p.BestEffortDeliver {
			return nil, tools.Errorf(tools.CodeInvalidParams, "agent: deliver: no route to deliver the reply to (%v); pass channel and to, or bestEffortDeliver", err)
		}
		denv := *env // the post happens after the request returned
		after = func(actx context.Context, out *Outcome) { s.deliverOutcome(actx, &denv, d, out) }
	}
	// The run uses the gateway's services, not the connection (agentEnv
	// drops it, keeping only its scopes): it outlives the request.
	info, err := s.start(jobs, env, req, after)
	if err != nil {
		return nil, err
	}
	runID := info.ID
	return &tools.Deferred{
		Accepted: map[string]any{"runId": runID, "taskId": runID, "status": "accepted", "acceptedAt": info.StartedAt.UnixMilli(),
			"sessionKey": key, "agentId": agentID},
		Final: func(ctx context.Context) (any, error) {
			end, err := tools.WaitJob(ctx, jobs, runID)
			if err != nil {
				return nil, err
			}
			return finalOf(runID, end), nil
		},
	}, nil
}

// finalOf is the final answer of an ended job: its Outcome, or an error
// outcome for a job that failed or was cancelled.
func finalOf(runID string, end tools.JobInfo) any {
	if end.Status == tools.JobOK && len(end.Result) > 0 {
		return json.RawMessage(end.Result)
	}
	msg := "the run ended: " + end.Status
	if end.Error != nil {
		msg = end.Error.Message
	}
	summary := "failed"
	if end.Status == tools.JobCancelled || end.Status == tools.JobInterrupted {
		summary = "aborted"
	}
	return map[string]any{"runId": runID, "status": "error", "summary": summary, "error": msg}
}

type waitParams struct {
	RunID     string `json:"runId"`
	TimeoutMs *int   `json:"timeoutMs"`
}

func waitAgent(ctx context.Context, env *tools.Env, p waitParams) (any, error) {
	jobs, err := env.NeedJobs("agent.wait")
	if err != nil {
		return nil, err
	}
	info, ok := jobs.Get(p.RunID)
	if !ok || info.Kind != "agent" {
		return nil, tools.Errorf(tools.CodeNotFound, "agent run not found: %s", p.RunID)
	}
	timeout := 30 * time.Second
	if p.TimeoutMs != nil {
		timeout = time.Duration(*p.TimeoutMs) * time.Millisecond
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	end, err := tools.WaitJob(wctx, jobs, p.RunID)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return map[string]any{"runId": p.RunID, "status": "timeout", "startedAt": info.StartedAt.UnixMilli()}, nil
		}
		return nil, err
	}
	out := map[string]any{"runId": p.RunID, "startedAt": end.StartedAt.UnixMilli(), "endedAt": end.EndedAt.UnixMilli()}
	fin, _ := json.Marshal(finalOf(p.RunID, end))
	r := gjson.ParseBytes(fin)
	out["status"] = r.Get("status").String()
	if v := r.Get("error").String(); v != "" {
		out["error"] = v
	}
	if v := r.Get("stopReason").String(); v != "" {
		out["stopReason"] = v
	}
	return out, nil
}

// renderOutcome prints a final answer for a person: the reply text, then
// a line naming the tool calls and the session.
func renderOutcome(w io.Writer, r gjson.Result) error {
	if r.Get("status").String() == "accepted" {
		_, err := fmt.Fprintf(w, "accepted: run %s (session %s)\n", r.Get("runId").String(), r.Get("sessionKey").String())
		return err
	}
	for _, p := range r.Get("result.payloads").Array() {
		if _, err := fmt.Fprintln(w, p.Get("text").String()); err != nil {
			return err
		}
	}
	if st := r.Get("status").String(); st != "ok" {
		if _, err := fmt.Fprintf(w, "%s: %s\n", st, r.Get("error").String()); err != nil {
			return err
		}
	}
	var names []string
	for _, c := range r.Get("toolCalls").Array() {
		names = append(names, c.Get("name").String())
	}
	tail := ""
	if len(names) > 0 {
		tail = "; tools: " + strings.Join(names, ", ")
	}
	_, err := fmt.Fprintf(w, "(session %s, %d step(s)%s)\n", r.Get("sessionKey").String(), r.Get("steps").Int(), tail)
	return err
}

// Attach takes the handler Env (tools.Attacher).
func (s *Service) Attach(env func() *tools.Env) {
	s.mu.Lock()
	s.full = env
	s.mu.Unlock()
}

// Turn is an agent turn another family asks for (cron's agentTurn
// payloads).
type Turn struct {
	Message    string
	AgentID    string
	SessionKey string
	Model      string
	Timeout    time.Duration
	// Extra is appended to the system prompt.
	Extra string
	// Scopes are what the turn holds: those recorded for whoever asked
	// for it (a cron job's creator); empty holds tools.LeastRunScopes.
	Scopes []string
}

// RunTurn runs t as an agent job (agent.wait and chat.abort see it, its
// transcript is the session's) with the gateway's full Env, and waits for
// its end or ctx. The Outcome says how it ended.
func (s *Service) RunTurn(ctx context.Context, t Turn) (*Outcome, error) {
	s.mu.Lock()
	full := s.full
	s.mu.Unlock()
	env := s.env
	if full != nil {
		env = full()
	}
	jobs, err := env.NeedJobs("agent turn")
	if err != nil {
		return nil, err
	}
	agentID, key := target(env, t.AgentID, t.SessionKey)
	info, err := s.start(jobs, env, Request{Message: t.Message, AgentID: agentID, SessionKey: key, Model: t.Model,
		Timeout: t.Timeout, ExtraSystemPrompt: t.Extra, Scopes: t.Scopes}, nil)
	if err != nil {
		return nil, err
	}
	end, err := tools.WaitJob(ctx, jobs, info.ID)
	if err != nil {
		_ = jobs.Cancel(info.ID)
		return nil, err
	}
	if out, ok := outcomeOf(end); ok {
		return out, nil
	}
	msg := "the run ended: " + end.Status
	if end.Error != nil {
		msg = end.Error.Message
	}
	return &Outcome{RunID: info.ID, Status: "error", Summary: "failed", Error: msg, SessionKey: key, AgentID: agentID}, nil
}

// SetPrelude makes every later turn start with p's text (tools/cron feeds
// a session's queued system events this way).
func (s *Service) SetPrelude(p Prelude) { s.runner.prelude.Store(&p) }

// Start and Stop: runs are gateway jobs; the job runner stops them.
func (s *Service) Start(context.Context) error { return nil }
func (s *Service) Stop(context.Context) error  { return nil }
