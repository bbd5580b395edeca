package cron

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/agentrun"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// Key is the cron service's typed handle: the family's handlers reach the
// running scheduler with Key.From, and a later family that needs the
// system-event queue (sessions) can Require "cron" and do the same.
var Key = tools.NewServiceKey[*Service]("cron")

func init() {
	spec := Key.Spec(newService)
	spec.Migrations = migrations
	// agentTurn payloads run through the agent runtime.
	spec.Requires = []string{agentrun.Key.Name()}
	tools.RegisterService(spec)
}

// Scheduler settings.
const (
	// maxTimerDelay: the scheduler wakes at least once a minute, whatever
	// the next run, so clock jumps and suspends cannot strand it.
	maxTimerDelay = 60 * time.Second
	// defaultKeepRuns is cron.runLog.keepLines' default: runs kept per job.
	defaultKeepRuns = 2000
	// runMaxAge: runs older than this are pruned whatever their number.
	runMaxAge = 7 * 24 * time.Hour
	// noRuntimeError is what an agentTurn run records until the agents
	// issue brings a runtime: a failure, never a pretended success.
	noRuntimeError = "no agent runtime configured"
	// interruptedError is recorded for a run the gateway stopped (or was
	// killed) during.
	interruptedError = "interrupted: the gateway stopped while this run was in progress"
)

// Service is the scheduler: jobs in memory (the store is written on every
// change, in one transaction), a timer armed for the next due job, and a
// pool of maxConcurrentRuns workers running due jobs as gateway tasks.
type Service struct {
	repo          repo
	agent         *agentrun.Service // runs agentTurn payloads; nil: none
	events        tools.Events
	jobs          tools.Jobs
	dbPath        string
	enabled       bool
	maxConcurrent int
	processID     string
	// set is what the config says now (settings); the cron methods
	// refresh it from the config they are called with, so a reloaded
	// openclaw.json applies to the next run without a restart.
	set atomic.Pointer[settings]
	now func() int64
	// post sends a webhook (webhook.go); tests keep it.
	post func(ctx context.Context, url string, body []byte) error

	mu        sync.Mutex
	byID      map[string]*Job
	running   map[string]string // job id -> run id
	manualSeq int64
	rev       int64

	wake   chan struct{}
	waker  waker // an immediate heartbeat (sysevents.go)
	sem    chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	loop   sync.WaitGroup
	runs   sync.WaitGroup
}

func newService(env *tools.Env) (*Service, error) {
	st, err := env.NeedStore("cron")
	if err != nil {
		return nil, err
	}
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	s := newScheduler(repo{db: st.DB()}, cfg, env.StateDir)
	s.events, s.jobs = env.Events, env.Jobs
	if rt, err := agentrun.Key.From(env, "cron"); err == nil {
		s.agent = rt
		rt.SetPrelude(s.prelude) // queued system events open the session's next turn
	}
	if os.Getenv("OPENCLAW_SKIP_CRON") == "1" {
		s.enabled = false
	}
	return s, nil
}

// newScheduler builds a scheduler over a repository (tests use it with a
// fake clock).
// settings are the config keys read on every run (the others,
// cron.enabled and cron.maxConcurrentRuns, take effect at start).
type settings struct {
	cfg          *config.Config
	keepRuns     int
	webhookToken string
	ssrf         netguard.Policy
	defaultAgent string
}

func settingsOf(cfg *config.Config) *settings {
	var token any
	if v, ok := cfg.Get("cron.webhookToken"); ok {
		token = v
	}
	// cron.runLog is an open object in the schema (the original's
	// {maxBytes, keepLines}); keepLines is the runs kept per job.
	var runLog struct {
		KeepLines *int `json:"keepLines"`
	}
	_ = cfg.Decode("cron.runLog", &runLog)
	keep := defaultKeepRuns
	if runLog.KeepLines != nil {
		keep = max(*runLog.KeepLines, 1)
	}
	st := &settings{cfg: cfg, keepRuns: keep, webhookToken: config.Secret(token), defaultAgent: tools.DefaultAgentID(cfg)}
	_ = cfg.Decode(netguard.PolicyKey, &st.ssrf)
	return st
}

