package agentrun_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

// A cron job's agentTurn payload runs through the agent runtime in the
// job's session: the turn calls the cron tool itself (a service the
// runtime does not Require, reached through the gateway's full Env), and
// the run entry records the reply as its summary.
func TestCronAgentTurnRuns(t *testing.T) {
	m := &scripted{script: func(req gjson.Result) reply {
		if tr := toolResults(req); len(tr) > 0 {
			n := gjson.Get(tr[0], "jobs.#").Int()
			return reply{text: "cron has " + strings.Repeat("I", int(n)) + " job(s)"}
		}
		return reply{calls: [][2]string{{"cron", `{"action":"list"}`}}}
	}}
	url, _ := flowGateway(t, m, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Token: token, Scopes: []string{protocol.ScopeAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	add, err := c.Call(ctx, "cron.add", map[string]any{"name": "report", "schedule": map[string]any{"kind": "every", "everyMs": 3_600_000},
		"sessionTarget": "isolated", "payload": map[string]any{"kind": "agentTurn", "message": "how many cron jobs?"}, "delivery": map[string]any{"mode": "none"}})
	if err != nil {
		t.Fatal(err)
	}
	id := gjson.GetBytes(add, "id").String()
	if _, err := c.Call(ctx, "cron.run", map[string]any{"id": id, "mode": "force"}); err != nil {
		t.Fatal(err)
	}
	var entry gjson.Result
	waitFor(t, "the cron run", func() (bool, string) {
		r, err := c.Call(ctx, "cron.runs", map[string]any{"id": id})
		if err != nil {
			return false, err.Error()
		}
		entry = gjson.GetBytes(r, `entries.#(action=="finished")`)
		return entry.Exists(), string(r)
	})
	if entry.Get("status").String() != "ok" || entry.Get("summary").String() != "cron has I job(s)" ||
		entry.Get("sessionKey").String() != "agent:main:cron:"+id {
		t.Fatalf("run entry %s", entry.Raw)
	}
	h := history(t, c, "agent:main:cron:"+id)
	if h.Get(`messages.#(role=="toolResult").toolName`).String() != "cron" || h.Get(`messages.#(role=="toolResult").isError`).Bool() {
		t.Fatalf("cron session transcript %s", h.Raw)
	}

	// status carries the real session figures (recent rows for admins),
	// and skills.status the original's report shape.
	st, err := c.Call(ctx, "status", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	ss := gjson.GetBytes(st, "sessions")
	if ss.Get("count").Int() != 1 || ss.Get("recent.0.key").String() != "agent:main:cron:"+id || ss.Get("byAgent.0.agentId").String() != "main" ||
		ss.Get("byAgent.0.count").Int() != 1 || ss.Get("recent.0.model").String() != "loc/m1" {
		t.Fatalf("status.sessions %s", ss.Raw)
	}
	sk, err := c.Call(ctx, "skills.status", map[string]any{"agentId": "main"})
	if err != nil || !gjson.GetBytes(sk, "skills").IsArray() || gjson.GetBytes(sk, "workspaceDir").String() == "" {
		t.Fatalf("skills.status %s %v", sk, err)
	}
}
