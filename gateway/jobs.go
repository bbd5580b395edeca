package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/tools"
)

// Job runner limits.
const (
	// maxRunningJobs bounds concurrent background work (each is a goroutine
	// and usually a child process).
	maxRunningJobs = 256
	// maxFinishedJobs finished jobs are kept for tasks.get/tasks.list, oldest
	// dropped first: a client that reconnects after its job ended still
	// finds the result.
	maxFinishedJobs = 200
	// maxRetainedResultBytes bounds the memory finished results hold: the
	// oldest finished jobs are forgotten first to stay under it.
	maxRetainedResultBytes = 64 << 20
	// maxEventResultBytes: a larger result is left out of the final task
	// event (resultOmitted) and read with tasks.get instead, so one big
	// result is not copied to every operator.
	maxEventResultBytes = 64 << 10
	// jobStopGrace is how long shutdown waits for cancelled jobs to return.
	jobStopGrace = 5 * time.Second
)

// EventTask is the broadcast event a job reports through (the original's
// `task` event name; read scope, §6.2): one on start, one per progress or
// event, one at the end with the result or error.
const EventTask = "task"

// jobRunner is the gateway's tools.Jobs: work that must survive the
// caller's disconnect (background exec, agent runs, cron runs) runs under
// a gateway-lifetime context, is cancelled by id or at shutdown, and
// reports through `task` events. A request's own context never reaches a
// job, so a disconnect cancels only what was bound to that request.
type jobRunner struct {
	publish func(event string, payload any) error
	warnf   func(format string, args ...any)

	ctx    context.Context // gateway lifetime: cancelled at shutdown
	cancel context.CancelFunc

	mu       sync.Mutex
	jobs     map[string]*job
	finished []string // finished ids, oldest first
	retained int      // bytes of the finished jobs' results
	running  int
	closed   bool
	wg       sync.WaitGroup
	repo     *jobRepo // job records in the state database (jobs_store.go); nil without one
}

// job is one unit of background work.
type job struct {
	info      tools.JobInfo
	cancel    context.CancelFunc
	cancelled bool          // Cancel was called (vs. failing on its own)
	done      chan struct{} // closed when info is final and its final task event published
}

func newJobRunner(publish func(string, any) error, warnf func(string, ...any)) *jobRunner {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobRunner{publish: publish, warnf: warnf, ctx: ctx, cancel: cancel, jobs: map[string]*job{}}
}

// Done is closed when the gateway starts shutting down: long-lived
// requests (logs.follow) end on it so the drain does not wait for them.
func (r *jobRunner) Done() <-chan struct{} { return r.ctx.Done() }

// taskEvent is the payload of the `task` event.
type taskEvent struct {
	Task     tools.JobInfo  `json:"task"`
	Progress *progressEvent `json:"progress,omitempty"`
	Event    *namedEvent    `json:"event,omitempty"`
	// ResultOmitted: the result is too big for an event; read it with tasks.get.
	ResultOmitted bool `json:"resultOmitted,omitempty"`
}

// Start runs spec.Run on its own goroutine and returns at once.
func (r *jobRunner) Start(spec tools.JobSpec) (tools.JobInfo, error) {
	if spec.Run == nil {
		return tools.JobInfo{}, errors.New("jobs: spec has no Run")
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return tools.JobInfo{}, tools.Errorf(tools.CodeUnreachable, "gateway is shutting down: no new background work")
	}
	if r.running >= maxRunningJobs {
		r.mu.Unlock()
		return tools.JobInfo{}, tools.Errorf(tools.CodeFailed, "too many background tasks running (%d): cancel some with tasks.cancel", maxRunningJobs)
	}
	ctx, cancel := context.WithCancel(r.ctx)
	j := &job{
		info: tools.JobInfo{ID: uuid.NewString(), Kind: spec.Kind, Owner: spec.Owner,
			Status: tools.JobRunning, StartedAt: time.Now().UTC()},
		cancel: cancel,
		done:   make(chan struct{}),
	}
	r.jobs[j.info.ID] = j
	r.running++
	r.wg.Add(1)
	info := j.info
	repo := r.repo
	r.mu.Unlock()

	if repo != nil {
		if err := repo.insert(info); err != nil {
			r.warnf("%v", err)
		}
	}
	r.emit(taskEvent{Task: info})
	go r.run(ctx, j, spec.Run)
	return info, nil
}