// configure takes a newer config's settings.
func (s *Service) configure(cfg *config.Config) {
	if cfg != nil && s.set.Load().cfg != cfg {
		s.set.Store(settingsOf(cfg))
	}
}

func (s *Service) settings() *settings { return s.set.Load() }

func newScheduler(r repo, cfg *config.Config, stateDir string) *Service {
	s := &Service{
		repo:          r,
		dbPath:        dbPath(stateDir),
		enabled:       cfg.Bool("cron.enabled", true),
		maxConcurrent: max(cfg.Int("cron.maxConcurrentRuns", 1), 1),
		processID:     uuid.NewString(),
		now:           func() int64 { return time.Now().UnixMilli() },
		byID:          map[string]*Job{},
		running:       map[string]string{},
		wake:          make(chan struct{}, 1),
	}
	s.set.Store(settingsOf(cfg))
	s.sem = make(chan struct{}, s.maxConcurrent)
	s.post = s.postWebhook
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// Start loads the jobs, records runs a previous gateway left unfinished as
// interrupted, then (unless cron.enabled is false or OPENCLAW_SKIP_CRON=1)
// arms the timer; its first tick is the catch-up: every enabled job whose
// time passed while the gateway was down runs once.
func (s *Service) Start(ctx context.Context) error {
	if err := s.load(ctx); err != nil {
		return err
	}
	if !s.enabled {
		return nil
	}
	s.loop.Add(1)
	go s.run()
	return nil
}

// Stop ends the timer and waits (until ctx ends) for runs in progress; a
// run still going then stays recorded as running, and the next start marks
// it interrupted.
func (s *Service) Stop(ctx context.Context) error {
	s.cancel()
	done := make(chan struct{})
	go func() { s.loop.Wait(); s.runs.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("cron: runs still in progress at stop")
	}
}

// load reads the store and settles what a previous gateway left.
func (s *Service) load(ctx context.Context) error {
	jobs, err := s.repo.loadJobs(ctx)
	if err != nil {
		return err
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range jobs {
		s.byID[j.ID] = j
	}
	stale, err := s.repo.interruptedRuns(ctx)
	if err != nil {
		return err
	}
	for _, e := range stale {
		j := s.byID[e.JobID]
		e.TS, e.Action, e.Status, e.Error = now, "finished", StatusError, interruptedError
		e.DurationMs = i64(max(now-e.RunAtMs, 0))
		e.Interrupted = true
		var changed []*Job
		removed := false
		if j != nil {
			removed = s.applyOutcome(j, outcome{status: StatusError, err: interruptedError}, e.RunAtMs, now, false)
			e.NextRunAtMs = copyPtr(j.State.NextRunAtMs)
			changed = append(changed, j)
		}
		if err := s.commitRun(ctx, e, changed, removed); err != nil {
			return err
		}
	}
	var fix []*Job
	for _, j := range s.byID {
		if j.State.RunningAtMs != nil { // stale marker without a run row
			j.State.RunningAtMs = nil
			fix = append(fix, j)
		}
		if j.Enabled && j.State.NextRunAtMs == nil {
			if n, ok := jobNext(j, now); ok {
				j.State.NextRunAtMs = i64(n)
				fix = append(fix, j)
			}
		}
	}
	if len(fix) > 0 {
		return s.repo.saveJobs(ctx, fix...)
	}
	return nil
}

// run is the timer loop.
func (s *Service) run() {
	defer s.loop.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.tick()
		s.mu.Lock()
		next, ok := s.nextWakeLocked()
		s.mu.Unlock()
		var fire <-chan time.Time
		if ok {
			d := time.Duration(next-s.now()) * time.Millisecond
			timer.Reset(min(max(d, 0), maxTimerDelay))
			fire = timer.C
		}
		select {
		case <-s.ctx.Done():
			return
		case <-s.wake:
		case <-fire:
		}
	}
}

// poke re-arms the timer after a change.
func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// nextWakeLocked is the earliest next run of an enabled job not running.
func (s *Service) nextWakeLocked() (int64, bool) {
	best, ok := int64(0), false
	for id, j := range s.byID {
		if !j.Enabled || j.State.NextRunAtMs == nil {
			continue
		}
		if _, busy := s.running[id]; busy {
			continue
		}
		if n := *j.State.NextRunAtMs; !ok || n < best {
			best, ok = n, true
		}
	}
	return best, ok
}

// tick starts every due job: enabled, not running, next run not after now.
func (s *Service) tick() {
	now := s.now()
	s.mu.Lock()
	var due []*Job
	for id, j := range s.byID {
		if _, busy := s.running[id]; busy || !j.Enabled || j.State.NextRunAtMs == nil || *j.State.NextRunAtMs > now {
			continue
		}
		due = append(due, j)
	}
	sort.Slice(due, func(a, b int) bool {
		if *due[a].State.NextRunAtMs != *due[b].State.NextRunAtMs {
			return *due[a].State.NextRunAtMs < *due[b].State.NextRunAtMs
		}
		return due[a].ID < due[b].ID
	})
	type start struct {
		job   *Job
		runID string
	}
	var starts []start
	for _, j := range due {
		s.manualSeq++
		runID := fmt.Sprintf("cron:%s:%d:%d", j.ID, now, s.manualSeq)
		if err := s.markRunningLocked(j, runID, now); err != nil {
			continue // the store refused: try again at the next tick
		}
		starts = append(starts, start{j.clone(), runID})
	}
	s.mu.Unlock()
	for _, st := range starts {
		s.launch(st.job, st.runID, false)
	}
}

// markRunningLocked records a run's start: the job's runningAtMs and a
// running row, in one transaction.
func (s *Service) markRunningLocked(j *Job, runID string, now int64) error {
	j.State.RunningAtMs = i64(now)
	j.State.LastError = ""
	e := RunEntry{TS: now, JobID: j.ID, Action: "started", RunID: runID, RunAtMs: now, JobName: j.Name}
	err := s.repo.tx(s.ctx, func(tx dbTx) error {
		if err := putJob(s.ctx, tx, j); err != nil {
			return err
		}
		return insertRun(s.ctx, tx, e, StatusRunning, now)
	})
	if err != nil {
		j.State.RunningAtMs = nil
		return err
	}
	s.running[j.ID] = runID
	s.rev++
	return nil
}

// outcome is what one execution produced.
type outcome struct {
	status, err, summary string
	delivered            *bool
	deliveryStatus       string
	deliveryError        string
	sessionKey           string
}

// launch runs one job on the worker pool, as a gateway task when the
// gateway provides a task runner (`openclaw tasks list` shows it,
// `tasks cancel` stops it).
func (s *Service) launch(j *Job, runID string, manual bool) {
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		select {
		case s.sem <- struct{}{}:
		case <-s.ctx.Done():
			return // stays running in the store: interrupted on the next start
		}
		defer func() { <-s.sem }()
		started := s.now()
		s.publish(map[string]any{"jobId": j.ID, "action": "started", "runAtMs": started, "runId": runID})
		out, ok := s.execute(j, runID)
		if !ok {
			return // shutting down mid-run
		}
		s.finish(j.ID, runID, out, started, s.now(), manual)
	}()
}

