package sessions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/texttable"
	"github.com/openclaw-go/openclaw/tools"
)

// Limits as the original applies them.
const (
	listDefaultLimit = 100
	listMaxLimit     = 1000
	toolMaxLimit     = 200
	maxMessageLimit  = 20
	previewDefault   = 12
	previewMaxChars  = 240
)

func service(env *tools.Env, what string) (*Service, error) { return Key.From(env, what) }

func init() {
	tools.Register(&tools.Action{
		Method: "sessions.list", Where: tools.Gateway, Scope: protocol.ScopeRead,
		Summary: "List stored sessions (newest first)",
		Schema: `{"type":"object","properties":{
			"limit":{"type":"integer","minimum":1},"offset":{"type":"integer","minimum":0},
			"activeMinutes":{"type":"integer","minimum":1},"label":{"type":"string"},"agentId":{"type":"string"},
			"search":{"type":"string"},"spawnedBy":{"type":"string"},
			"includeGlobal":{"type":"boolean"},"includeUnknown":{"type":"boolean"},"excludeSubagents":{"type":"boolean"},
			"excludeCron":{"type":"boolean"},"includeDerivedTitles":{"type":"boolean"},"includeLastMessage":{"type":"boolean"}
		},"additionalProperties":true}`,
		Run:    tools.Typed(gatewayList),
		Render: renderGatewayList,
		Hidden: true, // the CLI's `sessions list` is the sessions_list tool
	})
	tools.Register(&tools.Action{
		Method: "sessions.preview", Where: tools.Gateway, Scope: protocol.ScopeRead,
		Summary: "Preview the last messages of sessions",
		Schema: `{"type":"object","properties":{
			"keys":{"type":"array","items":{"type":"string"},"minItems":1},
			"limit":{"type":"integer","minimum":1},"maxChars":{"type":"integer","minimum":20}
		},"required":["keys"],"additionalProperties":false}`,
		Run:    tools.Typed(preview),
		Hidden: true,
	})
	tools.Register(&tools.Action{
		Tool: "sessions_list", Where: tools.Gateway, Scope: protocol.ScopeRead, ReadOnly: true, Idempotent: true,
		Summary: "List sessions with optional filters and last messages",
		Description: "List sessions visible to this session (tools.sessions.visibility), newest first. " +
			"kinds filters by main|group|cron|hook|node|other, activeMinutes keeps recently updated ones, " +
			"messageLimit (max 20) adds each session's last messages (tool results stripped).",
		Schema: `{"type":"object","properties":{
			"kinds":{"type":"array","items":{"type":"string","enum":["main","group","cron","hook","node","other"]},"description":"session kinds to include"},
			"limit":{"type":"integer","minimum":1,"description":"at most this many sessions (max 200)"},
			"activeMinutes":{"type":"integer","minimum":1,"description":"only sessions updated in the last N minutes"},
			"messageLimit":{"type":"integer","minimum":0,"description":"include the last N messages of each (max 20)"},
			"agentId":{"type":"string","description":"only this agent's sessions"},
			"label":{"type":"string","description":"only sessions with this label"},
			"search":{"type":"string","description":"only sessions whose key, label or name contains this"}
		},"additionalProperties":false}`,
		Run:    tools.Typed(toolList),
		Render: renderToolList,
	})
	tools.Register(&tools.Action{
		Tool: "sessions_history", Where: tools.Gateway, Scope: protocol.ScopeRead, ReadOnly: true, Idempotent: true,
		Summary: "Show a session's transcript",
		Description: "Fetch the messages of a session (a key from sessions_list, \"main\", or a sessionId). " +
			"Tool results are left out unless includeTools.",
		Schema: `{"type":"object","properties":{
			"sessionKey":{"type":"string","description":"session key or sessionId"},
			"limit":{"type":"integer","minimum":1,"description":"the last N messages"},
			"includeTools":{"type":"boolean","description":"include tool-result messages"}
		},"required":["sessionKey"],"additionalProperties":false}`,
		Run:    tools.Typed(toolHistory),
		Render: renderHistory,
	})
}

// caller is who asks: an agent turn (its session and agent) or an
// operator / the local user (everything is visible).
type caller struct {
	agent      string
	sessionKey string
	isAgent    bool
	visibility string
	a2a        bool
}

