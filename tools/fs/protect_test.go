package fs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/tools"
)

func refused(p string) string {
	return "refusing to write " + p + ": it is the gateway's own configuration or state, which this caller may not change; " +
		"leave it as it is, or ask the user to change it"
}

// gatewayEnv is what a gateway caller's handler sees: the state dir, the
// loaded config (with its path), a role and scopes.
func gatewayEnv(t *testing.T, cfgPath string, scopes ...string) (*tools.Env, string) {
	t.Helper()
	state := t.TempDir()
	if cfgPath == "" {
		cfgPath = filepath.Join(state, "openclaw.json")
	}
	writeFile(t, filepath.Dir(cfgPath), filepath.Base(cfgPath), `{"gateway":{"auth":{"mode":"token","token":"s3cret"}}}`)
	cfg, err := config.Load(cfgPath, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return &tools.Env{Config: cfg, StateDir: state,
		Subject: tools.Subject{Role: "operator", Scopes: scopes}}, state
}

// Gateway callers without operator.admin cannot write the gateway's config,
// state or credentials through write/edit (symlinks resolved first); the
// agent workspace inside the state dir stays writable; admins and the
// local CLI user (no role) are not restricted.
func TestGatewayFilesNeedAdmin(t *testing.T) {
	env, state := gatewayEnv(t, "", "operator.write")
	cfg := filepath.Join(state, "openclaw.json")
	writeFile(t, state, "credentials/whatsapp/creds.json", "{}")
	writeFile(t, state, "workspace/notes.md", "hello\n")
	symlink(t, cfg, filepath.Join(state, "workspace", "cfg-link.json"))
	symlink(t, filepath.Join(state, "credentials"), filepath.Join(state, "workspace", "creds"))
	symlink(t, filepath.Join(state, "new.json"), filepath.Join(state, "workspace", "dangling.json"))

	for _, c := range []struct{ id, path string }{
		{"write", cfg},
		{"edit", cfg},
		{"write", filepath.Join(state, "credentials", "whatsapp", "creds.json")},
		{"write", filepath.Join(state, "devices.json")},
		{"write", filepath.Join(state, "new-dir", "x.json")},
		{"write", "cfg-link.json"},
		{"edit", "cfg-link.json"},
		{"write", "creds/whatsapp/creds.json"},
		{"write", "../openclaw.json"},
		{"write", cfg + ".bak"},
		{"write", "dangling.json"},
	} {
		_, err := call(t, env, c.id, map[string]any{"path": c.path, "content": `{"gateway":{"auth":{"mode":"none"}}}`,
			"oldText": "token", "newText": "none"})
		wantErr(t, err, tools.CodeDenied, refused(c.path))
		if code := tools.AsError(err).ExitCode(); code != 3 {
			t.Fatalf("exit code %d", code)
		}
	}
	if got := readFile(t, cfg); got != `{"gateway":{"auth":{"mode":"token","token":"s3cret"}}}` {
		t.Fatalf("config changed: %s", got)
	}
	for _, p := range []string{"new-dir", "new.json", "openclaw.json.bak"} {
		if _, err := os.Stat(filepath.Join(state, p)); !os.IsNotExist(err) {
			t.Fatalf("a refused write created %s: %v", p, err)
		}
	}

	// The workspace (relative paths land there) is the caller's to write.
	mustCall(t, env, "write", map[string]any{"path": "notes.md", "content": "changed\n"})
	mustCall(t, env, "edit", map[string]any{"path": filepath.Join(state, "workspace", "notes.md"), "oldText": "changed", "newText": "edited"})
	mustCall(t, env, "write", map[string]any{"path": "sub/new.md", "content": "x"})
	if got := readFile(t, filepath.Join(state, "workspace", "notes.md")); got != "edited\n" {
		t.Fatalf("workspace file = %q", got)
	}
	// Reading is not this rule's business.
	mustCall(t, env, "read", map[string]any{"path": cfg})

	admin := *env
	admin.Subject.Scopes = []string{"operator.admin"}
	mustCall(t, &admin, "edit", map[string]any{"path": cfg, "oldText": "s3cret", "newText": "rotated"})
	local := *env
	local.Subject = tools.Subject{}
	mustCall(t, &local, "edit", map[string]any{"path": cfg, "oldText": "rotated", "newText": "again"})
	// A model turn or an MCP client in this process came over no gateway
	// connection, but it is not the machine's user either (issue 16).
	for _, sub := range []tools.Subject{{Kind: tools.CallerAgent, AgentID: "main"}, {Kind: tools.CallerMCP}, {SessionKey: "agent:main:x"}} {
		in := *env
		in.Subject = sub
		_, err := call(t, &in, "write", map[string]any{"path": cfg, "content": "{}"})
		wantErr(t, err, tools.CodeDenied, refused(cfg))
	}
}

// A config file outside the state dir (OPENCLAW_CONFIG_PATH), and the files
// it includes, are protected where they live.
func TestGatewayConfigElsewhereNeedsAdmin(t *testing.T) {
	etc := t.TempDir()
	writeFile(t, etc, "auth.json5", `{"mode":"token","token":"s3cret"}`)
	cfgPath := filepath.Join(etc, "gw.json")
	writeFile(t, etc, "gw.json", `{"gateway":{"auth":{"$include":"./auth.json5"}}}`)
	cfg, err := config.Load(cfgPath, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Config: cfg, StateDir: t.TempDir(), Subject: tools.Subject{Role: "operator", Scopes: []string{"operator.write"}}}
	for _, p := range []string{cfgPath, filepath.Join(etc, "auth.json5")} {
		_, err := call(t, env, "write", map[string]any{"path": p, "content": "{}"})
		wantErr(t, err, tools.CodeDenied, refused(p))
	}
	mustCall(t, env, "write", map[string]any{"path": filepath.Join(etc, "other.txt"), "content": "fine"})
}

// End to end: a write-scoped client of a real gateway cannot turn auth off
// through tools.invoke write; an admin client can write the same file.
func TestGatewayRefusesConfigWriteOverWire(t *testing.T) {
	state := t.TempDir()
	cfgPath := filepath.Join(state, "openclaw.json")
	const cfgText = `{"gateway":{"auth":{"mode":"token","token":"s3cret"}}}`
	writeFile(t, state, "openclaw.json", cfgText)
	s, err := gateway.New(gateway.Options{
		Paths:  config.Paths{StateDir: state, ConfigPath: cfgPath},
		Getenv: func(string) string { return "" }, Version: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	defer func() { cancel(); <-served }()

	dial := func(scopes ...string) *client.Conn {
		c, err := client.Dial(ctx, client.Options{URL: "ws://" + s.Addr(), Token: "s3cret", Scopes: scopes})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	invoke := map[string]any{"name": "write", "args": map[string]any{"path": cfgPath, "content": `{"gateway":{"auth":{"mode":"none"}}}`}}
	out, err := dial("operator.write").Call(ctx, "tools.invoke", invoke)
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(out)
	if r.Get("ok").Bool() || r.Get("error.code").String() != tools.CodeDenied || r.Get("error.message").String() != refused(cfgPath) {
		t.Fatalf("write-scoped tools.invoke write of the config: %s", out)
	}
	if got := readFile(t, cfgPath); got != cfgText {
		t.Fatalf("config changed: %s", got)
	}
	ws := filepath.Join(state, "workspace", "ok.txt")
	out, err = dial("operator.write").Call(ctx, "tools.invoke", map[string]any{"name": "write", "args": map[string]any{"path": "ok.txt", "content": "ok"}})
	if err != nil || !gjson.GetBytes(out, "ok").Bool() {
		t.Fatalf("workspace write: %s %v", out, err)
	}
	if got := readFile(t, ws); got != "ok" {
		t.Fatalf("workspace file = %q", got)
	}
	admin := map[string]any{"name": "edit", "args": map[string]any{"path": cfgPath, "oldText": "s3cret", "newText": "rotated"}}
	out, err = dial("operator.admin").Call(ctx, "tools.invoke", admin)
	if err != nil || !gjson.GetBytes(out, "ok").Bool() {
		t.Fatalf("admin edit of the config: %s %v", out, err)
	}
}

// Workspaces the config names inside the state dir are writable; a
// workspace that contains the state dir does not open the state dir up.
func TestGatewayWorkspacesFromConfig(t *testing.T) {
	env, state := gatewayEnv(t, "", "operator.write")
	home := filepath.Dir(state)
	env.Config.Doc["agents"] = map[string]any{
		"defaults": map[string]any{"workspace": filepath.Join(state, "ws-default")},
		"list": []any{
			map[string]any{"id": "main", "workspace": home},
			map[string]any{"id": "helper", "workspace": filepath.Join(state, "ws-helper")},
		},
	}
	for _, p := range []string{filepath.Join(state, "ws-default", "a.txt"), filepath.Join(state, "ws-helper", "b.txt")} {
		mustCall(t, env, "write", map[string]any{"path": p, "content": "ok"})
	}
	// main's workspace is the state dir's parent: relative paths land
	// there, but the state dir inside it stays protected.
	mustCall(t, env, "write", map[string]any{"path": "outside-state.txt", "content": "ok"})
	p := filepath.Join(filepath.Base(state), "openclaw.json")
	_, err := call(t, env, "write", map[string]any{"path": p, "content": "{}"})
	wantErr(t, err, tools.CodeDenied, refused(p))
	p = filepath.Join(filepath.Base(state), "credentials", "x.json")
	_, err = call(t, env, "write", map[string]any{"path": p, "content": "{}"})
	wantErr(t, err, tools.CodeDenied, refused(p))
}