// execute runs the payload, through the task runner when there is one.
// ok is false when the gateway stopped while it ran.
func (s *Service) execute(j *Job, runID string) (outcome, bool) {
	run := func(ctx context.Context) outcome {
		if t := j.Payload.TimeoutSeconds; t != nil && *t > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(*t)*time.Second)
			defer cancel()
		}
		out := s.runPayload(ctx, j)
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			out.status, out.err = StatusError, "cron: job execution timed out"
		case ctx.Err() != nil: // tasks.cancel, or the gateway stopping
			out.status, out.err = StatusError, "cancelled"
		}
		return out
	}
	if s.jobs == nil {
		return run(s.ctx), s.ctx.Err() == nil
	}
	var out outcome
	info, err := s.jobs.Start(tools.JobSpec{Kind: "cron", Owner: j.ID, Run: func(ctx context.Context, _ tools.Sink) (any, error) {
		out = run(ctx)
		if out.status == StatusError {
			return nil, errors.New(out.err)
		}
		return map[string]any{"jobId": j.ID, "runId": runID, "status": out.status, "summary": out.summary}, nil
	}})
	if err != nil {
		return outcome{status: StatusError, err: "cron: " + err.Error()}, true
	}
	end, err := tools.WaitJob(s.ctx, s.jobs, info.ID)
	if err != nil {
		return outcome{}, false
	}
	switch end.Status {
	case tools.JobCancelled:
		return outcome{status: StatusError, err: "cancelled"}, true
	case tools.JobInterrupted:
		return outcome{}, false
	}
	return out, true
}

