package sessions

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

func method(t *testing.T, env *tools.Env, name string, params any) gjson.Result {
	t.Helper()
	b, _ := json.Marshal(params)
	out, err := tools.Invoke(context.Background(), env, tools.Call{Method: name, Args: b})
	if err != nil {
		t.Fatalf("%s %s: %v", name, b, err)
	}
	return gjson.ParseBytes(out)
}

// The original's session management methods over the real store:
// chat.history of a session with no row is empty; sessions.patch sets and
// (with null) clears fields; sessions.reset gives a new sessionId and an
// empty transcript while the old one stays archived; sessions.delete
// removes the row and transcript but refuses a main session;
// sessions.cleanup reports in warn mode and removes only with enforce.
func TestSessionManagementMethods(t *testing.T) {
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	ctx := context.Background()
	env := &tools.Env{Config: loadConfig(t, dir, ""), StateDir: dir, Services: map[string]tools.Service{"sessions": s}}

	if h := method(t, env, "chat.history", map[string]any{"sessionKey": "main"}); h.Get("sessionKey").String() != "agent:main:main" || h.Get("messages.#").Int() != 0 {
		t.Fatalf("empty history %s", h.Raw)
	}
	if err := s.Append(ctx, "agent:main:work", textMsg("user", "hi"), textMsg("assistant", "hello")); err != nil {
		t.Fatal(err)
	}
	if h := method(t, env, "chat.history", map[string]any{"sessionKey": "work", "limit": 1}); h.Get("messages.#").Int() != 1 || h.Get("messages.0.content.0.text").String() != "hello" {
		t.Fatalf("history %s", h.Raw)
	}
	p := method(t, env, "sessions.patch", map[string]any{"key": "agent:main:work", "label": "Work", "thinkingLevel": "high"})
	if !p.Get("ok").Bool() || p.Get("entry.label").String() != "Work" || p.Get("entry.thinkingLevel").String() != "high" {
		t.Fatalf("patch %s", p.Raw)
	}
	p = method(t, env, "sessions.patch", map[string]any{"key": "agent:main:work", "label": nil})
	if p.Get("entry.label").Exists() || p.Get("entry.thinkingLevel").String() != "high" {
		t.Fatalf("patch null %s", p.Raw)
	}
	if _, err := tools.Invoke(ctx, env, tools.Call{Method: "sessions.patch", Args: []byte(`{"key":"work","model":"nope/x"}`)}); tools.AsError(err) == nil || tools.AsError(err).Code != tools.CodeInvalidParams {
		t.Fatalf("unknown model: %v", err)
	}

	before, _ := s.Get(ctx, "agent:main:work")
	r := method(t, env, "sessions.reset", map[string]any{"key": "agent:main:work", "reason": "reset"})
	if r.Get("entry.sessionId").String() == before.SessionID || r.Get("entry.thinkingLevel").String() != "high" {
		t.Fatalf("reset %s", r.Raw)
	}
	if n, _ := s.CountMessages(ctx, "agent:main:work"); n != 0 {
		t.Fatalf("%d messages after reset", n)
	}
	if n, _ := s.CountMessages(ctx, ArchivedKey(before.SessionID)); n != 2 {
		t.Fatalf("%d archived messages", n)
	}

	d := method(t, env, "sessions.delete", map[string]any{"key": "agent:main:work"})
	if !d.Get("deleted").Bool() {
		t.Fatalf("delete %s", d.Raw)
	}
	if _, err := s.Get(ctx, "agent:main:work"); err != ErrNotFound {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := tools.Invoke(ctx, env, tools.Call{Method: "sessions.delete", Args: []byte(`{"key":"main"}`)}); tools.AsError(err) == nil {
		t.Fatal("deleted a main session")
	}

	old := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
	if err := s.Put(ctx, &Entry{Key: "agent:main:main", UpdatedAt: old}, &Entry{Key: "agent:main:stale", UpdatedAt: old},
		&Entry{Key: "agent:main:fresh", UpdatedAt: time.Now().UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	c := method(t, env, "sessions.cleanup", map[string]any{})
	if c.Get("mode").String() != "warn" || c.Get("pruned").Int() != 1 || c.Get("afterCount").Int() != 2 || !c.Get("wouldMutate").Bool() || c.Get("applied").Exists() {
		t.Fatalf("cleanup warn %s", c.Raw)
	}
	if _, err := s.Get(ctx, "agent:main:stale"); err != nil {
		t.Fatalf("warn mode removed: %v", err)
	}
	c = method(t, env, "sessions.cleanup", map[string]any{"enforce": true})
	if !c.Get("applied").Bool() || c.Get("appliedCount").Int() != 2 {
		t.Fatalf("cleanup enforce %s", c.Raw)
	}
	if _, err := s.Get(ctx, "agent:main:stale"); err != ErrNotFound {
		t.Fatalf("enforce kept the stale session: %v", err)
	}
	if _, err := s.Get(ctx, "agent:main:main"); err != nil {
		t.Fatalf("enforce removed the main session: %v", err)
	}
}

// A model override must be one its provider lists, when the provider
// lists its models: session_status and sessions.patch refuse another with
// INVALID_PARAMS (exit 2) and one line naming the known ones; a provider
// configured without a list takes any id.
func TestModelOverrideMustBeListed(t *testing.T) {
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	ctx := context.Background()
	cfg := loadConfig(t, dir, `{"models":{"providers":{
		"loc":{"baseUrl":"http://127.0.0.1:9/v1","apiKey":"k","models":[{"id":"m1"},{"id":"m2"}]},
		"open":{"baseUrl":"http://127.0.0.1:9/v1","apiKey":"k"}}}}`)
	env := &tools.Env{Config: cfg, StateDir: dir, Services: map[string]tools.Service{"sessions": s}}
	if _, err := s.Ensure(ctx, "agent:main:ops", nil); err != nil {
		t.Fatal(err)
	}
	const want = "provider loc does not list model m3 (known: loc/m1, loc/m2); use one of those or add it to models.providers.loc.models"
	for _, c := range []tools.Call{
		{ID: "session_status", Args: []byte(`{"sessionKey":"agent:main:ops","model":"loc/m3"}`)},
		{Method: "sessions.patch", Args: []byte(`{"key":"agent:main:ops","model":"loc/m3"}`)},
	} {
		_, err := tools.Invoke(ctx, env, c)
		if e := tools.AsError(err); e == nil || e.Code != tools.CodeInvalidParams || !strings.Contains(e.Message, want) || strings.Contains(e.Message, "\n") {
			t.Errorf("%s%s: %v", c.ID, c.Method, err)
		}
	}
	if e, _ := s.Get(ctx, "agent:main:ops"); e.ModelOverride != "" {
		t.Fatalf("a refused model was stored: %q", e.ModelOverride)
	}
	if r := invoke(t, env, "session_status", map[string]any{"sessionKey": "agent:main:ops", "model": "loc/m2"}); r.Get("details.modelOverride").String() != "loc/m2" {
		t.Fatalf("listed model: %s", r.Raw)
	}
	if r := invoke(t, env, "session_status", map[string]any{"sessionKey": "agent:main:ops", "model": "open/anything"}); r.Get("details.modelOverride").String() != "open/anything" {
		t.Fatalf("provider without a list: %s", r.Raw)
	}
}