// Caller is who asks, for the families that act on sessions (sessions_send
// and sessions_spawn live with the agent runtime).
type Caller = caller

// CallerOf is who env's subject is, with the visibility config applied.
func CallerOf(env *tools.Env) Caller { return callerOf(env) }

// Agent is the caller's agent id; SessionKey its session ("" for the local
// user and operators); IsAgent whether the visibility guard applies.
func (c caller) Agent() string      { return c.agent }
func (c caller) SessionKey() string { return c.sessionKey }
func (c caller) IsAgent() bool      { return c.isAgent }
func (c caller) Visibility() string { return c.visibility }

// Visible is the spec §3.3 guard for one stored session.
func (c caller) Visible(e *Entry) bool { return c.visible(e) }

// Resolve finds the stored session a tool names (a key, canonicalised for
// the caller, or a sessionId); NOT_FOUND when there is none.
func Resolve(ctx context.Context, s *Service, c Caller, ref string) (*Entry, error) {
	return resolve(ctx, s, c, ref)
}

func callerOf(env *tools.Env) caller {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	c := caller{agent: NormalizeAgentID(env.AgentID()), visibility: cfg.String("tools.sessions.visibility", "tree"),
		a2a: cfg.Bool("tools.agentToAgent.enabled", false)}
	switch env.Subject.Caller() {
	case tools.CallerAgent, tools.CallerMCP:
		c.isAgent = env.Subject.SessionKey != ""
		c.sessionKey = Canonical(env.Subject.SessionKey, c.agent)
		if k := c.sessionKey; k != "" {
			c.agent = AgentOf(k)
		}
	}
	return c
}

// visible is the spec §3.3 guard for one stored session.
func (c caller) visible(e *Entry) bool {
	if !c.isAgent {
		return true
	}
	sameAgent := AgentOf(e.Key) == c.agent
	switch c.visibility {
	case "self":
		return e.Key == c.sessionKey
	case "agent":
		return sameAgent
	case "all":
		return sameAgent || c.a2a
	}
	// tree: the session, what it spawned (at any depth), all of its agent
	// for the agent's main session.
	if e.Key == c.sessionKey {
		return true
	}
	if c.sessionKey == MainKey(c.agent) {
		return sameAgent
	}
	return e.SpawnedBy == c.sessionKey || e.ParentSessionKey == c.sessionKey ||
		strings.HasPrefix(e.Key, c.sessionKey+":subagent:")
}

// Row is a sessions_list row (spec §3.4).
type Row struct {
	Key              string    `json:"key"`
	AgentID          string    `json:"agentId"`
	Kind             string    `json:"kind"`
	Channel          string    `json:"channel"`
	Label            string    `json:"label,omitempty"`
	DisplayName      string    `json:"displayName,omitempty"`
	SpawnedBy        string    `json:"spawnedBy,omitempty"`
	ParentSessionKey string    `json:"parentSessionKey,omitempty"`
	UpdatedAt        int64     `json:"updatedAt"`
	SessionID        string    `json:"sessionId"`
	Model            string    `json:"model,omitempty"`
	TotalTokens      int64     `json:"totalTokens,omitempty"`
	Status           string    `json:"status,omitempty"`
	StartedAt        int64     `json:"startedAt,omitempty"`
	EndedAt          int64     `json:"endedAt,omitempty"`
	RuntimeMs        int64     `json:"runtimeMs,omitempty"`
	ThinkingLevel    string    `json:"thinkingLevel,omitempty"`
	AbortedLastRun   bool      `json:"abortedLastRun,omitempty"`
	LastChannel      string    `json:"lastChannel,omitempty"`
	LastTo           string    `json:"lastTo,omitempty"`
	LastAccountID    string    `json:"lastAccountId,omitempty"`
	Messages         []Message `json:"messages,omitempty"`
}

type toolListParams struct {
	Kinds         []string `json:"kinds"`
	Limit         int      `json:"limit"`
	ActiveMinutes int      `json:"activeMinutes"`
	MessageLimit  int      `json:"messageLimit"`
	AgentID       string   `json:"agentId"`
	Label         string   `json:"label"`
	Search        string   `json:"search"`
}