// runPayload is one execution (spec §1.9 steps 7 and 8).
func (s *Service) runPayload(ctx context.Context, j *Job) outcome {
	agent := j.AgentID
	if agent == "" {
		agent = s.settings().defaultAgent
	}
	var out outcome
	switch j.SessionTarget {
	case TargetMain:
		switch {
		case j.Payload.Kind != PayloadSystemEvent:
			return outcome{status: StatusSkipped, err: `main job requires payload.kind="systemEvent"`}
		case j.Payload.Text == "":
			return outcome{status: StatusSkipped, err: "main job requires non-empty systemEvent text"}
		}
		key := sessions.Canonical(j.SessionKey, agent)
		if key == "" {
			key = mainSessionKey(agent)
		}
		err := s.repo.enqueue(ctx, SystemEvent{SessionKey: key, AgentID: agent, Text: j.Payload.Text,
			ContextKey: "cron:" + j.ID, WakeMode: j.WakeMode, CreatedAtMs: s.now()})
		if err != nil {
			return outcome{status: StatusError, err: err.Error()}
		}
		if j.WakeMode != WakeNextHeartbeat {
			s.requestHeartbeat(agent, key, "cron:"+j.ID)
		}
		out = outcome{status: StatusOK, summary: j.Payload.Text, sessionKey: key}
	default:
		if j.Payload.Kind != PayloadAgentTurn {
			return outcome{status: StatusSkipped, err: "isolated job requires payload.kind=agentTurn"}
		}
		out = s.agentTurn(ctx, j, agent)
	}
	s.deliver(ctx, j, &out)
	return out
}

func mainSessionKey(agent string) string { return "agent:" + agent + ":main" }

// agentTurn runs an isolated job's agentTurn payload in the job's session
// (agent:<id>:cron:<jobId>) through the agent runtime: the reply is the
// run's summary; a failed, aborted or timed-out run is an error.
func (s *Service) agentTurn(ctx context.Context, j *Job, agent string) outcome {
	key := "agent:" + agent + ":cron:" + j.ID
	if s.agent == nil {
		return outcome{status: StatusError, err: noRuntimeError, sessionKey: key}
	}
	if j.Payload.Message == "" {
		return outcome{status: StatusSkipped, err: "agentTurn requires a non-empty message", sessionKey: key}
	}
	var timeout time.Duration
	if t := j.Payload.TimeoutSeconds; t != nil && *t > 0 {
		timeout = time.Duration(*t) * time.Second
	}
	// The turn holds what the job's creator held (none recorded: the least).
	res, err := s.agent.RunTurn(ctx, agentrun.Turn{Message: j.Payload.Message, AgentID: agent, SessionKey: key, Model: j.Payload.Model,
		Timeout: timeout, Scopes: j.scopes})
	if err != nil {
		return outcome{status: StatusError, err: err.Error(), sessionKey: key}
	}
	var reply string
	if n := len(res.Result.Payloads); n > 0 {
		reply = res.Result.Payloads[n-1].Text
	}
	if res.Status != "ok" {
		return outcome{status: StatusError, err: res.Error, summary: reply, sessionKey: key}
	}
	return outcome{status: StatusOK, summary: reply, sessionKey: key}
}

