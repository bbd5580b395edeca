// Package heartbeat is the heartbeat runner: a periodic agent turn in each
// heartbeat agent's main session (agents.defaults.heartbeat.every, 30m by
// default, 0m off) asking the model to look at HEARTBEAT.md and the
// session's queued system events, and to answer HEARTBEAT_OK when nothing
// needs attention. Acknowledgements are dropped; anything else goes to the
// heartbeat's target through the message family's adapters. wake --mode
// now and cron main jobs (wakeMode now) ask for a heartbeat at once.
//
// A heartbeat turn is work nobody's connection asked for, so it holds the
// least a run can hold (tools.LeastRunScopes, operator.write: the agent
// tools, no admin action), as tools/grant.go's unknown-starter rule says.
//
// Each run ends in a `heartbeat` event {ts, status, reason?, preview?,
// durationMs?, channel?, to?, accountId?, agentId, sessionKey} with status
// sent, ok-empty, ok-token, skipped or failed; last-heartbeat returns the
// latest, set-heartbeats turns the runner off and on.
package heartbeat

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/agentrun"
	"github.com/openclaw-go/openclaw/tools/cron"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// Key is the runner's typed handle.
var Key = tools.NewServiceKey[*Service]("heartbeat")

func init() {
	spec := Key.Spec(newService)
	spec.Requires = []string{agentrun.Key.Name(), cron.Key.Name()}
	tools.RegisterService(spec)
}

// Run statuses (the original's).
const (
	StatusSent    = "sent"
	StatusOKEmpty = "ok-empty"
	StatusOKToken = "ok-token"
	StatusSkipped = "skipped"
	StatusFailed  = "failed"
)

const (
	// maxIdle: the runner looks at the config at least this often, so a
	// reloaded interval takes effect without a restart.
	maxIdle = time.Minute
	// busyRetry and busyGiveUp: a wake that finds its session busy tries
	// again every busyRetry, for busyGiveUp at most (then skips).
	busyRetry  = 250 * time.Millisecond
	busyGiveUp = 2 * time.Minute
	// heartbeatFileMax is how much of HEARTBEAT.md is read.
	heartbeatFileMax = 64 << 10
	reasonInterval   = "interval"
)

// Service runs the heartbeats of one gateway.
type Service struct {
	agent  *agentrun.Service
	cron   *cron.Service
	base   *tools.Env
	full   atomic.Pointer[func() *tools.Env]
	events tools.Events
	// now is the clock (tests may replace it before Start).
	now func() time.Time

	enabled atomic.Bool

	mu    sync.Mutex
	last  map[string]any
	next  map[string]time.Time     // agent -> next scheduled run
	every map[string]time.Duration // agent -> the interval next was set for
	busy  map[string]bool          // agent -> a heartbeat in progress
	again map[string]request       // agent -> a wake asked for during one

	kick   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// request is one heartbeat asked for: why, and in which session ("":
// the agent's heartbeat session).
type request struct{ reason, sessionKey string }

func newService(env *tools.Env) (*Service, error) {
	rt, err := agentrun.Key.From(env, "heartbeat")
	if err != nil {
		return nil, err
	}
	cr, err := cron.Key.From(env, "heartbeat")
	if err != nil {
		return nil, err
	}
	s := &Service{agent: rt, cron: cr, base: env, events: env.Events, now: time.Now,
		next: map[string]time.Time{}, every: map[string]time.Duration{}, busy: map[string]bool{},
		again: map[string]request{}, kick: make(chan struct{}, 1)}
	s.enabled.Store(true)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	cr.SetWaker(s.Wake)
	return s, nil
}

// Attach takes the gateway's handler Env (its config follows reloads).
func (s *Service) Attach(env func() *tools.Env) { s.full.Store(&env) }

// env is the gateway's handler Env once attached, else the service's.
func (s *Service) env() *tools.Env {
	if f := s.full.Load(); f != nil {
		return (*f)()
	}
	return s.base
}

func (s *Service) cfg() *config.Config {
	env := s.env()
	if env.Config == nil {
		return config.Empty()
	}
	return env.Config
}

// Start runs the schedule.
func (s *Service) Start(context.Context) error {
	s.wg.Add(1)
	go s.loop()
	return nil
}

// Stop ends the schedule and waits (until ctx ends) for heartbeats in
// progress.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock() // launch checks ctx under mu: none starts once Wait may run
	s.cancel()
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.New("heartbeat: runs still in progress at stop")
	}
}

// SetEnabled turns every heartbeat (scheduled and woken) on or off.
func (s *Service) SetEnabled(on bool) { s.enabled.Store(on) }

