package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// jobGate lets a test release or watch one background job by name.
type jobGate struct {
	started   chan struct{}
	release   chan struct{}
	cancelled chan struct{}
}

var jobGates sync.Map // name → *jobGate

func gateFor(name string) *jobGate {
	g, _ := jobGates.LoadOrStore(name, &jobGate{
		started: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{}),
	})
	return g.(*jobGate)
}

// Test-only methods: test.job starts a background job named by params.name
// that reports progress and waits for its gate or cancellation;
// test.job.deferred does the same but answers accepted-then-final.
func init() {
	run := func(name string) func(ctx context.Context, sink tools.Sink) (any, error) {
		return func(ctx context.Context, sink tools.Sink) (any, error) {
			g := gateFor(name)
			close(g.started)
			sink.Progress("waiting", 1, 2)
			select {
			case <-g.release:
				return map[string]any{"finished": name}, nil
			case <-ctx.Done():
				close(g.cancelled)
				return nil, ctx.Err()
			}
		}
	}
	schema := `{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`
	tools.Register(&tools.Action{Method: "test.job", Scope: protocol.ScopeWrite, Where: tools.Gateway, Schema: schema,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			jobs, err := env.NeedJobs("test.job")
			if err != nil {
				return nil, err
			}
			name := gjson.GetBytes(params, "name").Str
			info, err := jobs.Start(tools.JobSpec{Kind: "test", Owner: name, Run: run(name)})
			if err != nil {
				return nil, err
			}
			return map[string]any{"taskId": info.ID, "status": info.Status}, nil
		}})
	tools.Register(&tools.Action{Method: "test.job.deferred", Scope: protocol.ScopeWrite, Where: tools.Gateway, Schema: schema,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			jobs, err := env.NeedJobs("test.job.deferred")
			if err != nil {
				return nil, err
			}
			name := gjson.GetBytes(params, "name").Str
			return tools.DeferJob(jobs, tools.JobSpec{Kind: "test", Owner: name, Run: run(name)})
		}})
	tools.Register(&tools.Action{Method: "test.progress", Scope: protocol.ScopeRead, Where: tools.Gateway,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			for i := int64(1); i <= 3; i++ {
				env.Progress("step", i, 3)
			}
			env.Event("note", map[string]any{"hello": "world"})
			return map[string]any{"done": true}, nil
		}})
}

// uniqueName names one job gate per run (-count=N reuses test names).
func uniqueName(t *testing.T) string { return t.Name() + "-" + uuid.NewString() }

// startJob calls test.job and returns the task id.
func startJob(t *testing.T, c *tclient, name string) string {
	t.Helper()
	f := c.call("test.job", map[string]any{"name": name})
	if !f.OK {
		t.Fatalf("test.job: %+v", f.Error)
	}
	id := gjson.GetBytes(f.Payload, "taskId").Str
	if id == "" {
		t.Fatalf("test.job: no taskId in %s", f.Payload)
	}
	select {
	case <-gateFor(name).started:
	case <-time.After(5 * time.Second):
		t.Fatal("job did not start")
	}
	return id
}

// nextTaskEvent returns the next `task` event about id with this status.
func nextTaskEvent(t *testing.T, c *tclient, id, status string) gjson.Result {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f := c.nextEvent(t, EventTask, time.Until(deadline))
		v := gjson.GetBytes(f.Payload, "task")
		if v.Get("id").Str == id && v.Get("status").Str == status {
			return gjson.ParseBytes(f.Payload)
		}
	}
	t.Fatalf("no task event %s for %s", status, id)
	return gjson.Result{}
}

func TestJobCancelByID(t *testing.T) {
	name := uniqueName(t)
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	id := startJob(t, c, name)

	f := c.call("tasks.cancel", map[string]any{"taskId": id})
	if !f.OK {
		t.Fatalf("tasks.cancel: %+v", f.Error)
	}
	select {
	case <-gateFor(name).cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the job's context was not cancelled")
	}
	if got := gjson.GetBytes(f.Payload, "task.status").Str; got != tools.JobCancelled {
		t.Errorf("tasks.cancel answered status %q, want cancelled: %s", got, f.Payload)
	}
	if !gjson.GetBytes(f.Payload, "cancelled").Bool() {
		t.Errorf("tasks.cancel: cancelled should be true: %s", f.Payload)
	}
	nextTaskEvent(t, c, id, tools.JobCancelled)

	f = c.call("tasks.get", map[string]any{"taskId": id})
	if got := gjson.GetBytes(f.Payload, "task.status").Str; !f.OK || got != tools.JobCancelled {
		t.Errorf("tasks.get after cancel: %s %+v", f.Payload, f.Error)
	}
	// An unknown id is answered in the payload, as the original does.
	f = c.call("tasks.cancel", map[string]any{"taskId": "no-such-task"})
	if !f.OK || string(f.Payload) != `{"cancelled":false,"found":false,"reason":"Task not found."}` {
		t.Errorf("cancel of an unknown id: %s %+v", f.Payload, f.Error)
	}
	if f := c.call("tasks.cancel", map[string]any{"taskId": "x", "bogus": 1}); f.OK {
		t.Errorf("an unknown property is refused, as the original: %s", f.Payload)
	}
	// Cancelling needs write; a read-only operator is refused.
	ro := dialConnected(t, ts.url, func(p map[string]any) { p["scopes"] = []string{protocol.ScopeRead} })
	if f := ro.call("tasks.cancel", map[string]any{"taskId": id}); f.OK || f.Error.Code != protocol.ErrForbidden {
		t.Errorf("read-only cancel: %+v", f)
	}
	if f := ro.call("tasks.list", nil); !f.OK || len(gjson.GetBytes(f.Payload, "tasks").Array()) != 1 {
		t.Errorf("tasks.list: %s %+v", f.Payload, f.Error)
	}
}

