package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// The agent-to-agent flow's markers and limits (spec §3.6).
const (
	ReplySkip          = "REPLY_SKIP"
	AnnounceSkip       = "ANNOUNCE_SKIP"
	defaultSendTimeout = 30
	defaultPingPong    = 5
	maxPingPong        = 5
)

func init() {
	tools.Register(&tools.Action{
		Tool: "sessions_send", Where: tools.Gateway, Scope: protocol.ScopeWrite, OpenWorld: true,
		Summary: "Send a message to another session and wait for its reply",
		Description: "Send a message into another session (sessionKey, or label [+ agentId], or agentId alone for that agent's main session). " +
			"Waits up to timeoutSeconds (default 30) for the reply; 0 sends and returns at once. Afterwards the two sessions may " +
			"reply back and forth (session.agentToAgent.maxPingPongTurns, 0-5): reply exactly REPLY_SKIP to stop, and ANNOUNCE_SKIP " +
			"at the announce step to stay silent.",
		Schema: `{"type":"object","properties":{
			"sessionKey":{"type":"string","description":"the target session's key (or sessionId)"},
			"label":{"type":"string","description":"the target session's label"},
			"agentId":{"type":"string","description":"scopes the label lookup; alone, targets that agent's main session"},
			"message":{"type":"string","description":"what to send"},
			"timeoutSeconds":{"type":"integer","minimum":0,"description":"seconds to wait for the reply (default 30; 0 = fire and forget)"}
		},"additionalProperties":true}`,
		Run:    sessionsSend,
		Render: renderJSONDetails,
	})
}

type sendParams struct {
	SessionKey     string `json:"sessionKey"`
	Label          string `json:"label"`
	AgentID        string `json:"agentId"`
	Message        string `json:"message"`
	TimeoutSeconds *int   `json:"timeoutSeconds"`
}

// a2aAllowed is tools.agentToAgent for a cross-agent send: enabled, and
// both agents matching allow (exact ids, or * patterns case-insensitive;
// empty allows everyone).
func a2aAllowed(cfg *config.Config, from, to string) (bool, string) {
	if !cfg.Bool("tools.agentToAgent.enabled", false) {
		return false, "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends."
	}
	var allow []string
	_ = cfg.Decode("tools.agentToAgent.allow", &allow)
	if len(allow) == 0 {
		return true, ""
	}
	match := func(id string) bool {
		for _, a := range allow {
			if a == id {
				return true
			}
			if strings.Contains(a, "*") {
				if ok, _ := path.Match(strings.ToLower(a), strings.ToLower(id)); ok {
					return true
				}
			}
		}
		return false
	}
	if match(from) && match(to) {
		return true, ""
	}
	return false, "Agent-to-agent messaging denied by tools.agentToAgent.allow."
}

func sessionsSend(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	var p sendParams
	if err := decodeLoose(raw, &p); err != nil {
		return nil, err
	}
	if p.Message == "" { // the original folds these aliases into message
		var alias struct {
			SendMessage string `json:"SendMessage"`
			Content     string `json:"content"`
			Text        string `json:"text"`
		}
		_ = decodeLoose(raw, &alias)
		p.Message = firstNonEmpty(alias.SendMessage, alias.Content, alias.Text)
	}
	if strings.TrimSpace(p.Message) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_send: message is required")
	}
	s, err := Key.From(env, "sessions_send")
	if err != nil {
		return nil, err
	}
	jobs, err := env.NeedJobs("sessions_send")
	if err != nil {
		return nil, err
	}
	store := s.runner.Sessions
	c := sessions.CallerOf(env)
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	forbidden := func(msg string) (any, error) {
		return tools.JSONResult(map[string]any{"status": "forbidden", "error": msg})
	}
	var key string
	switch {
	case p.SessionKey != "":
		e, err := sessions.Resolve(ctx, store, c, p.SessionKey)
		switch {
		case err == nil:
			key = e.Key
		case tools.AsError(err) != nil && tools.AsError(err).Code == tools.CodeNotFound:
			// A configured agent's main session that has no row yet is
			// created, as the original does; anything else is unknown.
			k := sessions.Canonical(p.SessionKey, c.Agent())
			if k != sessions.MainKey(sessions.AgentOf(k)) {
				return nil, err
			}
			key = k
		default:
			return nil, err
		}
	case p.Label != "":
		rows, _, err := store.List(ctx, sessions.Filter{Label: p.Label, AgentID: p.AgentID, Limit: 2})
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, tools.Errorf(tools.CodeNotFound, "sessions_send: no session with label %q", p.Label)
		}
		key = rows[0].Key
	case p.AgentID != "":
		key = sessions.MainKey(p.AgentID)
	default:
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_send: give sessionKey, label or agentId")
	}
	requester := c.SessionKey()
	if key == requester {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_send: %s is the current session; send to another one", key)
	}
	targetAgent := sessions.AgentOf(key)
	if c.IsAgent() {
		if targetAgent != c.Agent() {
			if ok, msg := a2aAllowed(cfg, c.Agent(), targetAgent); !ok {
				return forbidden(msg)
			}
		} else if e, err := store.Get(ctx, key); err == nil && !c.Visible(e) {
			return forbidden(fmt.Sprintf("Session %s is not visible from this session (tools.sessions.visibility=%s).", p.SessionKey, c.Visibility()))
		}
	}
	display := key
	if c.IsAgent() {
		display = sessions.Display(key, c.Agent())
	}
	timeout := defaultSendTimeout
	if p.TimeoutSeconds != nil {
		timeout = *p.TimeoutSeconds
	}
	turns := min(max(cfg.Int("session.agentToAgent.maxPingPongTurns", defaultPingPong), 0), maxPingPong)
	a2a := "Agent-to-agent message context:\n"
	if requester != "" {
		a2a += fmt.Sprintf("Agent 1 (requester) session: %s.\n", requester)
	} else {
		a2a += "Agent 1 (requester): an operator outside any session.\n"
	}
	a2a += fmt.Sprintf("Agent 2 (target) session: %s.\n", key)
	// The target's turn acts for this caller: it holds the caller's scopes
	// (a turn's own, never wider), whoever started the target session.
	req := Request{Message: p.Message, AgentID: targetAgent, SessionKey: key, ExtraSystemPrompt: a2a, Scopes: env.Subject.RunScopes()}
	base := *env
	after := func(actx context.Context, out *Outcome) {
		if out.Status != "ok" {
			return
		}
		s.a2aFlow(actx, jobs, &base, requester, key, p.Message, replyOf(out), turns)
	}
	info, err := s.start(jobs, env, req, after)
	if err != nil {
		return nil, err
	}
	if timeout == 0 {
		return tools.JSONResult(map[string]any{"runId": info.ID, "status": "accepted", "sessionKey": display})
	}
	wctx, cancel := context.WithTimeout(ctx, time.Duration(timeout)*time.Second)
	defer cancel()
	end, err := tools.WaitJob(wctx, jobs, info.ID)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return tools.JSONResult(map[string]any{"runId": info.ID, "status": "timeout", "sessionKey": display,
				"error": fmt.Sprintf("no reply within %ds; the run goes on (agent.wait %s)", timeout, info.ID)})
		}
		return nil, err
	}
	res := map[string]any{"runId": info.ID, "sessionKey": display}
	out, ok := outcomeOf(end)
	switch {
	case !ok:
		res["status"], res["error"] = "error", "the run ended: "+end.Status
	case out.Status == "ok":
		res["status"], res["reply"] = "ok", replyOf(out)
	default:
		res["status"], res["error"] = out.Status, out.Error
	}
	return tools.JSONResult(res)
}

