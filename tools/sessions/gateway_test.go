package sessions_test

import (
	"context"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
	_ "github.com/openclaw-go/openclaw/tools/all"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

const token = "sessions-test-token"

func family() store.Family {
	f := store.Family{Name: "sessions"}
	for _, m := range sessions.Migrations() {
		f.Migrations = append(f.Migrations, store.Migration{Version: m.Version, Name: m.Name, Up: m.Up})
	}
	return f
}

func startGateway(t *testing.T, dir string) string {
	t.Helper()
	return gatewaytest.Start(t, dir, token, 0).URL
}

// Sessions written to the state database (as the runtime writes them) are
// served by a real gateway: sessions.list and sessions.preview to a
// least-privilege reader, sessions_history through tools.invoke on behalf
// of a session (visibility applies: a group session cannot read cron's).
func TestSessionsOverTheGateway(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, dir, family())
	if err != nil {
		t.Fatal(err)
	}
	s := sessions.NewStore(st.DB())
	msg := func(role, text string) sessions.Message {
		return sessions.Message{Role: role, Content: []sessions.ContentBlock{{Type: "text", Text: text}}}
	}
	if err := s.Append(ctx, "agent:main:cron:nightly", msg("user", "summarise the logs"), msg("assistant", "all quiet")); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "agent:main:discord:group:7", msg("user", "hi")); err != nil {
		t.Fatal(err)
	}
	st.Close()

	url := startGateway(t, dir)
	reader, err := client.Dial(ctx, client.Options{URL: url, Token: token, Scopes: []string{protocol.ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	out, err := reader.Call(ctx, "sessions.list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(out)
	// Both were written in the same millisecond or not: the order is the
	// store tests' business; here the rows and their kinds.
	if r.Get("count").Int() != 2 || r.Get(`sessions.#(key=="agent:main:discord:group:7").kind`).String() != "group" ||
		r.Get(`sessions.#(key=="agent:main:cron:nightly").kind`).String() != "direct" ||
		r.Get("path").String() != store.Path(dir) {
		t.Fatalf("sessions.list %s", out)
	}
	out, err = reader.Call(ctx, "sessions.preview", map[string]any{"keys": []string{"agent:main:cron:nightly"}})
	if err != nil || gjson.GetBytes(out, "previews.0.items.1.text").String() != "all quiet" {
		t.Fatalf("sessions.preview %s %v", out, err)
	}

	writer, err := client.Dial(ctx, client.Options{URL: url, Token: token, Scopes: []string{protocol.ScopeWrite}})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	out, err = writer.Call(ctx, "tools.invoke", map[string]any{"name": "sessions_history", "sessionKey": "agent:main:main",
		"args": map[string]any{"sessionKey": "cron:nightly"}})
	if err != nil || gjson.GetBytes(out, "output.details.messages.#").Int() != 2 || gjson.GetBytes(out, "output.details.sessionKey").String() != "cron:nightly" {
		t.Fatalf("history from main %s %v", out, err)
	}
	out, err = writer.Call(ctx, "tools.invoke", map[string]any{"name": "sessions_history", "sessionKey": "agent:main:discord:group:7",
		"args": map[string]any{"sessionKey": "agent:main:cron:nightly"}})
	if err != nil || gjson.GetBytes(out, "output.details.status").String() != "forbidden" {
		t.Fatalf("history from a group %s %v", out, err)
	}
}