// A job outlives the connection that started it: the client goes away,
// the job finishes, and another client sees the result by event and by id.
func TestJobSurvivesDisconnect(t *testing.T) {
	name := uniqueName(t)
	ts := startServer(t, Options{})
	a := dialConnected(t, ts.url)
	id := startJob(t, a, name)
	a.close()
	waitFor(t, 5*time.Second, func() bool { return len(ts.s.readyConns()) == 0 })

	b := dialConnected(t, ts.url)
	f := b.call("tasks.get", map[string]any{"taskId": id})
	if got := gjson.GetBytes(f.Payload, "task.status").Str; got != tools.JobRunning {
		t.Fatalf("after the starter left, status = %q, want running (%s)", got, f.Payload)
	}
	close(gateFor(name).release)
	ev := nextTaskEvent(t, b, id, tools.JobOK)
	if got := ev.Get("task.result.finished").Str; got != name {
		t.Errorf("task event result = %s", ev.Raw)
	}
	f = b.call("tasks.get", map[string]any{"taskId": id})
	if got := gjson.GetBytes(f.Payload, "task.result.finished").Str; got != name {
		t.Errorf("tasks.get result: %s", f.Payload)
	}
	select {
	case <-gateFor(name).cancelled:
		t.Error("the disconnect cancelled the job")
	default:
	}
}

// Shutdown cancels running jobs and waits for them: nothing is orphaned.
func TestShutdownCancelsJobs(t *testing.T) {
	name := uniqueName(t)
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	id := startJob(t, c, name)
	ts.stop()
	select {
	case <-gateFor(name).cancelled:
	default:
		t.Fatal("Serve returned with the job still running")
	}
	info, ok := ts.s.jobs.Get(id)
	if !ok || info.Status != tools.JobInterrupted || info.Error == nil || info.Error.Message != "interrupted: the gateway stopped while it ran" {
		t.Errorf("after shutdown: %+v", info)
	}
	if _, err := ts.s.jobs.Start(tools.JobSpec{Kind: "late", Run: func(context.Context, tools.Sink) (any, error) { return nil, nil }}); err == nil {
		t.Error("a job started after shutdown")
	}
}

// A handler's progress and events reach the calling connection as
// tool.progress / tool.event frames carrying the request id, before the
// response; other connections see none of them.
func TestSinkEventsToCaller(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	other := dialConnected(t, ts.url)
	id, ch := c.send("test.progress", nil)
	var res frame
	select {
	case res = <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no response")
	}
	if !res.OK {
		t.Fatalf("test.progress: %+v", res.Error)
	}
	for i := int64(1); i <= 3; i++ {
		f := c.nextEvent(t, EventToolProgress, 5*time.Second)
		p := gjson.ParseBytes(f.Payload)
		if p.Get("id").Str != id || p.Get("done").Int() != i || p.Get("total").Int() != 3 || p.Get("message").Str != "step" || f.Seq != nil {
			t.Errorf("progress %d: %s (seq %v)", i, f.Payload, f.Seq)
		}
	}
	f := c.nextEvent(t, EventToolEvent, 5*time.Second)
	if p := gjson.ParseBytes(f.Payload); p.Get("id").Str != id || p.Get("name").Str != "note" || p.Get("payload.hello").Str != "world" {
		t.Errorf("tool.event: %s", f.Payload)
	}
	// The other connection: its next response comes after anything queued
	// for it, so no tool.* frame may be waiting.
	other.call("health", nil)
	for {
		select {
		case raw := <-other.events:
			if n := gjson.GetBytes(raw, "event").Str; n == EventToolProgress || n == EventToolEvent {
				t.Fatalf("another connection got %s", raw)
			}
			continue
		default:
		}
		break
	}
}

