package exectool

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// serviceName is the gateway service holding exec sessions.
const serviceName = "exec"

// Retention of finished background sessions (spec §2.3).
const (
	defaultTTL        = 30 * time.Minute
	minTTL, maxTTL    = time.Minute, 3 * time.Hour
	maxFinished       = 50
	maxRetainedOutput = 2000000
)

func init() {
	tools.RegisterService(tools.ServiceSpec{Name: serviceName, New: newRegistry})
}

// session is one command started by exec in the gateway. It is visible to
// `process` once backgrounded (explicitly or after yieldMs).
type session struct {
	id, agent, command, cwd string
	taskID                  string // its job on the gateway's runner
	p                       *proc
	startedAt               time.Time

	mu           sync.Mutex
	backgrounded bool
	emptyPolls   int
}

func (s *session) isBackgrounded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backgrounded
}

// registry is the exec service: every process the gateway started, by
// session id. Their lifetimes belong to the job runner (lifecycle.go),
// which ends every process group before the gateway exits.
type registry struct {
	ttl      time.Duration
	jobs     tools.Jobs
	stateDir string     // where the record of running commands lives (records.go)
	recMu    sync.Mutex // serialises writes of the record file

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*session
	names    names // session ids issued so far (names.go)
	closed   bool
	sweeper  sync.WaitGroup
}

func newRegistry(env *tools.Env) (tools.Service, error) {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	ttl := millisDuration(float64(cfg.Int("tools.exec.cleanupMs", int(defaultTTL/time.Millisecond))), maxTTL)
	ttl = max(ttl, minTTL)
	if env.Jobs == nil {
		return nil, fmt.Errorf("exec service: needs the gateway's job runner")
	}
	return &registry{ttl: ttl, jobs: env.Jobs, stateDir: env.StateDir, sessions: map[string]*session{}}, nil
}

// Start runs the sweeper of expired finished sessions.
func (r *registry) Start(ctx context.Context) error {
	r.recover()
	r.ctx, r.cancel = context.WithCancel(context.Background())
	every := max(30*time.Second, r.ttl/6)
	r.sweeper.Add(1)
	go func() {
		defer r.sweeper.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.ctx.Done():
				return
			case <-t.C:
				r.sweep(time.Now())
			}
		}
	}()
	return nil
}

// Stop refuses new commands and ends the sweeper. The processes are the
// job runner's: the gateway stops it (ending every group) first.
func (r *registry) Stop(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
	}
	r.sweeper.Wait()
	return nil
}

// add registers a new session under a fresh slug id and records it on
// disk before returning, so a gateway killed right after answering still
// leaves its successor the token to end what the command started.
func (r *registry) add(s *session) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return tools.Errorf(tools.CodeUnreachable, "gateway is shutting down: no new commands")
	}
	s.id = r.freshName()
	r.sessions[s.id] = s
	r.mu.Unlock()
	r.persist()
	return nil
}

// drop forgets a session (a foreground run that ended, or clear/remove).
func (r *registry) drop(id string) {
	r.mu.Lock()
	delete(r.sessions, id)
	r.mu.Unlock()
	r.persist()
}

// get returns the agent's backgrounded session with this id.
func (r *registry) get(agent, id string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[id]
	if s == nil || s.agent != agent {
		return nil
	}
	return s
}

// list returns the agent's backgrounded sessions, newest first.
func (r *registry) list(agent string) []*session {
	r.mu.Lock()
	var out []*session
	for _, s := range r.sessions {
		if s.agent == agent && s.isBackgrounded() {
			out = append(out, s)
		}
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].startedAt.After(out[j].startedAt) })
	return out
}

// sweep drops finished sessions past the TTL, then the oldest finished
// ones beyond the count and retained-output caps.
func (r *registry) sweep(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	type fin struct {
		id    string
		ended time.Time
		size  int
	}
	var done []fin
	for id, s := range r.sessions {
		st := s.p.state()
		if !st.exited || !s.isBackgrounded() {
			continue
		}
		if now.Sub(st.ended) > r.ttl {
			delete(r.sessions, id)
			continue
		}
		s.p.out.mu.Lock()
		n := len(s.p.out.agg.bytes())
		s.p.out.mu.Unlock()
		done = append(done, fin{id, st.ended, n})
	}
	sort.Slice(done, func(i, j int) bool { return done[i].ended.Before(done[j].ended) })
	total := 0
	for _, f := range done {
		total += f.size
	}
	for len(done) > 0 && (len(done) > maxFinished || total > maxRetainedOutput) {
		delete(r.sessions, done[0].id)
		total -= done[0].size
		done = done[1:]
	}
}
