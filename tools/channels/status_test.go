package channels

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// One stand-in answers the three platforms' probe calls in their shapes:
// Telegram getMe, Discord GET /users/@me, Slack auth.test.
func TestStatusProbesEachAccount(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/tg/bot1:T/getMe":
			io.WriteString(w, `{"ok":true,"result":{"id":42,"is_bot":true,"first_name":"Claw","username":"claw_bot"}}`)
		case r.URL.Path == "/dc/users/@me" && r.Header.Get("Authorization") == "Bot dtok":
			io.WriteString(w, `{"id":"900","username":"clawcord"}`)
		case r.URL.Path == "/dc/users/@me":
			w.WriteHeader(401)
			io.WriteString(w, `{"message":"401: Unauthorized","code":0}`)
		case r.URL.Path == "/sl/auth.test":
			io.WriteString(w, `{"ok":true,"user":"clawslack","user_id":"U1","team":"T","bot_id":"B1"}`)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	t.Setenv("TELEGRAM_BOT_TOKEN", "")
	t.Setenv("DISCORD_BOT_TOKEN", "")
	t.Setenv("SLACK_BOT_TOKEN", "")
	cfg := config.Empty()
	cfg.Doc = map[string]any{"channels": map[string]any{
		"telegram": map[string]any{"botToken": "1:T", "apiBaseUrl": srv.URL + "/tg"},
		"discord": map[string]any{"token": "dtok", "apiBaseUrl": srv.URL + "/dc",
			"accounts": map[string]any{"ops": map[string]any{"token": "wrong"}, "empty": map[string]any{"name": "no token"}}},
		"slack": map[string]any{"botToken": "xoxb-1", "apiBaseUrl": srv.URL + "/sl"},
	}}
	env := &tools.Env{Config: cfg, StateDir: t.TempDir()}
	out, err := tools.Invoke(context.Background(), env, tools.Call{Method: "channels.status", Args: json.RawMessage(`{"probe":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(out)
	if got := r.Get("channelOrder").Raw; got != `["discord","slack","telegram"]` {
		t.Fatalf("order %s", got)
	}
	for path, want := range map[string]string{
		"channelAccounts.telegram.0.probe.bot.username": "claw_bot",
		"channelAccounts.discord.0.probe.bot.username":  "clawcord",
		"channelAccounts.slack.0.probe.bot.username":    "clawslack",
		"channelAccounts.discord.1.accountId":           "empty",
		"channelAccounts.discord.1.configured":          "false",
		"channelAccounts.discord.2.accountId":           "ops",
		"channelAccounts.discord.2.probe.ok":            "false",
		"channelDefaultAccountId.discord":               "default",
	} {
		if got := r.Get(path).String(); got != want {
			t.Errorf("%s = %q, want %q (%s)", path, got, want, out)
		}
	}
	if e := r.Get("channelAccounts.discord.2.probe.error").String(); !strings.Contains(e, "discord: GET /users/@me failed: 401: Unauthorized") ||
		!strings.Contains(e, "channels.discord.accounts.ops") || strings.Contains(string(out), "wrong") {
		t.Errorf("probe error %q", e)
	}
	if e := r.Get("channelAccounts.discord.1.lastError").String(); !strings.Contains(e, "set channels.discord.accounts.empty.token") {
		t.Errorf("lastError %q", e)
	}
	var buf bytes.Buffer
	if err := render(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"telegram/default: ok, bot @claw_bot", "discord/ops: probe failed: discord: GET /users/@me failed", "discord/empty: not configured"} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("render lacks %q:\n%s", line, buf.String())
		}
	}
	// Without channels: the empty answer the original's clients expect.
	env.Config = config.Empty()
	out, err = tools.Invoke(context.Background(), env, tools.Call{Method: "channels.status", Args: json.RawMessage(`{}`)})
	if err != nil || !strings.Contains(string(out), `"channelOrder":[]`) {
		t.Fatalf("%s %v", out, err)
	}
}