// Accepted-then-final over a real connection: the action answers
// "accepted" with a run id at once, the client (ExpectFinal) gets the
// job's result later on the same request; a caller that leaves after
// "accepted" leaves the work running, and tasks.get has its result.
func TestDeferredJobAcceptedThenFinal(t *testing.T) {
	ts := startServer(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, client.Options{URL: ts.url, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	name := uniqueName(t)
	accepted := make(chan json.RawMessage, 1)
	go func() {
		<-gateFor(name).started
		p := <-accepted
		if gjson.GetBytes(p, "status").Str != "accepted" || gjson.GetBytes(p, "runId").Str == "" || gjson.GetBytes(p, "acceptedAt").Int() == 0 {
			t.Errorf("accepted payload: %s", p)
		}
		close(gateFor(name).release)
	}()
	out, err := conn.CallWith(ctx, "test.job.deferred", map[string]any{"name": name}, client.CallOptions{
		ExpectFinal: true, OnAccepted: func(p json.RawMessage) { accepted <- p }})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(out, "finished").Str != name {
		t.Errorf("final: %s", out)
	}

	// Without ExpectFinal the first answer settles the call: the client
	// can go, the work goes on.
	name = uniqueName(t)
	first, err := conn.Call(ctx, "test.job.deferred", map[string]any{"name": name})
	if err != nil {
		t.Fatal(err)
	}
	runID := gjson.GetBytes(first, "runId").Str
	if gjson.GetBytes(first, "status").Str != "accepted" || runID == "" {
		t.Fatalf("first answer: %s", first)
	}
	<-gateFor(name).started
	conn.Close()
	waitFor(t, 5*time.Second, func() bool { return len(ts.s.readyConns()) == 0 })
	b := dialConnected(t, ts.url)
	close(gateFor(name).release)
	ev := nextTaskEvent(t, b, runID, tools.JobOK)
	if ev.Get("task.result.finished").Str != name {
		t.Errorf("task event: %s", ev.Raw)
	}
	if f := b.call("tasks.get", map[string]any{"taskId": runID}); gjson.GetBytes(f.Payload, "task.result.finished").Str != name {
		t.Errorf("tasks.get: %s", f.Payload)
	}
}

// A big result stays out of the task event (read it with tasks.get), and
// finished results are bounded in memory: the oldest go first.
func TestJobResultBounds(t *testing.T) {
	var mu sync.Mutex
	var events []taskEvent
	r := newJobRunner(func(_ string, p any) error {
		mu.Lock()
		events = append(events, p.(taskEvent))
		mu.Unlock()
		return nil
	}, t.Logf)
	defer r.stop(time.Second)
	big := strings.Repeat("x", maxEventResultBytes+1)
	run := func() string {
		info, err := r.Start(tools.JobSpec{Kind: "big", Run: func(context.Context, tools.Sink) (any, error) { return big, nil }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(context.Background(), info.ID); err != nil {
			t.Fatal(err)
		}
		return info.ID
	}
	first := run()
	mu.Lock()
	last := events[len(events)-1]
	mu.Unlock()
	if !last.ResultOmitted || last.Task.Result != nil || last.Task.Status != tools.JobOK {
		t.Errorf("final event of a big result: omitted=%v, %d result bytes", last.ResultOmitted, len(last.Task.Result))
	}
	if info, ok := r.Get(first); !ok || len(info.Result) != len(big)+2 {
		t.Fatalf("tasks.get lost the result: %v %d", ok, len(info.Result))
	}
	for i := 0; i*(len(big)+2) <= maxRetainedResultBytes; i++ {
		run()
	}
	if _, ok := r.Get(first); ok {
		t.Error("the oldest result was kept past the memory budget")
	}
	r.mu.Lock()
	retained := r.retained
	r.mu.Unlock()
	if retained > maxRetainedResultBytes {
		t.Errorf("retained %d bytes, budget %d", retained, maxRetainedResultBytes)
	}
}

// Wait returns only after the job's final task event is published: a
// deferred answer or tasks.cancel's reply (built from Wait) never overtakes
// it, and a caller that waited finds the final event already sent.
// TestJobResultBounds read the start event as the last one when the
// waiter ran between the job's end and its final event (under load).
func TestJobWaitReturnsAfterFinalEvent(t *testing.T) {
	var r *jobRunner
	var mu sync.Mutex
	early := 0
	r = newJobRunner(func(_ string, p any) error {
		ev := p.(taskEvent)
		if ev.Task.Status == tools.JobRunning {
			return nil
		}
		r.mu.Lock()
		j := r.jobs[ev.Task.ID]
		r.mu.Unlock()
		select {
		case <-j.done: // a waiter could already have gone on
			mu.Lock()
			early++
			mu.Unlock()
		default:
		}
		return nil
	}, t.Logf)
	defer r.stop(time.Second)
	for _, run := range []func(context.Context, tools.Sink) (any, error){
		func(context.Context, tools.Sink) (any, error) { return "ok", nil },
		func(context.Context, tools.Sink) (any, error) { return nil, errors.New("boom") },
	} {
		info, err := r.Start(tools.JobSpec{Kind: "k", Run: run})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(context.Background(), info.ID); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if early != 0 {
		t.Errorf("%d of 2 jobs released their waiters before the final task event was published", early)
	}
}