func toolList(ctx context.Context, env *tools.Env, p toolListParams) (any, error) {
	s, err := service(env, "sessions list")
	if err != nil {
		return nil, err
	}
	c := callerOf(env)
	limit := p.Limit
	if limit <= 0 || limit > toolMaxLimit {
		limit = toolMaxLimit
	}
	kinds := map[string]bool{}
	for _, k := range p.Kinds {
		kinds[strings.ToLower(k)] = true
	}
	// Filters SQL cannot apply (kinds, visibility) run here over the
	// newest-first candidates.
	var kindList []string
	for k := range kinds {
		kindList = append(kindList, k)
	}
	all, _, err := s.List(ctx, Filter{AgentID: p.AgentID, Label: p.Label, Search: p.Search, ActiveMinutes: p.ActiveMinutes, Kinds: kindList})
	if err != nil {
		return nil, err
	}
	rows := []Row{}
	hidden := false
	for _, e := range all {
		if len(rows) >= limit {
			break
		}
		if !c.visible(e) {
			hidden = true
			continue
		}
		kind := Kind(e.Key)
		if len(kinds) > 0 && !kinds[kind] {
			continue
		}
		r := rowOf(e, kind)
		if c.isAgent {
			r.Key = Display(e.Key, c.agent)
		}
		if n := min(p.MessageLimit, maxMessageLimit); n > 0 {
			if r.Messages, err = s.History(ctx, e.Key, n, false); err != nil {
				return nil, err
			}
		}
		rows = append(rows, r)
	}
	out := map[string]any{"count": len(rows), "sessions": rows}
	if c.isAgent && c.visibility != "all" && hidden {
		out["visibility"] = fmt.Sprintf("Some sessions are hidden by tools.sessions.visibility=%s.", c.visibility)
	}
	return tools.JSONResult(out)
}

func rowOf(e *Entry, kind string) Row {
	return Row{Key: e.Key, AgentID: AgentOf(e.Key), Kind: kind, Channel: channelOf(e.Key, e.LastChannel),
		Label: e.Label, DisplayName: e.DisplayName, SpawnedBy: e.SpawnedBy, ParentSessionKey: e.ParentSessionKey,
		UpdatedAt: e.UpdatedAt, SessionID: e.SessionID, Model: e.Model, TotalTokens: e.TotalTokens, Status: e.Status,
		StartedAt: e.StartedAt, EndedAt: e.EndedAt, RuntimeMs: e.RuntimeMs, ThinkingLevel: e.ThinkingLevel,
		AbortedLastRun: e.AbortedLastRun, LastChannel: e.LastChannel, LastTo: e.LastTo, LastAccountID: e.LastAccountID}
}

type historyParams struct {
	SessionKey   string `json:"sessionKey"`
	Limit        int    `json:"limit"`
	IncludeTools bool   `json:"includeTools"`
}

// resolve finds the stored session a tool names: a key (canonicalised for
// the caller) or a sessionId.
func resolve(ctx context.Context, s *Service, c caller, ref string) (*Entry, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessionKey is required")
	}
	e, err := s.Get(ctx, Canonical(ref, c.agent))
	if errors.Is(err, ErrNotFound) {
		e, err = s.BySessionID(ctx, ref)
	}
	if errors.Is(err, ErrNotFound) {
		return nil, tools.Errorf(tools.CodeNotFound, "session not found: %s (sessions list shows the existing ones; a turn creates one: openclaw agent --session-key %s --message …)",
			ref, Canonical(ref, c.agent))
	}
	return e, err
}

func toolHistory(ctx context.Context, env *tools.Env, p historyParams) (any, error) {
	s, err := service(env, "sessions history")
	if err != nil {
		return nil, err
	}
	c := callerOf(env)
	e, err := resolve(ctx, s, c, p.SessionKey)
	if err != nil {
		return nil, err
	}
	if !c.visible(e) {
		return tools.JSONResult(map[string]any{"status": "forbidden",
			"error": fmt.Sprintf("Session %s is not visible from this session (tools.sessions.visibility=%s).", p.SessionKey, c.visibility)})
	}
	msgs, err := s.History(ctx, e.Key, p.Limit, p.IncludeTools)
	if err != nil {
		return nil, err
	}
	if msgs == nil {
		msgs = []Message{}
	}
	key := e.Key
	if c.isAgent {
		key = Display(key, c.agent)
	}
	return tools.JSONResult(map[string]any{"sessionKey": key, "sessionId": e.SessionID, "messages": msgs})
}