// Last is the latest heartbeat event, nil before the first.
func (s *Service) Last() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Wake asks for a heartbeat of agentID now, in sessionKey ("": its
// heartbeat session); it is cron's Waker.
func (s *Service) Wake(agentID, sessionKey, reason string) {
	if agentID == "" {
		agentID = sessions.AgentOf(sessionKey)
	}
	s.launch(sessions.NormalizeAgentID(agentID), request{reason: reason, sessionKey: sessionKey})
}

func (s *Service) loop() {
	defer s.wg.Done()
	for {
		t := time.NewTimer(s.tick())
		select {
		case <-s.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-s.kick:
			t.Stop()
		}
	}
}

// tick starts the heartbeats that are due and returns how long to sleep.
func (s *Service) tick() time.Duration {
	cfg := s.cfg()
	now := time.Now()
	wait := maxIdle
	agents := plan(cfg)
	var due []string
	s.mu.Lock()
	seen := map[string]bool{}
	for _, id := range agents {
		seen[id] = true
		every := resolve(cfg, id).interval()
		if every <= 0 {
			delete(s.next, id)
			continue
		}
		if s.every[id] != every || s.next[id].IsZero() {
			s.every[id], s.next[id] = every, now.Add(every)
		}
		if !now.Before(s.next[id]) {
			due = append(due, id)
			s.next[id] = now.Add(every)
		}
		wait = min(wait, s.next[id].Sub(now))
	}
	for id := range s.next {
		if !seen[id] {
			delete(s.next, id)
			delete(s.every, id)
		}
	}
	s.mu.Unlock()
	for _, id := range due {
		s.launch(id, request{reason: reasonInterval})
	}
	return max(wait, 10*time.Millisecond)
}

// launch starts a heartbeat of agentID unless one is in progress; a wake
// asked for meanwhile runs after it (a missed interval tick does not).
func (s *Service) launch(agentID string, req request) {
	s.mu.Lock()
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		return
	}
	if s.busy[agentID] {
		if req.reason != reasonInterval {
			s.again[agentID] = req
		}
		s.mu.Unlock()
		return
	}
	s.busy[agentID] = true
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		ev := s.runOnce(s.ctx, agentID, req)
		s.record(ev)
		s.mu.Lock()
		delete(s.busy, agentID)
		next, ok := s.again[agentID]
		delete(s.again, agentID)
		s.mu.Unlock()
		if ok {
			s.launch(agentID, next)
		}
	}()
}

// record keeps ev as the last heartbeat and publishes it.
func (s *Service) record(ev map[string]any) {
	s.mu.Lock()
	s.last = ev
	s.mu.Unlock()
	if s.events != nil {
		_ = s.events.Publish("heartbeat", ev)
	}
}

// runOnce is one heartbeat, from the checks that may skip it to the
// delivery of its reply; it returns the event saying how it went.
func (s *Service) runOnce(ctx context.Context, agentID string, req request) map[string]any {
	started := s.now()
	cfg := s.cfg()
	hb := resolve(cfg, agentID)
	key := sessions.Canonical(req.sessionKey, agentID)
	if key == "" {
		key = sessions.Canonical(hb.Session, agentID)
	}
	if key == "" {
		key = sessions.MainKey(agentID)
	}
	ev := map[string]any{"ts": started.UnixMilli(), "agentId": agentID, "sessionKey": key, "trigger": req.reason}
	skip := func(why string) map[string]any {
		ev["status"], ev["reason"] = StatusSkipped, why
		return ev
	}
	if !s.enabled.Load() {
		return skip("disabled")
	}
	if !hb.ActiveHours.within(started, cfg.String("agents.defaults.userTimezone", "")) {
		return skip("quiet-hours")
	}
	// A session busy with a turn is not interrupted: a scheduled poll
	// skips; a wake (it carries events) waits for the session a while.
	for give := time.Now().Add(busyGiveUp); len(s.agent.Active(key)) > 0; {
		if req.reason == reasonInterval || time.Now().After(give) {
			return skip("requests-in-flight")
		}
		select {
		case <-ctx.Done():
			return skip("shutdown")
		case <-time.After(busyRetry):
		}
	}
	pending, _ := s.cron.PendingSystemEvents(ctx, key)
	hasEvents := len(pending) > 0
	env := *s.env()
	env.Config, env.Subject = cfg, tools.Subject{Kind: tools.CallerAgent, AgentID: agentID}
	if req.reason == reasonInterval && !hasEvents && heartbeatFileEmpty(env.WorkspaceDir()) {
		return skip("empty-heartbeat-file")
	}
	dest, why := s.route(ctx, cfg, hb, agentID, key)
	if dest == nil && why != "" && !hasEvents {
		return skip(why) // nothing to act on and nowhere to say it: no model call
	}
	out, err := s.agent.RunTurn(ctx, agentrun.Turn{Message: hb.prompt(), AgentID: agentID, SessionKey: key,
		Model: hb.Model, Timeout: hb.timeout(cfg)}) // Scopes nil: tools.LeastRunScopes
	ev["durationMs"] = s.now().Sub(started).Milliseconds()
	if err != nil {
		ev["status"], ev["reason"] = StatusFailed, err.Error()
		return ev
	}
	if out.Status != "ok" {
		ev["status"], ev["reason"] = StatusFailed, out.Error
		return ev
	}
	reply := ""
	if n := len(out.Result.Payloads); n > 0 {
		reply = out.Result.Payloads[n-1].Text
	}
	text, ack := stripToken(reply, hb.ackMax())
	switch {
	case ack:
		ev["status"] = StatusOKToken
		return ev
	case text == "" || text == "NO_REPLY":
		ev["status"] = StatusOKEmpty
		return ev
	}
	ev["preview"] = preview(text)
	if dest == nil {
		// The reply stays in the session's transcript (the main session
		// is where it is read), delivered nowhere.
		if why == "" {
			why = "target-none"
		}
		return skip(why)
	}
	d := *dest
	d.Text = text
	res, err := s.agent.Deliver(ctx, d)
	if err != nil {
		ev["status"], ev["reason"] = StatusFailed, err.Error()
		return ev
	}
	ev["status"] = StatusSent
	for _, k := range []string{"channel", "to", "accountId"} {
		if v, ok := res[k].(string); ok && v != "" {
			ev[k] = v
		}
	}
	return ev
}

func preview(text string) string {
	r := []rune(text)
	if len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return text
}

// heartbeatFileEmpty reports a HEARTBEAT.md that exists but has nothing to
// act on (a missing file is not empty: the model decides).
func heartbeatFileEmpty(workspace string) bool {
	f, err := os.Open(filepath.Join(workspace, "HEARTBEAT.md"))
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, heartbeatFileMax))
	if err != nil {
		return false
	}
	return effectivelyEmpty(strings.ToValidUTF8(string(b), ""))
}