// run executes one job and records how it ended. A panic fails the job,
// not the gateway.
func (r *jobRunner) run(ctx context.Context, j *job, fn func(context.Context, tools.Sink) (any, error)) {
	defer r.wg.Done()
	var (
		res any
		err error
	)
	func() {
		defer func() {
			if p := recover(); p != nil {
				r.warnf("panic in task %s (%s): %v\n%s", j.info.ID, j.info.Kind, p, debug.Stack())
				err = tools.Errorf(tools.CodeFailed, "task %s failed: internal error", j.info.Kind)
			}
		}()
		res, err = fn(ctx, &jobSink{r: r, id: j.info.ID})
	}()
	var raw json.RawMessage
	if err == nil {
		if b, ok := res.(json.RawMessage); ok {
			raw = b
		} else if raw, err = json.Marshal(res); err != nil {
			err = fmt.Errorf("task %s: encode result: %w", j.info.Kind, err)
		}
	}
	j.cancel()

	r.mu.Lock()
	j.info.EndedAt = time.Now().UTC()
	switch {
	case err == nil:
		j.info.Status, j.info.Result = tools.JobOK, raw
	case j.cancelled:
		j.info.Status, j.info.Error = tools.JobCancelled, tools.Errorf(tools.CodeInterrupted, "cancelled")
	case r.closed:
		j.info.Status, j.info.Error = tools.JobInterrupted, interruptedError()
	default:
		j.info.Status, j.info.Error = tools.JobError, tools.AsError(err)
	}
	info := j.info
	repo := r.repo
	r.running--
	r.finished = append(r.finished, j.info.ID)
	r.retained += len(raw)
	for len(r.finished) > maxFinishedJobs || (r.retained > maxRetainedResultBytes && len(r.finished) > 1) {
		old := r.jobs[r.finished[0]]
		r.retained -= len(old.info.Result)
		delete(r.jobs, r.finished[0])
		r.finished = r.finished[1:]
	}
	r.mu.Unlock()

	if repo != nil {
		if err := repo.finish(info); err != nil {
			r.warnf("%v", err)
		}
	}
	ev := taskEvent{Task: info}
	if len(info.Result) > maxEventResultBytes {
		ev.Task.Result, ev.ResultOmitted = nil, true
	}
	r.emit(ev)
	// Waiters go on only now: the final task event is out before a
	// deferred answer (or tasks.cancel's reply) built from Wait is sent.
	close(j.done)
}

// Cancel asks a running job to stop; it returns at once (Wait for the
// end). Cancelling a finished job is a no-op.
func (r *jobRunner) Cancel(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	if j == nil {
		return tools.Errorf(tools.CodeNotFound, "task not found: %s", id)
	}
	if j.info.Status == tools.JobRunning {
		j.cancelled = true
		j.cancel()
	}
	return nil
}

// Get returns a job's state.
func (r *jobRunner) Get(id string) (tools.JobInfo, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j := r.jobs[id]; j != nil {
		return j.info, true
	}
	return tools.JobInfo{}, false
}

// List returns every known job, oldest first.
func (r *jobRunner) List() []tools.JobInfo {
	r.mu.Lock()
	out := make([]tools.JobInfo, 0, len(r.jobs))
	for _, j := range r.jobs {
		out = append(out, j.info)
	}
	r.mu.Unlock()
	sortJobs(out)
	return out
}

// Wait blocks until the job has ended (its final JobInfo) and its final
// task event has been published, or ctx ends.
func (r *jobRunner) Wait(ctx context.Context, id string) (tools.JobInfo, error) {
	r.mu.Lock()
	j := r.jobs[id]
	r.mu.Unlock()
	if j == nil {
		return tools.JobInfo{}, tools.Errorf(tools.CodeNotFound, "task not found: %s", id)
	}
	select {
	case <-j.done:
		r.mu.Lock()
		defer r.mu.Unlock()
		return j.info, nil
	case <-ctx.Done():
		return tools.JobInfo{}, ctx.Err()
	}
}

// stop refuses new jobs, cancels the running ones and waits up to grace
// for them to return. Jobs still running after that are reported (their
// goroutines end with the process).
func (r *jobRunner) stop(grace time.Duration) {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		r.mu.Lock()
		n := r.running
		r.mu.Unlock()
		r.warnf("%d background task(s) did not stop within %s of cancellation", n, grace)
	}
}

func (r *jobRunner) emit(ev taskEvent) {
	if err := r.publish(EventTask, ev); err != nil {
		r.warnf("task event: %v", err)
	}
}

// jobSink reports a job's progress and events as `task` events to every
// operator allowed to see them, whoever started the job.
type jobSink struct {
	r  *jobRunner
	id string
}

func (s *jobSink) info() tools.JobInfo {
	info, _ := s.r.Get(s.id)
	return info
}

func (s *jobSink) Progress(msg string, done, total int64) {
	s.r.emit(taskEvent{Task: s.info(), Progress: &progressEvent{Message: msg, Done: done, Total: total}})
}

func (s *jobSink) Event(name string, payload any) {
	s.r.emit(taskEvent{Task: s.info(), Event: &namedEvent{Name: name, Payload: payload}})
}

// sortJobs orders jobs oldest first (ties by id, for stable listings).
func sortJobs(js []tools.JobInfo) {
	sort.Slice(js, func(i, j int) bool {
		if !js[i].StartedAt.Equal(js[j].StartedAt) {
			return js[i].StartedAt.Before(js[j].StartedAt)
		}
		return js[i].ID < js[j].ID
	})
}

// NewJobRunner is the gateway's job runner without a server, for code that
// runs actions outside one (a family's tests of its background work):
// task events are dropped, stop cancels every job and waits up to grace.
func NewJobRunner(warnf func(format string, args ...any)) (jobs tools.Jobs, stop func(grace time.Duration)) {
	r := newJobRunner(func(string, any) error { return nil }, warnf)
	return r, r.stop
}