type gatewayListParams struct {
	Limit            int    `json:"limit"`
	Offset           int    `json:"offset"`
	ActiveMinutes    int    `json:"activeMinutes"`
	Label            string `json:"label"`
	AgentID          string `json:"agentId"`
	Search           string `json:"search"`
	SpawnedBy        string `json:"spawnedBy"`
	IncludeGlobal    bool   `json:"includeGlobal"`
	IncludeUnknown   bool   `json:"includeUnknown"`
	ExcludeSubagents bool   `json:"excludeSubagents"`
	ExcludeCron      bool   `json:"excludeCron"`
}

// gatewayRow is a sessions.list row (the original's shape; open).
type gatewayRow struct {
	Key           string `json:"key"`
	Kind          string `json:"kind"`
	AgentID       string `json:"agentId"`
	SessionID     string `json:"sessionId"`
	UpdatedAt     int64  `json:"updatedAt"`
	Label         string `json:"label,omitempty"`
	DisplayName   string `json:"displayName,omitempty"`
	Channel       string `json:"channel,omitempty"`
	ChatType      string `json:"chatType,omitempty"`
	LastChannel   string `json:"lastChannel,omitempty"`
	LastTo        string `json:"lastTo,omitempty"`
	LastAccountID string `json:"lastAccountId,omitempty"`
	SpawnedBy     string `json:"spawnedBy,omitempty"`
	Model         string `json:"model,omitempty"`
	ModelProvider string `json:"modelProvider,omitempty"`
	InputTokens   int64  `json:"inputTokens,omitempty"`
	OutputTokens  int64  `json:"outputTokens,omitempty"`
	TotalTokens   int64  `json:"totalTokens,omitempty"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
	Status        string `json:"status,omitempty"`
	HasActiveRun  bool   `json:"hasActiveRun"`
	SnapshotAt    int64  `json:"snapshotAt"`
}

func gatewayList(ctx context.Context, env *tools.Env, p gatewayListParams) (any, error) {
	s, err := service(env, "sessions.list")
	if err != nil {
		return nil, err
	}
	limit := p.Limit
	if limit <= 0 {
		limit = listDefaultLimit
	}
	limit = min(limit, listMaxLimit)
	f := Filter{AgentID: p.AgentID, Label: p.Label, Search: p.Search, SpawnedBy: p.SpawnedBy,
		ActiveMinutes: p.ActiveMinutes, Limit: limit, Offset: p.Offset, IncludeGlobal: p.IncludeGlobal,
		IncludeUnknown: p.IncludeUnknown, ExcludeSubagents: p.ExcludeSubagents, ExcludeCron: p.ExcludeCron}
	entries, total, err := s.List(ctx, f)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixMilli()
	rows := make([]gatewayRow, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, gatewayRow{Key: e.Key, Kind: gatewayKind(e.Key), AgentID: AgentOf(e.Key), SessionID: e.SessionID,
			UpdatedAt: e.UpdatedAt, Label: e.Label, DisplayName: e.DisplayName, Channel: channelOf(e.Key, e.LastChannel),
			ChatType: e.ChatType, LastChannel: e.LastChannel, LastTo: e.LastTo, LastAccountID: e.LastAccountID,
			SpawnedBy: e.SpawnedBy, Model: e.Model, ModelProvider: e.ModelProvider,
			InputTokens: e.InputTokens, OutputTokens: e.OutputTokens, TotalTokens: e.TotalTokens,
			ThinkingLevel: e.ThinkingLevel, Status: e.Status, HasActiveRun: e.Status == "running", SnapshotAt: now})
	}
	offset := max(p.Offset, 0)
	hasMore := offset+len(rows) < total
	var next any
	if hasMore {
		next = offset + len(rows)
	}
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	var model string
	if v, ok := cfg.Get("agents.defaults.model"); ok {
		switch m := v.(type) {
		case string:
			model = m
		case map[string]any:
			model, _ = m["primary"].(string)
		}
	}
	return map[string]any{"ts": now, "path": store.Path(env.StateDir), "count": len(rows), "totalCount": total,
		"limitApplied": limit, "offset": offset, "nextOffset": next, "hasMore": hasMore,
		"defaults": map[string]any{"agentId": tools.DefaultAgentID(cfg), "mainKey": MainKeyName, "model": nullable(model)},
		"sessions": rows}, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

type previewParams struct {
	Keys     []string `json:"keys"`
	Limit    int      `json:"limit"`
	MaxChars int      `json:"maxChars"`
}

type previewItem struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

func preview(ctx context.Context, env *tools.Env, p previewParams) (any, error) {
	s, err := service(env, "sessions.preview")
	if err != nil {
		return nil, err
	}
	limit := p.Limit
	if limit <= 0 {
		limit = previewDefault
	}
	maxChars := p.MaxChars
	if maxChars <= 0 {
		maxChars = previewMaxChars
	}
	agent := NormalizeAgentID(env.AgentID())
	out := []map[string]any{}
	for _, k := range p.Keys {
		row := map[string]any{"key": k}
		e, err := s.Get(ctx, Canonical(k, agent))
		switch {
		case errors.Is(err, ErrNotFound):
			row["status"], row["items"] = "missing", []previewItem{}
		case err != nil:
			row["status"], row["items"], row["error"] = "error", []previewItem{}, err.Error()
		default:
			msgs, err := s.History(ctx, e.Key, limit, false)
			if err != nil {
				row["status"], row["items"], row["error"] = "error", []previewItem{}, err.Error()
				break
			}
			items := []previewItem{}
			for _, m := range msgs {
				if t := m.Text(); t != "" {
					items = append(items, previewItem{Role: m.Role, Text: truncate(t, maxChars)})
				}
			}
			row["status"], row["items"] = "ok", items
			if len(items) == 0 {
				row["status"] = "empty"
			}
		}
		out = append(out, row)
	}
	return map[string]any{"ts": time.Now().UnixMilli(), "previews": out}, nil
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func ago(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	d := time.Since(time.UnixMilli(ms)).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func renderRows(w io.Writer, rows []gjson.Result) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No sessions.")
		return err
	}
	var table [][]string
	for _, r := range rows {
		tok := "-"
		if n := r.Get("totalTokens").Int(); n > 0 {
			tok = fmt.Sprint(n)
		}
		model := r.Get("model").String()
		if model == "" {
			model = "-"
		}
		table = append(table, []string{r.Get("key").String(), r.Get("kind").String(), ago(r.Get("updatedAt").Int()), model, tok})
	}
	lines, err := texttable.Lines([]string{"Key", "Kind", "Updated", "Model", "Tokens"}, table)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, strings.Join(lines, "\n"))
	return err
}

func renderToolList(w io.Writer, res gjson.Result) error {
	d := res.Get("details")
	if !d.Exists() {
		d = res
	}
	return renderRows(w, d.Get("sessions").Array())
}

func renderGatewayList(w io.Writer, res gjson.Result) error {
	return renderRows(w, res.Get("sessions").Array())
}

func renderHistory(w io.Writer, res gjson.Result) error {
	d := res.Get("details")
	if !d.Exists() {
		d = res
	}
	if st := d.Get("status").String(); st == "forbidden" {
		_, err := fmt.Fprintln(w, d.Get("error").String())
		return err
	}
	msgs := d.Get("messages").Array()
	if len(msgs) == 0 {
		_, err := fmt.Fprintf(w, "%s: no messages.\n", d.Get("sessionKey").String())
		return err
	}
	for _, m := range msgs {
		role := m.Get("role").String()
		ts := time.UnixMilli(m.Get("timestamp").Int()).Format("15:04:05")
		var parts []string
		for _, b := range m.Get("content").Array() {
			switch b.Get("type").String() {
			case "text":
				parts = append(parts, b.Get("text").String())
			case "toolCall":
				parts = append(parts, fmt.Sprintf("→ %s %s", b.Get("name").String(), b.Get("arguments").Raw))
			case "image":
				parts = append(parts, "[image]")
			}
		}
		if n := m.Get("toolName").String(); n != "" {
			role += " (" + n + ")"
		}
		if _, err := fmt.Fprintf(w, "[%s] %s: %s\n", ts, role, strings.Join(parts, "\n  ")); err != nil {
			return err
		}
	}
	return nil
}
