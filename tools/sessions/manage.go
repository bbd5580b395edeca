package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
)

// Session maintenance defaults (the original's session.maintenance).
const (
	defaultPruneAfter = 30 * 24 * time.Hour
	defaultMaxEntries = 500
	chatHistoryLimit  = 200
	chatHistoryMax    = 1000
)

func init() {
	tools.Register(&tools.Action{
		Tool: "session_status", Where: tools.Gateway, Scope: protocol.ScopeRead, Idempotent: true,
		Summary: "Show a session's status card; set or clear its model override",
		Description: "Show the status of a session (default: the current one; a key or a sessionId): model, tokens, " +
			"thinking level, run state. model sets a per-session model override (provider/model); \"default\" clears it.",
		Schema: `{"type":"object","properties":{
			"sessionKey":{"type":"string","description":"session key or sessionId (default: the current session)"},
			"model":{"type":"string","description":"provider/model to use from now on in this session; \"default\" clears the override"}
		},"additionalProperties":false}`,
		Run:    tools.Typed(sessionStatus),
		Render: renderStatus,
	})
	tools.Register(&tools.Action{
		Method: "chat.history", Where: tools.Gateway, Scope: protocol.ScopeRead,
		Summary: "A session's transcript for chat clients",
		Schema: `{"type":"object","properties":{
			"sessionKey":{"type":"string","minLength":1},"agentId":{"type":"string"},"sessionId":{"type":"string"},
			"limit":{"type":"integer","minimum":1},"maxChars":{"type":"integer","minimum":1}
		},"required":["sessionKey"],"additionalProperties":true}`,
		Run:    tools.Typed(chatHistory),
		Render: renderHistory,
		Hidden: true,
	})
	tools.Register(&tools.Action{
		// The original's scope is dynamic (write for these fields).
		Method: "sessions.patch", Where: tools.Gateway, Scope: protocol.ScopeWrite,
		Summary: "Change a session's label, thinking level or model override",
		Schema: `{"type":"object","properties":{
			"key":{"type":"string","minLength":1},"agentId":{"type":"string"},
			"label":{"type":["string","null"]},"thinkingLevel":{"type":["string","null"]},"model":{"type":["string","null"]},
			"displayName":{"type":["string","null"]}
		},"required":["key"],"additionalProperties":true}`,
		Run:    patchSession,
		Hidden: true,
	})
	tools.Register(&tools.Action{
		Method: "sessions.reset", Where: tools.Gateway, Scope: protocol.ScopeAdmin,
		Summary: "Start a session over (new sessionId; the old transcript is archived)",
		Schema: `{"type":"object","properties":{
			"key":{"type":"string","minLength":1},"agentId":{"type":"string"},"reason":{"type":"string","enum":["new","reset"]},
			"expectedSessionId":{"type":"string"}
		},"required":["key"],"additionalProperties":false}`,
		Run:    tools.Typed(resetSession),
		Hidden: true,
	})
	tools.Register(&tools.Action{
		Method: "sessions.delete", Where: tools.Gateway, Scope: protocol.ScopeAdmin,
		Summary: "Delete a session and its transcript",
		Schema: `{"type":"object","properties":{
			"key":{"type":"string","minLength":1},"agentId":{"type":"string"},"deleteTranscript":{"type":"boolean"}
		},"required":["key"],"additionalProperties":true}`,
		Run:    tools.Typed(deleteSession),
		Hidden: true,
	})
	tools.Register(&tools.Action{
		Method: "sessions.cleanup", Where: tools.Gateway, Scope: protocol.ScopeAdmin,
		Summary: "Apply session maintenance (prune by age, cap by count)",
		Schema: `{"type":"object","properties":{
			"agent":{"type":"string"},"allAgents":{"type":"boolean"},"enforce":{"type":"boolean"},"activeKey":{"type":"string"},
			"fixMissing":{"type":"boolean"},"fixDmScope":{"type":"boolean"}
		},"additionalProperties":false}`,
		Run:    tools.Typed(cleanupSessions),
		Hidden: true,
	})
}

type statusParams struct {
	SessionKey string  `json:"sessionKey"`
	Model      *string `json:"model"`
}

