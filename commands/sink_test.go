package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

// Test-only tools, registered only in processes started with
// OPENCLAW_TEST_SINK=1 so the generated docs and listings stay real:
// test_progress reports progress and an event; test_needs_jobs needs the
// gateway's job runner.
func init() {
	if os.Getenv("OPENCLAW_TEST_SINK") != "1" {
		return
	}
	tools.Register(&tools.Action{Tool: "test_progress", Summary: "Report progress (test)", Where: tools.Local,
		Run: func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			for i := int64(1); i <= 3; i++ {
				env.Progress("copying", i, 3)
			}
			env.Event("note", map[string]any{"n": 1})
			return map[string]any{"copied": 3}, nil
		}})
	tools.Register(&tools.Action{Tool: "test_needs_jobs", Summary: "Start a background job (test)", Where: tools.Local,
		Run: func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			jobs, err := env.NeedJobs("test_needs_jobs")
			if err != nil {
				return nil, err
			}
			info, err := jobs.Start(tools.JobSpec{Kind: "test", Run: func(context.Context, tools.Sink) (any, error) {
				return map[string]any{"ran": true}, nil
			}})
			if err != nil {
				return nil, err
			}
			return map[string]any{"taskId": info.ID}, nil
		}})
}

// sinkRun runs the CLI with the test tools; on a PTY (stdout and stderr
// both the terminal) it returns everything the terminal received as out.
func sinkRun(t *testing.T, useTTY bool, args ...string) (out, errOut string, code int) {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENCLAW_STATE_DIR="+filepath.Join(dir, ".openclaw"), "NO_COLOR=1", "OPENCLAW_TEST_SINK=1")
	if !useTTY {
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return so.String(), se.String(), code
	}
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&buf, f); close(done) }()
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return buf.String(), "", code
}

// On a terminal the progress line is drawn on stderr and cleared before
// the result; piped, nothing but the result JSON appears.
func TestProgressLineOnlyOnTTY(t *testing.T) {
	tty, _, code := sinkRun(t, true, "test-progress")
	if code != 0 {
		t.Fatalf("exit %d: %q", code, tty)
	}
	if !strings.Contains(tty, "\rcopying  1/3 (33%)") || !strings.Contains(tty, "\rcopying  3/3 (100%)") {
		t.Errorf("no progress line on the terminal: %q", tty)
	}
	if !strings.Contains(tty, `"copied": 3`) {
		t.Errorf("no result on the terminal: %q", tty)
	}
	out, errOut, code := sinkRun(t, false, "test-progress")
	if code != 0 || out != "{\"copied\":3}\n" || errOut != "" {
		t.Errorf("piped: exit %d, stdout %q, stderr %q; want only the result JSON", code, out, errOut)
	}
	// --json on a terminal: no progress either.
	tty, _, _ = sinkRun(t, true, "test-progress", "--json")
	if strings.Contains(tty, "copying") {
		t.Errorf("progress drawn with --json: %q", tty)
	}
}

// --stream prints NDJSON: one object per progress report and event, then
// the result line.
func TestStreamPrintsNDJSON(t *testing.T) {
	out, errOut, code := sinkRun(t, false, "test-progress", "--stream")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want 3 progress + 1 event + result, got %d lines:\n%s", len(lines), out)
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not JSON: %q", i+1, l)
		}
	}
	for i := 0; i < 3; i++ {
		v := gjson.Parse(lines[i])
		if v.Get("type").Str != "progress" || v.Get("message").Str != "copying" || v.Get("done").Int() != int64(i+1) || v.Get("total").Int() != 3 {
			t.Errorf("progress line %d: %s", i+1, lines[i])
		}
	}
	if v := gjson.Parse(lines[3]); v.Get("type").Str != "event" || v.Get("event").Str != "note" || v.Get("payload.n").Int() != 1 {
		t.Errorf("event line: %s", lines[3])
	}
	if lines[4] != `{"copied":3}` {
		t.Errorf("result line: %s", lines[4])
	}
	// On a terminal too, --stream is NDJSON and draws no progress line.
	tty, _, _ := sinkRun(t, true, "test-progress", "--stream")
	if strings.Contains(tty, "\rcopying") || !strings.Contains(tty, `"type":"progress"`) {
		t.Errorf("progress line drawn with --stream: %q", tty)
	}
}

