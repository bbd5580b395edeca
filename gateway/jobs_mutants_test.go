package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// These pin jobs.go lines that a one-line mutation (`make mutate`) could
// change with the other tests still passing (issue 17, item 20).

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
		info, err := r.Start(tools.JobSpec{Kind: "quick", Run: func(context.Context, tools.Sink) (any, error) { return i, nil }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(context.Background(), info.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
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
	rawOf := func(n int) json.RawMessage { // a JSON string of exactly n bytes
		b := bytes.Repeat([]byte{'x'}, n)
		b[0], b[n-1] = '"', '"'
		return b
	}
	run := func(res json.RawMessage) string {
		info, err := r.Start(tools.JobSpec{Kind: "big", Run: func(context.Context, tools.Sink) (any, error) { return res, nil }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(context.Background(), info.ID); err != nil {
			t.Fatal(err)
		}
		return info.ID
	}
	a := run(rawOf(maxRetainedResultBytes / 2))
	b := run(rawOf(maxRetainedResultBytes / 2))
	if _, ok := r.Get(a); !ok {
		t.Fatal("results exactly at the budget: the oldest was dropped")
	}
	c := run(rawOf(maxRetainedResultBytes + 1))
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
		res := json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`)
		info, err := r.Start(tools.JobSpec{Kind: "k", Run: func(context.Context, tools.Sink) (any, error) { return res, nil }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(context.Background(), info.ID); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		ev := last
		mu.Unlock()
		if omitted := n > maxEventResultBytes; ev.ResultOmitted != omitted || (len(ev.Task.Result) == n) == omitted {
			t.Errorf("result of %d bytes: omitted=%v with %d bytes in the event", n, ev.ResultOmitted, len(ev.Task.Result))
		}
	}
}
