package cron_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

const token = "cron-test-token"

// startGateway runs a real gateway (the cron service with the others) on
// a free loopback port, state in dir.
func startGateway(t *testing.T, dir string) string {
	t.Helper()
	return gatewaytest.Start(t, dir, token, 0).URL
}

func dial(t *testing.T, url string, scopes []string, onEvent func(protocol.Event)) *client.Conn {
	t.Helper()
	c, err := client.Dial(context.Background(), client.Options{URL: url, Token: token, Scopes: scopes, OnEvent: onEvent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The methods keep the original's scopes: a least-privilege reader (the
// original CLI asks cron.list with operator.read) lists, reads status and
// runs; adding, changing, running and removing need operator.admin; wake
// needs operator.write. Changes and runs reach readers as `cron` events.
func TestScopesAndEventsOverTheGateway(t *testing.T) {
	url := startGateway(t, t.TempDir())
	var mu sync.Mutex
	var events []gjson.Result
	reader := dial(t, url, []string{protocol.ScopeRead}, func(ev protocol.Event) {
		if ev.Event == "cron" {
			mu.Lock()
			events = append(events, gjson.ParseBytes(ev.Payload))
			mu.Unlock()
		}
	})
	admin := dial(t, url, []string{protocol.ScopeAdmin}, nil)
	writer := dial(t, url, []string{protocol.ScopeWrite}, nil)
	ctx := context.Background()

	for _, m := range []string{"cron.status", "cron.list"} {
		if _, err := reader.Call(ctx, m, map[string]any{}); err != nil {
			t.Fatalf("%s as reader: %v", m, err)
		}
	}
	job := map[string]any{"name": "g", "schedule": map[string]any{"kind": "every", "everyMs": 3_600_000},
		"sessionTarget": "main", "wakeMode": "now", "payload": map[string]any{"kind": "systemEvent", "text": "hi"}}
	if _, err := reader.Call(ctx, "cron.add", job); !isMissingScope(err, protocol.ScopeAdmin) {
		t.Fatalf("cron.add as reader: %v", err)
	}
	if _, err := writer.Call(ctx, "cron.add", job); !isMissingScope(err, protocol.ScopeAdmin) {
		t.Fatalf("cron.add as writer: %v", err)
	}
	out, err := admin.Call(ctx, "cron.add", job)
	if err != nil {
		t.Fatal(err)
	}
	id := gjson.GetBytes(out, "id").String()
	if _, err := reader.Call(ctx, "cron.run", map[string]any{"id": id}); !isMissingScope(err, protocol.ScopeAdmin) {
		t.Fatalf("cron.run as reader: %v", err)
	}
	if _, err := reader.Call(ctx, "wake", map[string]any{"text": "x", "mode": "now"}); !isMissingScope(err, protocol.ScopeWrite) {
		t.Fatalf("wake as reader: %v", err)
	}
	if out, err := writer.Call(ctx, "wake", map[string]any{"text": "x", "mode": "now"}); err != nil || string(out) != `{"ok":true}` {
		t.Fatalf("wake as writer: %s %v", out, err)
	}
	run, err := admin.Call(ctx, "cron.run", map[string]any{"id": id})
	if err != nil {
		t.Fatal(err)
	}
	runID := gjson.GetBytes(run, "runId").String()
	// The run finishes in the background; a reader polls cron.runs as the
	// original CLI's `cron run --wait` does.
	deadline := time.Now().Add(20 * time.Second)
	for {
		page, err := reader.Call(ctx, "cron.runs", map[string]any{"id": id, "runId": runID, "limit": 1})
		if err != nil {
			t.Fatal(err)
		}
		if gjson.GetBytes(page, "entries.0.status").String() == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run not finished: %s", page)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The run was a gateway task (tasks list shows it, with its job).
	tasks, err := reader.Call(ctx, "tasks.list", map[string]any{})
	if err != nil || gjson.GetBytes(tasks, `tasks.#(kind=="cron").owner`).String() != id ||
		gjson.GetBytes(tasks, `tasks.#(kind=="cron").status`).String() != "ok" {
		t.Fatalf("tasks: %s %v", tasks, err)
	}
	// The list page is the canonical one the original CLI checks.
	page, err := reader.Call(ctx, "cron.list", map[string]any{"includeDisabled": true, "limit": 200, "offset": 0})
	if err != nil {
		t.Fatal(err)
	}
	p := gjson.ParseBytes(page)
	if p.Get("total").Int() != 1 || p.Get("offset").Int() != 0 || p.Get("limit").Int() != 200 || p.Get("hasMore").Bool() ||
		p.Get("nextOffset").Type != gjson.Null || p.Get("snapshotRevision").String() == "" || p.Get("jobs.0.effectiveAgentId").String() != "main" {
		t.Fatalf("page: %s", page)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		var acts []string
		for _, e := range events {
			acts = append(acts, e.Get("action").String())
		}
		mu.Unlock()
		if strings.Join(acts, ",") == "added,started,finished" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cron events seen by a reader: %v", acts)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func isMissingScope(err error, scope string) bool {
	return err != nil && strings.Contains(failure.AsError(err).Message, "missing scope: "+scope)
}

// cron.update and cron.remove need operator.admin: a writer (and a
// reader) is refused with the missing scope and the job stays as it was;
// an admin changes and removes it.
func TestUpdateAndRemoveNeedAdmin(t *testing.T) {
	url := startGateway(t, t.TempDir())
	admin := dial(t, url, []string{protocol.ScopeAdmin}, nil)
	writer := dial(t, url, []string{protocol.ScopeWrite, protocol.ScopeRead}, nil)
	ctx := context.Background()
	out, err := admin.Call(ctx, "cron.add", map[string]any{"name": "keep", "schedule": map[string]any{"kind": "every", "everyMs": 3_600_000},
		"sessionTarget": "main", "payload": map[string]any{"kind": "systemEvent", "text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	id := gjson.GetBytes(out, "id").String()
	if _, err := writer.Call(ctx, "cron.update", map[string]any{"id": id, "patch": map[string]any{"name": "changed", "enabled": false}}); !isMissingScope(err, protocol.ScopeAdmin) {
		t.Fatalf("cron.update as writer: %v", err)
	}
	if _, err := writer.Call(ctx, "cron.remove", map[string]any{"id": id}); !isMissingScope(err, protocol.ScopeAdmin) {
		t.Fatalf("cron.remove as writer: %v", err)
	}
	got, err := writer.Call(ctx, "cron.get", map[string]any{"id": id})
	if err != nil || gjson.GetBytes(got, "name").String() != "keep" || !gjson.GetBytes(got, "enabled").Bool() {
		t.Fatalf("the job after a writer's update and remove: %s %v", got, err)
	}
	if u, err := admin.Call(ctx, "cron.update", map[string]any{"id": id, "patch": map[string]any{"name": "changed"}}); err != nil ||
		gjson.GetBytes(u, "name").String() != "changed" {
		t.Fatalf("cron.update as admin: %s %v", u, err)
	}
	if _, err := admin.Call(ctx, "cron.remove", map[string]any{"id": id}); err != nil {
		t.Fatalf("cron.remove as admin: %v", err)
	}
	if _, err := admin.Call(ctx, "cron.get", map[string]any{"id": id}); err == nil {
		t.Fatal("the job is still there after remove")
	}
}

// `cron add --message` on a gateway with no channel configured: the job
// would announce its reply and every run would fail for want of a target.
// The original's gateway adds such a job (its CLI announces by default),
// so ours adds it too but warns: the answer's deliveryPreview says every
// run will fail and names the fix. --no-deliver and --best-effort-deliver
// get no warning.
func TestAddAnnounceWithoutAChannelWarns(t *testing.T) {
	dir := t.TempDir()
	url := startGateway(t, dir)
	t.Setenv("HOME", dir)
	t.Setenv("OPENCLAW_STATE_DIR", filepath.Join(dir, "cli"))
	t.Setenv("OPENCLAW_GATEWAY_URL", url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", token)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := commands.Main(append([]string{"openclaw", "cron", "add", "--name", "brief", "--every", "1h", "--message", "summarise"}, args...),
			strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errOut := run()
	p := gjson.Get(out, "deliveryPreview")
	id := gjson.Get(out, "id").String()
	if code != 0 || p.Get("label").String() != "no target" || !strings.Contains(p.Get("detail").String(), "no channel is configured") ||
		!strings.Contains(p.Get("detail").String(), "openclaw cron edit "+id+" --no-deliver") {
		t.Fatalf("announce with no channel: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, flag := range []string{"--no-deliver", "--best-effort-deliver"} {
		if code, out, errOut := run(flag); code != 0 || gjson.Get(out, "deliveryPreview").Exists() {
			t.Fatalf("%s: exit %d\n%s\n%s", flag, code, out, errOut)
		}
	}
	c := dial(t, url, []string{protocol.ScopeRead}, nil)
	l, err := c.Call(context.Background(), "cron.list", map[string]any{})
	if err != nil || gjson.GetBytes(l, "total").Int() != 3 {
		t.Fatalf("jobs: %s %v", l, err)
	}
}