// deliver sends the result per the job's delivery and records how it went.
func (s *Service) deliver(ctx context.Context, j *Job, out *outcome) {
	d := j.Delivery
	if d == nil || d.Mode == DeliveryNone {
		out.deliveryStatus = "not-requested"
		return
	}
	switch d.Mode {
	case DeliveryWebhook:
		if out.summary == "" { // as the original: only runs that produced a summary are posted
			out.deliveryStatus = "not-delivered"
			out.delivered = boolp(false)
			return
		}
		err := s.sendWebhook(ctx, j, *out)
		out.delivered = boolp(err == nil)
		if err != nil {
			out.deliveryStatus, out.deliveryError = "not-delivered", err.Error()
			return
		}
		out.deliveryStatus = "delivered"
	default: // announce: an isolated run's reply to a channel
		if j.SessionTarget == TargetMain { // the main session is the destination
			out.deliveryStatus = "not-requested"
			return
		}
		s.announce(ctx, j, out)
	}
}

// announce posts an isolated run's reply to the job's channel and target
// (else the agent's main session's last route) through the agent
// runtime's Deliver, which sends it as the message family's send. The
// run's result stays as it is whatever the post does; its delivery fields
// say how the post went. Without bestEffort a failed post also fails the
// run (spec §1.5), its summary kept.
func (s *Service) announce(ctx context.Context, j *Job, out *outcome) {
	out.delivered = boolp(false)
	out.deliveryStatus = "not-delivered"
	switch {
	case out.status != StatusOK:
		out.deliveryError = "the run failed before delivery"
		return
	case silentSummary(out.summary):
		out.deliveryError = "nothing to deliver (empty or silent reply)"
		return
	case s.agent == nil:
		out.deliveryError = noRuntimeError
		return
	}
	agent := j.AgentID
	if agent == "" {
		agent = s.settings().defaultAgent
	}
	d := j.Delivery
	thread := ""
	if d.ThreadID != nil {
		thread = strings.TrimSpace(fmt.Sprint(d.ThreadID))
		if f, ok := d.ThreadID.(float64); ok {
			thread = strconv.FormatInt(int64(f), 10)
		}
	}
	_, err := s.agent.Deliver(ctx, agentrun.Delivery{Channel: d.Channel, To: d.To, AccountID: d.AccountID, ThreadID: thread,
		SessionKey: mainSessionKey(agent), AgentID: agent, Text: out.summary})
	if err != nil {
		out.deliveryError = err.Error()
		if d.BestEffort == nil || !*d.BestEffort {
			out.status, out.err = StatusError, "cron: announce delivery failed: "+err.Error()
			if why := undeliverable(j, s.settings().cfg); why != "" {
				out.err += " (" + strings.TrimPrefix(why, "every run will fail: ") + ")"
			}
		}
		return
	}
	out.delivered = boolp(true)
	out.deliveryStatus = "delivered"
}

// silentSummary is a reply the original never announces.
func silentSummary(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || t == "NO_REPLY" || t == "HEARTBEAT_OK"
}

