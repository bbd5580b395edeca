package agentrun_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/protocol"
)

// The privilege attack of issue 30 §1: a turn's tool calls run the
// gateway's admin actions through its tools (the gateway tool's
// config.patch, the cron tool's cron.add, the file tools on the config
// file). escalation is the scripted model's side of it: a turn asked to
// ESCALATE deletes the global tools.deny and adds a cron job; one asked
// to CLOBBER writes the config file; SPAWN and SEND hand ESCALATE to a
// sub-agent and to another agent's session. Every other turn answers
// with its tool results, so the caller sees what the calls returned.
func escalation(cfgPath string) *scripted {
	return &scripted{script: func(req gjson.Result) reply {
		u, tr := lastUser(req), toolResults(req)
		switch {
		case len(tr) > 0:
			return reply{text: strings.Join(tr, "\n---\n")}
		case strings.HasPrefix(u, "A subagent task"), strings.HasPrefix(u, "Agent-to-agent"):
			return reply{text: "ANNOUNCE_SKIP"}
		case strings.Contains(u, "ESCALATE"):
			return reply{calls: [][2]string{
				{"gateway", `{"action":"config.patch","raw":"{tools: {deny: null}}"}`},
				{"cron", `{"action":"add","job":{"name":"planted","schedule":{"kind":"every","everyMs":3600000},` +
					`"sessionTarget":"main","payload":{"kind":"systemEvent","text":"planted"}}}`},
			}}
		case strings.Contains(u, "CLOBBER"):
			return reply{calls: [][2]string{{"write", fmt.Sprintf(`{"path":%q,"content":"{}"}`, cfgPath)}}}
		case strings.Contains(u, "SPAWN"):
			return reply{calls: [][2]string{{"sessions_spawn", `{"task":"ESCALATE"}`}}}
		case strings.Contains(u, "SEND"):
			return reply{calls: [][2]string{{"sessions_send", `{"agentId":"ops","message":"ESCALATE","timeoutSeconds":60}`}}}
		}
		return reply{text: "nothing to do"}
	}}
}

// scopeGateway is a real gateway over the escalation model whose config
// denies exec globally and lets main send to ops.
func scopeGateway(t *testing.T) (g *gatewaytest.Gateway, cfgPath string) {
	dir := t.TempDir()
	cfgPath = filepath.Join(dir, "openclaw.json")
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(escalation(cfgPath))
	t.Cleanup(srv.Close)
	cfg := map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": srv.URL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1", "name": "m1"}}}}},
		"agents": map[string]any{"defaults": map[string]any{"model": "loc/m1", "workspace": ws},
			"list": []any{map[string]any{"id": "main", "default": true}, map[string]any{"id": "ops"}}},
		"tools":   map[string]any{"deny": []any{"exec"}, "agentToAgent": map[string]any{"enabled": true}},
		"session": map[string]any{"agentToAgent": map[string]any{"maxPingPongTurns": 0}},
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return gatewaytest.Start(t, dir, token, 0), cfgPath
}

