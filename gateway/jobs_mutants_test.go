package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
)

// These pin jobs.go lines that a one-line mutation (`make mutate`) could
// change with the other tests still passing (issue 17, item 20).

// runJob starts fn on r and waits for it to end; it returns the job id.
func runJob(t *testing.T, r *jobRunner, fn func(context.Context, tools.Sink) (any, error)) string {
	t.Helper()
	info, err := r.Start(tools.JobSpec{Kind: "k", Run: fn})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(context.Background(), info.ID); err != nil {
		t.Fatal(err)
	}
	return info.ID
}

// jsonString is a JSON string of exactly n bytes, quotes included.
func jsonString(n int) json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`)
}

// returns is a job body that answers v.
func returns(v any) func(context.Context, tools.Sink) (any, error) {
	return func(context.Context, tools.Sink) (any, error) { return v, nil }
}

// At most maxRunningJobs run at once: the next Start is refused until one
// of them ends.
func TestJobRunningCap(t *testing.T) {
	r := newJobRunner(func(string, any) error { return nil }, t.Logf)
	defer r.stop(5 * time.Second)
	release := make(chan struct{})
	block := func(ctx context.Context, _ tools.Sink) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}
	var first string
	for i := 0; i < maxRunningJobs; i++ {
		info, err := r.Start(tools.JobSpec{Kind: "block", Run: block})
		if err != nil {
			t.Fatalf("job %d of %d refused: %v", i+1, maxRunningJobs, err)
		}
		if i == 0 {
			first = info.ID
		}
	}
	if _, err := r.Start(tools.JobSpec{Kind: "block", Run: block}); err == nil || !strings.Contains(err.Error(), "too many background tasks") {
		t.Fatalf("job %d: %v, want refused", maxRunningJobs+1, err)
	}
	if err := r.Cancel(first); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Start(tools.JobSpec{Kind: "block", Run: block}); err != nil {
		t.Fatalf("after one ended: %v", err)
	}
	close(release)
}

// The newest maxFinishedJobs finished jobs are kept; older ones go.
func TestJobFinishedCap(t *testing.T) {
	r := newJobRunner(func(string, any) error { return nil }, t.Logf)
	defer r.stop(5 * time.Second)
	var ids []string
	for i := 0; i <= maxFinishedJobs; i++ {
		ids = append(ids, runJob(t, r, returns(i)))
	}
	if _, ok := r.Get(ids[0]); ok {
		t.Errorf("job 1 of %d kept: the cap is %d", len(ids), maxFinishedJobs)
	}
	if _, ok := r.Get(ids[1]); !ok {
		t.Errorf("job 2 of %d forgotten: the newest %d should stay", len(ids), maxFinishedJobs)
	}
	if n := len(r.List()); n != maxFinishedJobs {
		t.Errorf("%d jobs listed, want %d", n, maxFinishedJobs)
	}
}

// Results exactly at the memory budget are all kept; past it the oldest go,
// but the newest result stays even when it alone is over the budget.
func TestJobRetainedBudgetEdges(t *testing.T) {
	r := newJobRunner(func(string, any) error { return nil }, t.Logf)
	defer r.stop(5 * time.Second)
	a := runJob(t, r, returns(jsonString(maxRetainedResultBytes/2)))
	b := runJob(t, r, returns(jsonString(maxRetainedResultBytes/2)))
	if _, ok := r.Get(a); !ok {
		t.Fatal("results exactly at the budget: the oldest was dropped")
	}
	c := runJob(t, r, returns(jsonString(maxRetainedResultBytes+1)))
	for _, id := range []string{a, b} {
		if _, ok := r.Get(id); ok {
			t.Errorf("an older result kept past the budget")
		}
	}
	if info, ok := r.Get(c); !ok || len(info.Result) != maxRetainedResultBytes+1 {
		t.Errorf("the newest result, alone over the budget, was dropped")
	}
}

// A result of exactly maxEventResultBytes still rides in the final task
// event; one byte more is left out (read it with tasks.get).
func TestJobEventResultEdge(t *testing.T) {
	var mu sync.Mutex
	var last taskEvent
	r := newJobRunner(func(_ string, p any) error {
		mu.Lock()
		last = p.(taskEvent)
		mu.Unlock()
		return nil
	}, t.Logf)
	defer r.stop(5 * time.Second)
	for _, n := range []int{maxEventResultBytes, maxEventResultBytes + 1} {
		runJob(t, r, returns(jsonString(n)))
		mu.Lock()
		ev := last
		mu.Unlock()
		if omitted := n > maxEventResultBytes; ev.ResultOmitted != omitted || (len(ev.Task.Result) == n) == omitted {
			t.Errorf("result of %d bytes: omitted=%v with %d bytes in the event", n, ev.ResultOmitted, len(ev.Task.Result))
		}
	}
}

// Job records round-trip through the state database: a result up to
// maxStoredResultBytes and a failure's error come back after a restart, a
// bigger result does not, a successful job has no error; record writes that
// work log nothing, and ones that fail are logged.
func TestJobRecordsRoundTrip(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir(), gatewayFamilies()...)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	var warnings []string
	warnf := func(f string, a ...any) { mu.Lock(); warnings = append(warnings, fmt.Sprintf(f, a...)); mu.Unlock() }
	r := newJobRunner(func(string, any) error { return nil }, warnf)
	if err := r.restore(context.Background(), jobRepo{st.DB()}); err != nil {
		t.Fatal(err)
	}
	ok := runJob(t, r, returns(map[string]int{"n": 1}))
	failed := runJob(t, r, func(context.Context, tools.Sink) (any, error) { return nil, tools.Errorf(tools.CodeFailed, "boom") })
	exact := runJob(t, r, returns(jsonString(maxStoredResultBytes)))
	over := runJob(t, r, returns(jsonString(maxStoredResultBytes+1)))
	r.stop(5 * time.Second)
	mu.Lock()
	if len(warnings) > 0 {
		t.Errorf("record writes that worked logged: %q", warnings)
	}
	mu.Unlock()

	r2 := newJobRunner(func(string, any) error { return nil }, t.Logf)
	defer r2.stop(5 * time.Second)
	if err := r2.restore(context.Background(), jobRepo{st.DB()}); err != nil {
		t.Fatal(err)
	}
	if info, _ := r2.Get(ok); string(info.Result) != `{"n":1}` || info.Error != nil || info.Status != tools.JobOK {
		t.Errorf("ok job after restart: %+v", info)
	}
	if info, _ := r2.Get(failed); info.Error == nil || info.Error.Message != "boom" || info.Status != tools.JobError {
		t.Errorf("failed job after restart: %+v", info)
	}
	if info, _ := r2.Get(exact); len(info.Result) != maxStoredResultBytes {
		t.Errorf("a result of exactly %d bytes came back with %d", maxStoredResultBytes, len(info.Result))
	}
	if info, found := r2.Get(over); !found || info.Result != nil {
		t.Errorf("a result over the stored cap: found=%v with %d bytes", found, len(info.Result))
	}

	// A database that fails: both record writes are logged, the job runs.
	st2, err := store.Open(context.Background(), t.TempDir(), gatewayFamilies()...)
	if err != nil {
		t.Fatal(err)
	}
	r3 := newJobRunner(func(string, any) error { return nil }, warnf)
	defer r3.stop(5 * time.Second)
	if err := r3.restore(context.Background(), jobRepo{st2.DB()}); err != nil {
		t.Fatal(err)
	}
	st2.Close()
	mu.Lock()
	warnings = nil
	mu.Unlock()
	info, err := r3.Start(tools.JobSpec{Kind: "k", Run: func(context.Context, tools.Sink) (any, error) { return 1, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r3.Wait(context.Background(), info.ID); got.Status != tools.JobOK {
		t.Errorf("job on a failing database: %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 2 || !strings.Contains(warnings[0], "record task") || !strings.Contains(warnings[1], "record task") {
		t.Errorf("failing record writes logged %q, want two 'record task' warnings", warnings)
	}
}