func sessionStatus(ctx context.Context, env *tools.Env, p statusParams) (any, error) {
	s, err := service(env, "session_status")
	if err != nil {
		return nil, err
	}
	c := callerOf(env)
	ref := p.SessionKey
	if ref == "" || ref == "current" {
		ref = c.sessionKey
		if ref == "" {
			ref = MainKey(c.agent)
		}
	}
	e, err := resolve(ctx, s, c, ref)
	if err != nil {
		return nil, err
	}
	if !c.visible(e) {
		return tools.JSONResult(map[string]any{"status": "forbidden",
			"error": fmt.Sprintf("Session %s is not visible from this session (tools.sessions.visibility=%s).", ref, c.visibility)})
	}
	changed := ""
	if p.Model != nil {
		m := strings.TrimSpace(*p.Model)
		if strings.EqualFold(m, "default") || m == "" {
			m = ""
		} else if r, err := listedModel(cfgOf(env), m); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "session_status: model %s: %v", m, err)
		} else {
			m = r.String()
		}
		if e, err = s.Update(ctx, e.Key, func(e *Entry) { e.ModelOverride = m }); err != nil {
			return nil, err
		}
		changed = "model override cleared"
		if m != "" {
			changed = "model override set to " + m
		}
	}
	n, err := s.CountMessages(ctx, e.Key)
	if err != nil {
		return nil, err
	}
	key := e.Key
	if c.isAgent {
		key = Display(key, c.agent)
	}
	model := EffectiveModel(env.Config, e)
	var b strings.Builder
	fmt.Fprintf(&b, "Session: %s (%s)\n", key, e.SessionID)
	fmt.Fprintf(&b, "Model: %s", nonEmpty(model, "none configured"))
	if e.ModelOverride != "" {
		b.WriteString(" (override)")
	}
	fmt.Fprintf(&b, "\nTokens: %d in / %d out\n", e.InputTokens, e.OutputTokens)
	fmt.Fprintf(&b, "Thinking: %s\n", nonEmpty(e.ThinkingLevel, "off"))
	fmt.Fprintf(&b, "Messages: %d\n", n)
	fmt.Fprintf(&b, "Run: %s\n", nonEmpty(e.Status, "idle"))
	fmt.Fprintf(&b, "Updated: %s\n", time.UnixMilli(e.UpdatedAt).UTC().Format(time.RFC3339))
	if changed != "" {
		b.WriteString(changed + "\n")
	}
	details := map[string]any{"ok": true, "sessionKey": key, "sessionId": e.SessionID, "model": nullable(model),
		"modelOverride": nullable(e.ModelOverride), "thinkingLevel": nullable(e.ThinkingLevel), "status": nonEmpty(e.Status, "idle"),
		"inputTokens": e.InputTokens, "outputTokens": e.OutputTokens, "totalTokens": e.TotalTokens, "messageCount": n,
		"updatedAt": e.UpdatedAt, "statusText": b.String()}
	if changed != "" {
		details["changed"] = changed
	}
	return tools.TextResult(b.String(), details), nil
}

// listedModel resolves a model override: its provider must be configured
// (or built in) and, when the provider lists its models, list it.
func listedModel(cfg *config.Config, ref string) (providers.Ref, error) {
	_, settings, r, err := providers.Resolve(cfg, ref)
	if err != nil {
		return r, err
	}
	return r, providers.CheckListed(settings, r)
}

// EffectiveModel is the model a session's next turn uses: its override,
// else the agent's model (agents.list[].model, agents.defaults.model).
func EffectiveModel(cfg *config.Config, e *Entry) string {
	if e.ModelOverride != "" {
		return e.ModelOverride
	}
	return AgentModel(cfg, AgentOf(e.Key))
}

// AgentModel is agents.list[].model of agentID (a string or {primary}),
// else agents.defaults.model.
func AgentModel(cfg *config.Config, agentID string) string {
	if cfg == nil {
		cfg = config.Empty()
	}
	var list []struct {
		ID    string `json:"id"`
		Model any    `json:"model"`
	}
	_ = cfg.Decode("agents.list", &list)
	for _, a := range list {
		if NormalizeAgentID(a.ID) != agentID || a.Model == nil {
			continue
		}
		switch m := a.Model.(type) {
		case string:
			if m != "" {
				return m
			}
		case map[string]any:
			if p, _ := m["primary"].(string); p != "" {
				return p
			}
		}
	}
	return providers.DefaultModel(cfg)
}

