package agentrun

import (
	"context"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

func init() {
	tools.Register(&tools.Action{
		Method: "chat.send", Where: tools.Gateway, Scope: protocol.ScopeWrite,
		Summary: "Start a chat turn on a session: acknowledged at once, the reply streams as chat and agent events",
		Schema: `{"type":"object","properties":{
			"sessionKey":{"type":"string","minLength":1,"maxLength":512},"message":{"type":"string","minLength":1},
			"idempotencyKey":{"type":"string","minLength":1},"agentId":{"type":"string"},"sessionId":{"type":"string"},
			"thinking":{"type":"string"},"deliver":{"type":"boolean"},"timeoutMs":{"type":"integer","minimum":0},
			"queueMode":{"type":"string"},"fastMode":{"type":"boolean"},"attachments":{"type":"array"}
		},"required":["sessionKey","message","idempotencyKey"],"additionalProperties":true}`,
		Run:    tools.Typed(chatSend),
		Hidden: true,
	})
	tools.Register(&tools.Action{
		Method: "chat.abort", Where: tools.Gateway, Scope: protocol.ScopeWrite,
		Summary: "Stop the runs in progress on a session (or one run)",
		Schema: `{"type":"object","properties":{
			"sessionKey":{"type":"string","minLength":1},"agentId":{"type":"string"},"runId":{"type":"string"}
		},"required":["sessionKey"],"additionalProperties":false}`,
		Run:    tools.Typed(chatAbort),
		Hidden: true,
	})
}

type chatSendParams struct {
	SessionKey     string `json:"sessionKey"`
	Message        string `json:"message"`
	IdempotencyKey string `json:"idempotencyKey"`
	AgentID        string `json:"agentId"`
	Deliver        bool   `json:"deliver"`
	TimeoutMs      int    `json:"timeoutMs"`
	Attachments    []any  `json:"attachments"`
}

// chatSend is the original's chat.send: {runId, status:"started"} at once;
// a repeat of the idempotency key answers {runId, status:"in_flight"}
// while the run goes on, its final once it ended.
func chatSend(ctx context.Context, env *tools.Env, p chatSendParams) (any, error) {
	s, err := Key.From(env, "chat.send")
	if err != nil {
		return nil, err
	}
	jobs, err := env.NeedJobs("chat.send")
	if err != nil {
		return nil, err
	}
	if len(p.Attachments) > 0 {
		return nil, tools.Errorf(tools.CodeInvalidParams, "chat.send: attachments are not supported yet; send text")
	}
	if strings.TrimSpace(p.Message) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "chat.send: message is empty")
	}
	agentID, key := target(env, p.AgentID, p.SessionKey)
	s.mu.Lock()
	prev, seen := s.idem[p.IdempotencyKey]
	s.mu.Unlock()
	if seen {
		if info, ok := jobs.Get(prev); ok {
			if info.Status == tools.JobRunning {
				return map[string]any{"runId": prev, "status": "in_flight"}, nil
			}
			return finalOf(prev, info), nil
		}
	}
	req := Request{Message: p.Message, AgentID: agentID, SessionKey: key, Timeout: time.Duration(p.TimeoutMs) * time.Millisecond,
		Scopes: env.Subject.RunScopes()} // the turn holds what this connection holds
	var after func(context.Context, *Outcome)
	if p.Deliver {
		// The reply goes to the session's own conversation: the chat its
		// key names, else its last delivery target.
		d := Delivery{SessionKey: key, AgentID: agentID}
		if err := s.CheckRoute(ctx, env, d); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "chat.send: deliver: session %s has no conversation to deliver to (%v); omit deliver", key, err)
		}
		denv := *env // the post happens after the request returned
		after = func(actx context.Context, out *Outcome) { s.deliverOutcome(actx, &denv, d, out) }
	}
	info, err := s.start(jobs, env, req, after)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.idem) >= 1000 { // the original's dedupe cache holds 1000
		clear(s.idem)
	}
	s.idem[p.IdempotencyKey] = info.ID
	s.mu.Unlock()
	return map[string]any{"runId": info.ID, "status": "started", "sessionKey": key}, nil
}

type chatAbortParams struct {
	SessionKey string `json:"sessionKey"`
	AgentID    string `json:"agentId"`
	RunID      string `json:"runId"`
}

// chatAbort cancels the session's runs in progress (only runId when
// given): each stops at its next step, its transcript keeps what was
// done, and it ends with summary aborted.
func chatAbort(ctx context.Context, env *tools.Env, p chatAbortParams) (any, error) {
	s, err := Key.From(env, "chat.abort")
	if err != nil {
		return nil, err
	}
	jobs, err := env.NeedJobs("chat.abort")
	if err != nil {
		return nil, err
	}
	_, key := target(env, p.AgentID, p.SessionKey)
	ids := []string{}
	for _, id := range s.Active(key) {
		if p.RunID != "" && id != p.RunID {
			continue
		}
		if err := jobs.Cancel(id); err == nil {
			ids = append(ids, id)
		}
	}
	return map[string]any{"ok": true, "aborted": len(ids) > 0, "runIds": ids}, nil
}