// a2aFlow is what follows a sessions_send's primary run (spec §3.6 steps
// 4 and 5): the requester and the target take turns replying, up to turns,
// until one answers REPLY_SKIP; then the target's announce step, where
// ANNOUNCE_SKIP stays silent. It runs as a job of its own, after the
// primary run, whoever waited for it.
func (s *Service) a2aFlow(ctx context.Context, jobs tools.Jobs, base *tools.Env, requester, targetKey, request, first string, turns int) {
	if requester == "" || requester == targetKey || first == "" {
		return
	}
	_, _ = jobs.Start(tools.JobSpec{Kind: "agent.a2a", Owner: requester, Run: func(jctx context.Context, _ tools.Sink) (any, error) {
		latest, incoming := first, first
		cur, other := requester, targetKey
		steps := 0
		for turn := 1; turn <= turns; turn++ {
			role := "Agent 1 (requester)"
			if cur == targetKey {
				role = "Agent 2 (target)"
			}
			prompt := fmt.Sprintf("Agent-to-agent reply step:\nCurrent agent: %s.\nTurn %d of %d.\nAgent 1 (requester) session: %s.\n"+
				"Agent 2 (target) session: %s.\nIf you want to stop the ping-pong, reply exactly \"%s\".", role, turn, turns, requester, targetKey, ReplySkip)
			out, err := s.step(jctx, jobs, base, cur, incoming, prompt)
			if err != nil {
				return nil, err
			}
			steps++
			reply := strings.TrimSpace(replyOf(out))
			if out.Status != "ok" || reply == "" || reply == ReplySkip {
				break
			}
			latest, incoming = reply, reply
			cur, other = other, cur
		}
		prompt := fmt.Sprintf("Agent-to-agent announce step:\nAgent 1 (requester) session: %s.\nAgent 2 (target) session: %s.\n"+
			"Original request: %s\nRound 1 reply: %s\nLatest reply: %s\nIf you want to remain silent, reply exactly \"%s\".\n"+
			"Any other reply will be posted to the target channel.", requester, targetKey, request, first, latest, AnnounceSkip)
		out, err := s.step(jctx, jobs, base, targetKey, "Agent-to-agent announce step.", prompt)
		if err != nil {
			return nil, err
		}
		announced := strings.TrimSpace(replyOf(out))
		res := map[string]any{"requester": requester, "target": targetKey, "pingPongSteps": steps,
			"announce": announced, "announced": announced != "" && announced != AnnounceSkip}
		// "Any other reply will be posted to the target channel": when the
		// target session is bound to a conversation.
		if st := s.postIfBound(context.WithoutCancel(jctx), base, targetKey, out); st != "" {
			res["deliveryStatus"] = st
			if e := out.Result.Meta.DeliveryError; e != "" {
				res["deliveryError"] = e
			}
		}
		return res, nil
	}})
}

// step runs one turn of the flow as an agent job and waits for it.
func (s *Service) step(ctx context.Context, jobs tools.Jobs, base *tools.Env, key, message, extra string) (*Outcome, error) {
	info, err := s.start(jobs, base, Request{Message: message, AgentID: sessions.AgentOf(key), SessionKey: key, ExtraSystemPrompt: extra,
		Scopes: base.Subject.RunScopes()}, nil) // every step holds the sender's scopes
	if err != nil {
		return nil, err
	}
	end, err := tools.WaitJob(ctx, jobs, info.ID)
	if err != nil {
		return nil, err
	}
	out, ok := outcomeOf(end)
	if !ok {
		return &Outcome{RunID: info.ID, Status: "error", Error: "the run ended: " + end.Status}, nil
	}
	return out, nil
}