// A relayed call streams the gateway's tool.progress/tool.event frames the
// same way, and a handler that needs jobs fails on the CLI with exit 5 and
// the hint, but runs on the gateway.
func TestStreamRelayedAndJobsNeedGateway(t *testing.T) {
	t.Setenv("OPENCLAW_TEST_SINK", "1") // the gateway process registers the test tools too
	g := startGateway(t, "")
	url, gwLogs := g.url, g.logs

	out, errOut, code := sinkRun(t, false, "test-progress", "--stream", "--url", url, "--token", "sig")
	if code != 0 {
		t.Fatalf("relayed: exit %d: %s %s\n%s", code, out, errOut, gwLogs.String())
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 || gjson.Parse(lines[0]).Get("type").Str != "progress" || lines[len(lines)-1] != `{"copied":3}` {
		t.Errorf("relayed --stream:\n%s", out)
	}
	var sawEvent bool
	for _, l := range lines {
		sawEvent = sawEvent || (gjson.Get(l, "type").Str == "event" && gjson.Get(l, "event").Str == "note")
	}
	if !sawEvent {
		t.Errorf("relayed --stream lost the event:\n%s", out)
	}

	out, errOut, code = sinkRun(t, false, "test-needs-jobs")
	if code != 5 || !strings.Contains(errOut, "openclaw serve") {
		t.Errorf("jobs on the CLI: exit %d, stderr %q, want 5 and the serve hint", code, errOut)
	}
	out, errOut, code = sinkRun(t, false, "test-needs-jobs", "--url", url, "--token", "sig")
	id := gjson.Get(out, "taskId").Str
	if code != 0 || id == "" {
		t.Fatalf("jobs on the gateway: exit %d, %s %s", code, out, errOut)
	}
	// openclaw tasks: the job is listed and its result readable by id.
	out, errOut, code = sinkRun(t, false, "tasks", "list", "--url", url, "--token", "sig")
	if code != 0 || !strings.Contains(out, id) {
		t.Errorf("tasks list: exit %d, %s %s", code, out, errOut)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, errOut, code = sinkRun(t, false, "tasks", "get", id, "--url", url, "--token", "sig")
		if code != 0 || gjson.Get(out, "task.status").Str != "running" || time.Now().After(deadline) {
			break
		}
	}
	if code != 0 || gjson.Get(out, "task.status").Str != "ok" || !gjson.Get(out, "task.result.ran").Bool() {
		t.Errorf("tasks get: exit %d, %s %s", code, out, errOut)
	}
	out, errOut, code = sinkRun(t, false, "tasks", "cancel", "no-such-task", "--url", url, "--token", "sig")
	if code == 0 || !strings.Contains(errOut, "task not found: no-such-task") {
		t.Errorf("tasks cancel of an unknown id: exit %d, %s %s", code, out, errOut)
	}
}

// Issue 30 item 24: a step with no count yet (browser start's "launching
// chromium", 0 of an unknown total) shows its message alone.
func TestProgressTextWithoutACount(t *testing.T) {
	for _, c := range []struct {
		msg         string
		done, total int64
		want        string
	}{
		{"launching chromium", 0, -1, "launching chromium"},
		{"Fetching…", 2048, -1, "Fetching…  2048"},
		{"copying", 1, 3, "copying  1/3 (33%)"},
		{"browser ready", 1, 1, "browser ready  1/1 (100%)"},
		{"checking", 0, 0, "checking"},
		{"", 0, -1, "working"},
	} {
		if got := progressText(c.msg, c.done, c.total); got != c.want {
			t.Errorf("progressText(%q, %d, %d) = %q, want %q", c.msg, c.done, c.total, got, c.want)
		}
	}
}
