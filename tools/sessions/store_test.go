package sessions

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// Transcripts are appended in order, survive reopening the database (each
// Append is committed when it returns), and history drops tool results
// unless asked and keeps the newest N.
func TestTranscriptAppendAndReopen(t *testing.T) {
	dir := t.TempDir()
	s, st := openStore(t, dir)
	ctx := context.Background()
	key := MainKey("main")
	if err := s.Append(ctx, key, textMsg("user", "read notes.txt")); err != nil {
		t.Fatal(err)
	}
	call := Message{Role: "assistant", Content: []ContentBlock{{Type: "toolCall", ID: "c1", Name: "read", Arguments: []byte(`{"path":"notes.txt"}`)}}}
	res := Message{Role: "toolResult", ToolCallID: "c1", ToolName: "read", Content: []ContentBlock{{Type: "text", Text: "hello"}}}
	if err := s.Append(ctx, key, call, res, textMsg("assistant", "It says hello")); err != nil {
		t.Fatal(err)
	}
	st.Close()

	s, _ = openStore(t, dir)
	all, err := s.History(ctx, key, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range all {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,toolResult,assistant" {
		t.Fatalf("roles %s", got)
	}
	if all[1].Content[0].Name != "read" || all[2].ToolCallID != "c1" || all[2].Text() != "hello" || all[0].Timestamp == 0 {
		t.Fatalf("messages %+v", all)
	}
	noTools, _ := s.History(ctx, key, 0, false)
	if len(noTools) != 3 {
		t.Fatalf("without tools: %d messages", len(noTools))
	}
	last, _ := s.History(ctx, key, 1, true)
	if len(last) != 1 || last[0].Text() != "It says hello" {
		t.Fatalf("last: %+v", last)
	}
	e, err := s.Get(ctx, key)
	if err != nil || e.SessionID == "" || e.UpdatedAt == 0 {
		t.Fatalf("entry %+v %v", e, err)
	}
	again, _ := s.Ensure(ctx, key, nil)
	if again.SessionID != e.SessionID {
		t.Fatal("Ensure made a new session for an existing key")
	}
	if byID, err := s.BySessionID(ctx, e.SessionID); err != nil || byID.Key != key {
		t.Fatalf("by id: %+v %v", byID, err)
	}
}

// The tools, as a model's turn calls them: keys shown without the caller's
// own agent prefix, kinds and activeMinutes filter, messageLimit adds the
// last messages without tool results, history resolves "main" and a
// sessionId, and visibility (default tree) hides what the spec hides.
func TestToolsAndVisibility(t *testing.T) {
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	ctx := context.Background()
	now := s.now()
	entries := []*Entry{
		{Key: "agent:main:main", UpdatedAt: now},
		{Key: "agent:main:cron:nightly", UpdatedAt: now - 1000},
		{Key: "agent:main:discord:group:42", UpdatedAt: now - 2000, Label: "team"},
		{Key: "agent:main:subagent:child", UpdatedAt: now - 3000, SpawnedBy: "agent:main:discord:group:42"},
		{Key: "agent:coder:main", UpdatedAt: now - 4000},
		{Key: "agent:main:hook:old", UpdatedAt: now - 3*3_600_000},
	}
	if err := s.Put(ctx, entries...); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "agent:main:cron:nightly", textMsg("user", "run it"),
		Message{Role: "toolResult", ToolName: "exec", Content: []ContentBlock{{Type: "text", Text: "secret output"}}},
		textMsg("assistant", "done")); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, dir, "")
	svc := map[string]tools.Service{"sessions": s}
	agentEnv := func(key string, cfgJSON string) *tools.Env {
		c := cfg
		if cfgJSON != "" {
			c = loadConfig(t, t.TempDir(), cfgJSON)
		}
		return &tools.Env{Config: c, StateDir: dir, Services: svc,
			Subject: tools.Subject{Kind: tools.CallerAgent, AgentID: AgentOf(key), SessionKey: key}}
	}
	keys := func(env *tools.Env, params any) string {
		r := invoke(t, env, "sessions_list", params)
		var ks []string
		for _, row := range r.Get("details.sessions").Array() {
			ks = append(ks, row.Get("key").String())
		}
		return strings.Join(ks, " ")
	}

	// The main session sees every session of its agent (tree), newest
	// first (the append made cron:nightly the newest).
	main := agentEnv("agent:main:main", "")
	if got := keys(main, map[string]any{}); got != "cron:nightly main discord:group:42 subagent:child hook:old" {
		t.Fatalf("main sees %q", got)
	}
	if got := keys(main, map[string]any{"kinds": []string{"cron", "group"}}); got != "cron:nightly discord:group:42" {
		t.Fatalf("kinds: %q", got)
	}
	if got := keys(main, map[string]any{"activeMinutes": 60}); strings.Contains(got, "hook:old") {
		t.Fatalf("activeMinutes kept an old session: %q", got)
	}
	if got := keys(main, map[string]any{"limit": 2}); got != "cron:nightly main" {
		t.Fatalf("limit: %q", got)
	}
	r := invoke(t, main, "sessions_list", map[string]any{"kinds": []string{"cron"}, "messageLimit": 5})
	row := r.Get("details.sessions.0")
	if row.Get("kind").String() != "cron" || row.Get("channel").String() != "internal" || row.Get("messages.#").Int() != 2 ||
		strings.Contains(row.Get("messages").Raw, "secret output") {
		t.Fatalf("cron row %s", row.Raw)
	}

	// A group session sees itself and what it spawned, nothing else.
	group := agentEnv("agent:main:discord:group:42", "")
	if got := keys(group, map[string]any{}); got != "discord:group:42 subagent:child" {
		t.Fatalf("group sees %q", got)
	}
	if !strings.Contains(invoke(t, group, "sessions_list", map[string]any{}).Get("details.visibility").String(), "tree") {
		t.Fatal("no visibility note when sessions were hidden")
	}
	h := invoke(t, group, "sessions_history", map[string]any{"sessionKey": "agent:main:cron:nightly"})
	if h.Get("details.status").String() != "forbidden" {
		t.Fatalf("history of an invisible session: %s", h.Raw)
	}
	// self: only the session itself; agent: the agent's (a sub-agent lists only
	// when it may spawn: maxSpawnDepth 2); all: others only with agentToAgent.
	if got := keys(agentEnv("agent:main:discord:group:42", `{"tools":{"sessions":{"visibility":"self"}}}`), map[string]any{}); got != "discord:group:42" {
		t.Fatalf("self sees %q", got)
	}
	if got := keys(agentEnv("agent:main:subagent:child", `{"tools":{"sessions":{"visibility":"agent"}},"agents":{"defaults":{"subagents":{"maxSpawnDepth":2}}}}`), map[string]any{}); strings.Contains(got, "coder") || !strings.Contains(got, "cron:nightly") {
		t.Fatalf("agent sees %q", got)
	}
	if got := keys(agentEnv("agent:main:main", `{"tools":{"sessions":{"visibility":"all"}}}`), map[string]any{}); strings.Contains(got, "coder") {
		t.Fatalf("all without agentToAgent sees %q", got)
	}
	if got := keys(agentEnv("agent:main:main", `{"tools":{"sessions":{"visibility":"all"},"agentToAgent":{"enabled":true}}}`), map[string]any{}); !strings.Contains(got, "agent:coder:main") {
		t.Fatalf("all with agentToAgent sees %q", got)
	}

	// History by "main"-relative key and by sessionId; tool results only with includeTools.
	h = invoke(t, main, "sessions_history", map[string]any{"sessionKey": "cron:nightly"})
	if h.Get("details.sessionKey").String() != "cron:nightly" || h.Get("details.messages.#").Int() != 2 {
		t.Fatalf("history %s", h.Raw)
	}
	e, _ := s.Get(ctx, "agent:main:cron:nightly")
	h = invoke(t, main, "sessions_history", map[string]any{"sessionKey": e.SessionID, "includeTools": true})
	if h.Get("details.messages.#").Int() != 3 || h.Get("details.messages.1.toolName").String() != "exec" {
		t.Fatalf("history by id with tools %s", h.Raw)
	}
	_, err := tools.Invoke(ctx, main, tools.Call{ID: "sessions_history", Args: []byte(`{"sessionKey":"nope"}`)})
	if e := tools.AsError(err); e == nil || e.Code != tools.CodeNotFound {
		t.Fatalf("unknown session: %v", err)
	}

	// The operator (no session) sees every agent's sessions with full keys.
	op := &tools.Env{Config: cfg, StateDir: dir, Services: svc, Subject: tools.Subject{Kind: tools.CallerUser}}
	if got := keys(op, map[string]any{}); !strings.Contains(got, "agent:coder:main") || !strings.Contains(got, "agent:main:main") {
		t.Fatalf("operator sees %q", got)
	}
}