// finish applies a run's outcome to its job and records the run, in one
// transaction, then announces it.
func (s *Service) finish(jobID, runID string, out outcome, started, ended int64, manual bool) {
	s.mu.Lock()
	delete(s.running, jobID)
	j := s.byID[jobID]
	e := RunEntry{TS: ended, JobID: jobID, Action: "finished", Status: out.status, Error: out.err, Summary: out.summary,
		Delivered: out.delivered, DeliveryStatus: out.deliveryStatus, DeliveryError: out.deliveryError,
		SessionKey: out.sessionKey, RunID: runID, RunAtMs: started, DurationMs: i64(max(ended-started, 0)), Manual: manual}
	var changed []*Job
	removed := false
	if j != nil {
		e.JobName = j.Name
		removed = s.applyOutcome(j, out, started, ended, manual)
		e.NextRunAtMs = copyPtr(j.State.NextRunAtMs)
		changed = append(changed, j)
	}
	err := s.commitRun(s.ctx, e, changed, removed)
	if removed && err == nil {
		delete(s.byID, jobID)
	}
	s.rev++
	s.mu.Unlock()
	ev := map[string]any{"jobId": jobID, "action": "finished", "runId": runID, "runAtMs": started, "status": out.status,
		"durationMs": ended - started, "deliveryStatus": out.deliveryStatus}
	if out.err != "" {
		ev["error"] = out.err
	}
	if out.summary != "" {
		ev["summary"] = out.summary
	}
	if e.NextRunAtMs != nil {
		ev["nextRunAtMs"] = *e.NextRunAtMs
	}
	s.publish(ev)
	if removed {
		s.publish(map[string]any{"jobId": jobID, "action": "removed"})
	}
	s.poke()
}

// applyOutcome sets a job's state after a run (spec §1.9 step 5) and
// reports whether the job is to be deleted (a one-shot that succeeded with
// deleteAfterRun). A one-shot is disabled after any other end, never
// retried; a recurring job that failed waits its backoff; a cron job never
// fires again within 2 s of its last end; a manual run of a recurring job
// leaves its next natural run where it was.
func (s *Service) applyOutcome(j *Job, out outcome, started, ended int64, manual bool) bool {
	st := &j.State
	st.RunningAtMs = nil
	st.LastRunAtMs = i64(started)
	st.LastRunStatus, st.LastStatus = out.status, out.status
	st.LastError = out.err
	st.LastDurationMs = i64(max(ended-started, 0))
	st.LastDelivered = copyPtr(out.delivered)
	st.LastDeliveryStatus = out.deliveryStatus
	st.LastDeliveryError = out.deliveryError
	errs := 0
	if out.status == StatusError {
		if st.ConsecutiveErrors != nil {
			errs = *st.ConsecutiveErrors
		}
		errs++
	}
	st.ConsecutiveErrors = &errs
	j.UpdatedAtMs = ended
	if j.Schedule.Kind == KindAt {
		if out.status == StatusOK && j.DeleteAfterRun != nil && *j.DeleteAfterRun {
			return true
		}
		j.Enabled = false
		st.NextRunAtMs = nil
		return false
	}
	if !j.Enabled { // disabled while it ran
		st.NextRunAtMs = nil
		return false
	}
	if manual && st.NextRunAtMs != nil {
		return false
	}
	natural, ok := jobNext(j, ended)
	switch {
	case out.status == StatusError:
		retry := ended + backoff(errs)
		if !ok || natural < retry {
			natural, ok = retry, true
		}
	case j.Schedule.Kind == KindCron && ok:
		natural = max(natural, ended+minRefireGapMs)
	}
	st.NextRunAtMs = nil
	if ok {
		st.NextRunAtMs = i64(natural)
	}
	return false
}

// commitRun writes a finished run and its job's new state together.
func (s *Service) commitRun(ctx context.Context, e RunEntry, jobs []*Job, removed bool) error {
	status := e.Status
	if e.Interrupted {
		status = StatusInterrupted
	}
	oldest := e.TS - runMaxAge.Milliseconds()
	ctx = context.WithoutCancel(ctx) // a run that ended is recorded, shutdown or not
	err := s.repo.tx(ctx, func(tx dbTx) error {
		if err := finishRun(ctx, tx, e, status); err != nil {
			return err
		}
		for _, j := range jobs {
			var err error
			if removed {
				err = deleteJob(ctx, tx, j.ID)
			} else {
				err = putJob(ctx, tx, j)
			}
			if err != nil {
				return err
			}
		}
		return pruneRuns(ctx, tx, e.JobID, s.settings().keepRuns, oldest)
	})
	return err
}

// publish sends a `cron` event to operators (read scope).
func (s *Service) publish(payload map[string]any) {
	if s.events != nil {
		_ = s.events.Publish("cron", payload)
	}
}
