package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

// toolCall runs the `cron` agent tool as a model's turn would (an agent
// subject with a session key) and returns the details of its jsonResult.
func toolCall(h *harness, sessionKey, args string) (gjson.Result, error) {
	h.t.Helper()
	env := *h.env
	env.Subject = tools.Subject{Kind: tools.CallerAgent, AgentID: tools.AgentFromSessionKey(sessionKey), SessionKey: sessionKey}
	out, err := tools.Invoke(context.Background(), &env, tools.Call{Tool: "cron", Args: json.RawMessage(args)})
	r := gjson.ParseBytes(out)
	if err == nil && (r.Get("content.0.type").String() != "text" || !r.Get("details").Exists()) {
		h.t.Fatalf("not a jsonResult: %s", out)
	}
	return r.Get("details"), err
}

// The tool's actions map onto the methods as the original's tool does:
// add takes job (or its fields flattened at the top level) and fills in
// the caller's agent and session and an announce target from the session
// key; update takes jobId + patch (id as the older alias); run defaults to
// force; wake defaults to next-heartbeat; per-action requirements are
// checked at run time.
func TestCronTool(t *testing.T) {
	h := newHarness(t, "")
	key := "agent:ops:telegram:group:-1001234567890:topic:42"
	j, err := toolCall(h, key, `{"action":"add","schedule":{"kind":"every","everyMs":60000},"message":"check the build"}`)
	if err != nil {
		t.Fatal(err)
	}
	id := j.Get("id").String()
	if j.Get("agentId").String() != "ops" || j.Get("sessionKey").String() != key || j.Get("sessionTarget").String() != "isolated" ||
		j.Get("delivery.channel").String() != "telegram" || j.Get("delivery.to").String() != "-1001234567890:topic:42" {
		t.Fatalf("flattened add: %s", j.Raw)
	}
	if _, err := toolCall(h, key, `{"action":"add"}`); err == nil || err.Error() != "job required" {
		t.Fatalf("add without a job: %v", err)
	}
	if _, err := toolCall(h, key, `{"action":"update","patch":{"name":"x"}}`); err == nil ||
		err.Error() != "jobId required (id accepted for backward compatibility)" {
		t.Fatalf("update without an id: %v", err)
	}
	if _, err := toolCall(h, key, `{"action":"update","jobId":"`+id+`"}`); err == nil || err.Error() != "patch required" {
		t.Fatalf("update without a patch: %v", err)
	}
	if u, err := toolCall(h, key, `{"action":"update","id":"`+id+`","patch":{"name":"renamed"}}`); err != nil || u.Get("name").String() != "renamed" {
		t.Fatalf("update by id: %s %v", u.Raw, err)
	}
	if l, _ := toolCall(h, key, `{"action":"list"}`); l.Get("total").Int() != 1 {
		t.Fatalf("list: %s", l.Raw)
	}
	if r, err := toolCall(h, key, `{"action":"run","jobId":"`+id+`"}`); err != nil || !r.Get("enqueued").Bool() {
		t.Fatalf("run: %s %v", r.Raw, err)
	}
	h.idle()
	if r, _ := toolCall(h, key, `{"action":"runs","jobId":"`+id+`"}`); r.Get("entries.0.error").String() != noRuntimeError {
		t.Fatalf("runs: %s", r.Raw)
	}
	if w, err := toolCall(h, key, `{"action":"wake","text":"remember the standup"}`); err != nil || !w.Get("ok").Bool() {
		t.Fatalf("wake: %s %v", w.Raw, err)
	}
	evs, _ := h.s.PendingSystemEvents(context.Background(), "agent:main:main")
	if len(evs) != 1 || evs[0].WakeMode != WakeNextHeartbeat {
		t.Fatalf("wake queued: %+v", evs)
	}
	if _, err := toolCall(h, key, `{"action":"wake"}`); err == nil || err.Error() != "text required" {
		t.Fatalf("wake without text: %v", err)
	}
	if s, _ := toolCall(h, key, `{"action":"status"}`); s.Get("jobs").Int() != 1 {
		t.Fatalf("status: %s", s.Raw)
	}
	if r, err := toolCall(h, key, `{"action":"remove","jobId":"`+id+`"}`); err != nil || !r.Get("removed").Bool() {
		t.Fatalf("remove: %s %v", r.Raw, err)
	}
	if _, err := toolCall(h, key, `{"action":"fly"}`); err == nil {
		t.Fatal("an unknown action was accepted")
	}
	// The agent-facing schema is one flat object with the action enum.
	schema, err := tools.AgentSchema("cron")
	if err != nil || gjson.GetBytes(schema, "properties.action.enum.#").Int() != 8 || gjson.GetBytes(schema, "anyOf").Exists() {
		t.Fatalf("schema: %s %v", schema, err)
	}
}

// Human output: the list as a table with relative next and last runs,
// schedules as the original prints them; cron next in the zone asked for.
func TestRenderers(t *testing.T) {
	now := time.Now().UnixMilli()
	list := `{"jobs":[{"id":"a1","name":"ping","enabled":true,"schedule":{"kind":"every","everyMs":600000},"sessionTarget":"main",
		"state":{"nextRunAtMs":` + itoa(now+10*60_000+5000) + `,"lastRunAtMs":` + itoa(now-3*3_600_000-1000) + `,"lastRunStatus":"ok"},"effectiveAgentId":"main"},
		{"id":"b2","name":"hourly","enabled":true,"schedule":{"kind":"cron","expr":"0 * * * *","tz":"Europe/Berlin","staggerMs":300000},
		"sessionTarget":"isolated","delivery":{"mode":"webhook","to":"https://example.com/h"},"state":{}}],"total":5}`
	var b bytes.Buffer
	if err := renderList(&b, gjson.Parse(list)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"ID", "Next", "every 10m", "in 10m", "3h ago", "ok", "cron 0 * * * * @ Europe/Berlin (stagger 5m)",
		"idle", "webhook -> https://example.com/h", "(2 of 5 jobs)"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	_ = renderNext(&b, gjson.Parse(`{"runs":[1772868600000],"tz":"America/New_York"}`))
	if !strings.HasPrefix(b.String(), "Sat 2026-03-07 02:30:00 -05:00 EST") {
		t.Errorf("next: %q", b.String())
	}
	if exactDuration(5_400_000) != "1h30m" || exactDuration(7*86_400_000) != "7d" || span(59_999) != "<1m" {
		t.Error("durations")
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