// sessions.list pages newest first with the original's envelope, and
// sessions.preview answers per key: ok with text items, empty, missing.
func TestGatewayListAndPreview(t *testing.T) {
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	ctx := context.Background()
	now := s.now()
	var es []*Entry
	for i := range 25 {
		es = append(es, &Entry{Key: fmt.Sprintf("agent:main:subagent:s%02d", i), UpdatedAt: now - int64(i)})
	}
	es = append(es, &Entry{Key: "agent:main:cron:c1", UpdatedAt: now - 100}, &Entry{Key: "global", UpdatedAt: now + 60_000})
	if err := s.Put(ctx, es...); err != nil {
		t.Fatal(err)
	}
	_ = s.Append(ctx, "agent:main:main", textMsg("user", "hello   there"), textMsg("assistant", strings.Repeat("x", 300)))
	env := &tools.Env{Config: loadConfig(t, dir, ""), StateDir: dir, Services: map[string]tools.Service{"sessions": s}}

	r := invoke(t, env, "sessions.list", map[string]any{"limit": 10})
	if r.Get("count").Int() != 10 || r.Get("totalCount").Int() != 27 || !r.Get("hasMore").Bool() || r.Get("nextOffset").Int() != 10 ||
		r.Get("sessions.0.key").String() != "agent:main:main" || r.Get("sessions.0.kind").String() != "direct" || r.Get("defaults.mainKey").String() != "main" {
		t.Fatalf("page 1: %s", r.Raw)
	}
	r = invoke(t, env, "sessions.list", map[string]any{"limit": 10, "offset": 20})
	if r.Get("count").Int() != 7 || r.Get("hasMore").Bool() || r.Get("nextOffset").Type.String() != "Null" {
		t.Fatalf("last page: %s", r.Raw)
	}
	r = invoke(t, env, "sessions.list", map[string]any{"excludeSubagents": true, "includeGlobal": true})
	if r.Get("totalCount").Int() != 3 || r.Get("sessions.0.key").String() != "global" || r.Get("sessions.0.kind").String() != "global" {
		t.Fatalf("excludeSubagents+includeGlobal: %s", r.Raw)
	}
	r = invoke(t, env, "sessions.list", map[string]any{"search": "CRON"})
	if r.Get("count").Int() != 1 || r.Get("sessions.0.key").String() != "agent:main:cron:c1" {
		t.Fatalf("search: %s", r.Raw)
	}

	p := invoke(t, env, "sessions.preview", map[string]any{"keys": []string{"main", "agent:main:cron:c1", "agent:x:main"}, "maxChars": 20})
	if p.Get("previews.0.status").String() != "ok" || p.Get("previews.0.items.0.text").String() != "hello there" ||
		len([]rune(p.Get("previews.0.items.1.text").String())) != 20 ||
		p.Get("previews.1.status").String() != "empty" || p.Get("previews.2.status").String() != "missing" {
		t.Fatalf("preview: %s", p.Raw)
	}
}