func cfgOf(env *tools.Env) *config.Config {
	if env.Config == nil {
		return config.Empty()
	}
	return env.Config
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func renderStatus(w io.Writer, res gjson.Result) error {
	d := res.Get("details")
	if !d.Exists() {
		d = res
	}
	if d.Get("status").String() == "forbidden" {
		_, err := fmt.Fprintln(w, d.Get("error").String())
		return err
	}
	_, err := fmt.Fprint(w, d.Get("statusText").String())
	return err
}

// keyOf canonicalises a method's key for the operator: a bare key belongs
// to agentId (default: the default agent).
func keyOf(env *tools.Env, key, agentID string) string {
	if agentID == "" {
		agentID = tools.DefaultAgentID(cfgOf(env))
	}
	return Canonical(strings.TrimSpace(key), NormalizeAgentID(agentID))
}

type chatHistoryParams struct {
	SessionKey string `json:"sessionKey"`
	AgentID    string `json:"agentId"`
	Limit      int    `json:"limit"`
	MaxChars   int    `json:"maxChars"`
}

// chatHistory is the original's chat.history: the transcript (tool calls
// and results included, as its chat clients render them), oldest first.
// A session with no row yet has no messages, not an error, as the
// original answers for a fresh main session.
func chatHistory(ctx context.Context, env *tools.Env, p chatHistoryParams) (any, error) {
	s, err := service(env, "chat.history")
	if err != nil {
		return nil, err
	}
	key := keyOf(env, p.SessionKey, p.AgentID)
	limit := p.Limit
	if limit <= 0 {
		limit = chatHistoryLimit
	}
	limit = min(limit, chatHistoryMax)
	out := map[string]any{"sessionKey": key, "messages": []Message{}}
	e, err := s.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	msgs, err := s.History(ctx, key, limit, true)
	if err != nil {
		return nil, err
	}
	if p.MaxChars > 0 {
		for i := range msgs {
			for j := range msgs[i].Content {
				if b := &msgs[i].Content[j]; len(b.Text) > p.MaxChars {
					b.Text = b.Text[:p.MaxChars] + "…"
				}
			}
		}
	}
	if msgs != nil {
		out["messages"] = msgs
	}
	out["sessionId"] = e.SessionID
	if e.ThinkingLevel != "" {
		out["thinkingLevel"] = e.ThinkingLevel
	}
	return out, nil
}

// patchSession is sessions.patch: a field given as null clears it; model
// is checked against the configured providers (an unknown one is
// INVALID_PARAMS, as the original refuses it).
func patchSession(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	s, err := service(env, "sessions.patch")
	if err != nil {
		return nil, err
	}
	r := gjson.ParseBytes(raw)
	key := keyOf(env, r.Get("key").String(), r.Get("agentId").String())
	if key == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions.patch: key is required")
	}
	var model *string
	if v := r.Get("model"); v.Exists() {
		m := ""
		if v.Type != gjson.Null && !strings.EqualFold(strings.TrimSpace(v.String()), "default") {
			ref, err := listedModel(cfgOf(env), strings.TrimSpace(v.String()))
			if err != nil {
				return nil, tools.Errorf(tools.CodeInvalidParams, "sessions.patch: model %s: %v", v.String(), err)
			}
			m = ref.String()
		}
		model = &m
	}
	str := func(name string, dst *string) {
		if v := r.Get(name); v.Exists() {
			*dst = ""
			if v.Type != gjson.Null {
				*dst = strings.TrimSpace(v.String())
			}
		}
	}
	if _, err := s.Ensure(ctx, key, nil); err != nil {
		return nil, err
	}
	e, err := s.Update(ctx, key, func(e *Entry) {
		str("label", &e.Label)
		str("displayName", &e.DisplayName)
		str("thinkingLevel", &e.ThinkingLevel)
		if model != nil {
			e.ModelOverride = *model
		}
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"ok": true, "key": key, "entry": e}
	if m := EffectiveModel(env.Config, e); m != "" {
		if ref, err := providers.ParseRef(m); err == nil {
			out["resolved"] = map[string]any{"model": ref.Model, "modelProvider": ref.Provider}
		}
	}
	return out, nil
}

type resetParams struct {
	Key               string `json:"key"`
	AgentID           string `json:"agentId"`
	Reason            string `json:"reason"`
	ExpectedSessionID string `json:"expectedSessionId"`
}

func resetSession(ctx context.Context, env *tools.Env, p resetParams) (any, error) {
	s, err := service(env, "sessions.reset")
	if err != nil {
		return nil, err
	}
	key := keyOf(env, p.Key, p.AgentID)
	e, err := s.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		if e, err = s.Ensure(ctx, key, nil); err != nil {
			return nil, err
		}
		return map[string]any{"ok": true, "key": key, "entry": e}, nil
	}
	if err != nil {
		return nil, err
	}
	if p.ExpectedSessionID != "" && p.ExpectedSessionID != e.SessionID {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions.reset: session %s is now %s, not %s", key, e.SessionID, p.ExpectedSessionID)
	}
	if e.Status == "running" {
		return nil, tools.Errorf(tools.CodeFailed, "sessions.reset: session %s has a run in progress; abort it first (chat.abort)", key)
	}
	if e, err = s.Reset(ctx, key); err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": key, "entry": e}, nil
}