func dialScopes(t *testing.T, url string, scopes ...string) *client.Conn {
	t.Helper()
	c, err := client.Dial(context.Background(), client.Options{URL: url, Token: token, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// turn runs one agent turn to its end and returns the final answer.
func turn(t *testing.T, c *client.Conn, key, message string) gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.CallWith(ctx, "agent", map[string]any{"message": message, "sessionKey": key, "idempotencyKey": key + message},
		client.CallOptions{ExpectFinal: true})
	if err != nil {
		t.Fatalf("agent %s: %v", message, err)
	}
	return gjson.ParseBytes(out)
}

// denied reports whether the tool config on disk still denies exec.
func denied(t *testing.T, cfgPath string) bool {
	t.Helper()
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(b, `tools.deny.#(=="exec")`).Exists()
}

func cronTotal(t *testing.T, c *client.Conn) int64 {
	t.Helper()
	l, err := c.Call(context.Background(), "cron.list", map[string]any{"includeDisabled": true})
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(l, "total").Int()
}

// A turn started by an operator.write connection holds operator.write:
// its model's gateway config.patch and cron add are refused with the
// missing scope (the config keeps its deny, no job is planted), and its
// write to the config file is refused without naming config.patch as the
// way round. Its sub-agent and the turn its sessions_send starts in
// another agent's session inherit the same scopes and are refused the
// same. The same turn started by an operator.admin connection succeeds.
func TestTurnHoldsTheScopesOfWhoStartedIt(t *testing.T) {
	g, cfgPath := scopeGateway(t)
	writer := dialScopes(t, g.URL, protocol.ScopeWrite)
	admin := dialScopes(t, g.URL, protocol.ScopeAdmin)
	const missing = "missing scope: operator.admin"

	r := turn(t, writer, "agent:main:w", "ESCALATE")
	if r.Get("toolCalls.#").Int() != 2 || !r.Get("toolCalls.0.isError").Bool() || !r.Get("toolCalls.1.isError").Bool() ||
		strings.Count(r.Get("result.payloads.0.text").String(), missing) != 2 {
		t.Fatalf("write-scoped turn: %s", r.Raw)
	}
	if !denied(t, cfgPath) || cronTotal(t, admin) != 0 {
		t.Fatalf("the write-scoped turn changed the config or planted a job")
	}

	r = turn(t, writer, "agent:main:w", "CLOBBER")
	text := r.Get("result.payloads.0.text").String()
	if !r.Get("toolCalls.0.isError").Bool() || !strings.Contains(text, "refusing to write") || strings.Contains(text, "config.patch") {
		t.Fatalf("write-scoped turn writing the config file: %s", r.Raw)
	}

	// sessions_send: the target turn (agent ops) holds the sender's scopes.
	r = turn(t, writer, "agent:main:w", "SEND")
	sent := gjson.Parse(r.Get("result.payloads.0.text").String())
	if sent.Get("status").String() != "ok" || sent.Get("sessionKey").String() != "agent:ops:main" || strings.Count(sent.Get("reply").String(), missing) != 2 {
		t.Fatalf("the turn a send started: %s", r.Raw)
	}

	// sessions_spawn: the child holds the spawner's scopes.
	r = turn(t, writer, "agent:main:w", "SPAWN")
	child := gjson.Get(r.Get("result.payloads.0.text").String(), "childSessionKey").String()
	if child == "" {
		t.Fatalf("spawn: %s", r.Raw)
	}
	waitFor(t, "the child's refused calls", func() (bool, string) {
		h := history(t, admin, child)
		errs := h.Get(`messages.#(role=="toolResult")#.isError`).Array()
		return len(errs) == 2 && errs[0].Bool() && errs[1].Bool() && strings.Count(h.Raw, missing) >= 2, h.Raw
	})
	if !denied(t, cfgPath) || cronTotal(t, admin) != 0 {
		t.Fatalf("a sub-agent or a send changed the config or planted a job")
	}

	r = turn(t, admin, "agent:main:a", "ESCALATE")
	if r.Get("toolCalls.#").Int() != 2 || r.Get("toolCalls.0.isError").Bool() || r.Get("toolCalls.1.isError").Bool() {
		t.Fatalf("admin-scoped turn: %s", r.Raw)
	}
	if denied(t, cfgPath) || cronTotal(t, admin) != 1 {
		t.Fatalf("the admin-scoped turn did not change the config and add the job")
	}
}

// A cron job's agent turns hold the scopes recorded for its creator (an
// admin here: its config.patch goes through); a job stored before scopes
// were recorded (the column NULL, as after an upgrade) holds the least a
// turn can, operator.write: the same config.patch is refused.
func TestCronTurnHoldsItsCreatorsScopes(t *testing.T) {
	g, cfgPath := scopeGateway(t)
	admin := dialScopes(t, g.URL, protocol.ScopeAdmin)
	ctx := context.Background()
	add, err := admin.Call(ctx, "cron.add", map[string]any{"name": "esc", "schedule": map[string]any{"kind": "every", "everyMs": 3_600_000},
		"sessionTarget": "isolated", "payload": map[string]any{"kind": "agentTurn", "message": "ESCALATE"}, "delivery": map[string]any{"mode": "none"}})
	if err != nil {
		t.Fatal(err)
	}
	id := gjson.GetBytes(add, "id").String()
	key := "agent:main:cron:" + id
	runOnce := func(c *client.Conn, n int) []gjson.Result {
		t.Helper()
		if _, err := c.Call(ctx, "cron.run", map[string]any{"id": id, "mode": "force"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the cron run", func() (bool, string) {
			r, err := c.Call(ctx, "cron.runs", map[string]any{"id": id})
			if err != nil {
				return false, err.Error()
			}
			return gjson.GetBytes(r, `entries.#(action=="finished")#|#`).Int() == int64(n), string(r)
		})
		res := history(t, c, key).Get(`messages.#(role=="toolResult")#`).Array()
		if len(res) != 2*n {
			t.Fatalf("%d tool results after %d runs", len(res), n)
		}
		return res[len(res)-2:]
	}
	for _, r := range runOnce(admin, 1) {
		if r.Get("isError").Bool() {
			t.Fatalf("the admin-created job's turn was refused: %s", r.Raw)
		}
	}
	if denied(t, cfgPath) {
		t.Fatal("the admin-created job's config.patch did not apply")
	}

	// Put the deny back, and make the job a legacy row: no scopes recorded.
	g.Stop()
	b, _ := os.ReadFile(cfgPath)
	var cfg map[string]any
	_ = json.Unmarshal(b, &cfg)
	cfg["tools"].(map[string]any)["deny"] = []any{"exec"}
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(g.Dir, "openclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := db.Exec(`UPDATE cron_jobs SET scopes = NULL WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%d rows", n)
	}
	db.Close()

	g2 := gatewaytest.Start(t, g.Dir, token, 0)
	admin2 := dialScopes(t, g2.URL, protocol.ScopeAdmin)
	for _, r := range runOnce(admin2, 2) {
		if !r.Get("isError").Bool() || !strings.Contains(r.Raw, "missing scope: operator.admin") {
			t.Fatalf("the legacy job's turn was not refused: %s", r.Raw)
		}
	}
	if !denied(t, cfgPath) {
		t.Fatal("the legacy job's turn changed the config")
	}
}
