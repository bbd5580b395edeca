package channels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

func cfgOf(t *testing.T, doc map[string]any) *config.Config {
	t.Helper()
	c := config.Empty()
	c.Doc = doc
	return c
}

func TestResolveAccounts(t *testing.T) {
	dir := t.TempDir()
	tf := filepath.Join(dir, "tok")
	if err := os.WriteFile(tf, []byte("555:FILE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TELEGRAM_BOT_TOKEN", "")
	cfg := cfgOf(t, map[string]any{"channels": map[string]any{
		"telegram": map[string]any{"botToken": "111:TOP", "apiBaseUrl": "http://127.0.0.1:1/", "retry": map[string]any{"attempts": float64(5)},
			"accounts": map[string]any{"alerts": map[string]any{"tokenFile": tf}}},
		"slack": map[string]any{"enabled": false, "botToken": "xoxb"},
	}})
	if got := Configured(cfg); strings.Join(got, ",") != "telegram" {
		t.Fatalf("configured %v", got)
	}
	if got := AccountIDs(cfg, "telegram"); strings.Join(got, ",") != "default,alerts" {
		t.Fatalf("accounts %v", got)
	}
	a, err := Resolve(cfg, "telegram", "")
	if err != nil || a.Token != "111:TOP" || a.APIBase != "http://127.0.0.1:1" || a.Attempts != 5 || a.ID != "default" {
		t.Fatalf("%+v %v", a, err)
	}
	a, err = Resolve(cfg, "telegram", "alerts")
	if err != nil || a.Token != "555:FILE" || a.TokenSource != "tokenFile" || a.APIBase != "http://127.0.0.1:1" {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := Resolve(cfg, "telegram", "nope"); err == nil || !strings.Contains(err.Error(), `no account "nope"`) {
		t.Fatalf("%v", err)
	}
	_, err = Resolve(cfg, "discord", "")
	if err == nil || !strings.Contains(err.Error(), "channels.discord.token") || !strings.Contains(err.Error(), "DISCORD_BOT_TOKEN") {
		t.Fatalf("%v", err)
	}
	t.Setenv("DISCORD_BOT_TOKEN", "envtok")
	if a, err = Resolve(cfg, "discord", ""); err != nil || a.Token != "envtok" || a.TokenSource != "env:DISCORD_BOT_TOKEN" || a.APIBase != "https://discord.com/api/v10" {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := Resolve(cfg, "irc", ""); err == nil || !strings.Contains(err.Error(), "unknown channel") {
		t.Fatalf("%v", err)
	}
}