type deleteParams struct {
	Key     string `json:"key"`
	AgentID string `json:"agentId"`
}

func deleteSession(ctx context.Context, env *tools.Env, p deleteParams) (any, error) {
	s, err := service(env, "sessions.delete")
	if err != nil {
		return nil, err
	}
	key := keyOf(env, p.Key, p.AgentID)
	if key == MainKey(AgentOf(key)) {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions.delete: %s is an agent's main session; reset it instead (sessions.reset)", key)
	}
	if e, err := s.Get(ctx, key); err == nil && e.Status == "running" {
		return nil, tools.Errorf(tools.CodeFailed, "sessions.delete: session %s has a run in progress; abort it first (chat.abort)", key)
	}
	deleted, err := s.Delete(ctx, key)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": key, "deleted": deleted}, nil
}

type cleanupParams struct {
	Agent     string `json:"agent"`
	AllAgents bool   `json:"allAgents"`
	Enforce   bool   `json:"enforce"`
	ActiveKey string `json:"activeKey"`
}

// cleanupSessions is sessions.cleanup: session.maintenance's pruning
// (entries not updated for pruneAfter, default 30 days) and cap
// (maxEntries per agent, default 500, newest kept). It removes only in
// enforce mode (the param, or session.maintenance.mode "enforce"); in warn
// mode it reports what enforcing would remove. Main sessions, running
// sessions and activeKey are never removed.
func cleanupSessions(ctx context.Context, env *tools.Env, p cleanupParams) (any, error) {
	s, err := service(env, "sessions.cleanup")
	if err != nil {
		return nil, err
	}
	cfg := cfgOf(env)
	mode := cfg.String("session.maintenance.mode", "warn")
	if p.Enforce {
		mode = "enforce"
	}
	pruneAfter := defaultPruneAfter
	if v := cfg.String("session.maintenance.pruneAfter", ""); v != "" {
		d, err := parseAge(v)
		if err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "session.maintenance.pruneAfter: %v", err)
		}
		pruneAfter = d
	}
	maxEntries := cfg.Int("session.maintenance.maxEntries", defaultMaxEntries)
	agents := []string{NormalizeAgentID(nonEmpty(p.Agent, tools.DefaultAgentID(cfg)))}
	if p.AllAgents {
		agents = nil
		all, _, err := s.List(ctx, Filter{})
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, e := range all {
			if a := AgentOf(e.Key); !seen[a] {
				seen[a] = true
				agents = append(agents, a)
			}
		}
	}
	active := ""
	if p.ActiveKey != "" {
		active = keyOf(env, p.ActiveKey, "")
	}
	cutoff := time.Now().Add(-pruneAfter).UnixMilli()
	var summaries []map[string]any
	for _, agent := range agents {
		entries, total, err := s.List(ctx, Filter{AgentID: agent})
		if err != nil {
			return nil, err
		}
		keep := func(e *Entry) bool {
			return e.Key == active || e.Key == MainKey(agent) || e.Status == "running"
		}
		var remove []string
		pruned, capped, kept := 0, 0, 0
		for _, e := range entries { // newest first
			switch {
			case keep(e):
				kept++
			case e.UpdatedAt < cutoff:
				pruned++
				remove = append(remove, e.Key)
			case maxEntries > 0 && kept >= maxEntries:
				capped++
				remove = append(remove, e.Key)
			default:
				kept++
			}
		}
		sum := map[string]any{"agentId": agent, "storePath": store.Path(env.StateDir), "mode": mode, "dryRun": false,
			"beforeCount": total, "afterCount": total - len(remove), "missing": 0, "dmScopeRetired": 0, "modelRunPruned": 0,
			"pruned": pruned, "capped": capped, "unreferencedArtifacts": map[string]any{"removedFiles": 0},
			"diskBudget": nil, "wouldMutate": len(remove) > 0}
		if mode == "enforce" {
			for _, k := range remove {
				if _, err := s.Delete(ctx, k); err != nil {
					return nil, err
				}
			}
			sum["applied"], sum["appliedCount"] = true, total-len(remove)
		}
		summaries = append(summaries, sum)
	}
	if len(summaries) == 1 {
		return summaries[0], nil
	}
	if summaries == nil {
		summaries = []map[string]any{}
	}
	return map[string]any{"allAgents": true, "mode": mode, "dryRun": false, "stores": summaries}, nil
}

// parseAge reads a duration as session.maintenance writes it: "30d",
// "12h", "90m" or Go's form.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("not a duration: %q", s)
		}
		return time.Duration(d) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	return d, nil
}
