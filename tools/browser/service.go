package browser

import (
	"context"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

const serviceName = "browser"

// service is the browser's lifecycle inside `openclaw serve`. The browsers
// are detached processes shared with the CLI (a relayed call and a local
// call act on the same tab), and every call opens its own CDP connection,
// so the service holds no connection. It holds two things:
//
//   - the browsers this gateway launched (a relayed `start`): they stop
//     with the gateway, recorder and all. A browser the CLI launched, or
//     one the user runs and a profile attaches to (cdpUrl), is left alone.
//   - the browser calls in flight: when shutdown begins (Drain) each gets
//     until shortly before the drain deadline, then its context ends, so a
//     long `wait` cannot keep the gateway from a clean exit.
type service struct {
	mu       sync.Mutex
	calls    map[int]context.CancelFunc
	next     int
	draining bool
	launched map[string]launchedBrowser // profile dir → what this gateway started
}

type launchedBrowser struct {
	p   *profile
	pid int
}

func init() {
	tools.RegisterService(tools.ServiceSpec{Name: serviceName, New: func(*tools.Env) (tools.Service, error) {
		return &service{calls: map[int]context.CancelFunc{}, launched: map[string]launchedBrowser{}}, nil
	}})
}

// gatewayService is the running gateway's browser service; nil in the CLI.
func gatewayService(env *tools.Env) *service {
	s, err := env.Service(serviceName, "")
	if err != nil {
		return nil
	}
	svc, _ := s.(*service)
	return svc
}

func (s *service) Start(context.Context) error { return nil }

// track gives a call a context that Drain can end; done forgets it.
func (s *service) track(ctx context.Context) (context.Context, func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		cancel()
		return nil, nil, tools.Errorf(tools.CodeUnreachable, "the gateway is stopping")
	}
	id := s.next
	s.next++
	s.calls[id] = cancel
	return ctx, func() {
		s.mu.Lock()
		delete(s.calls, id)
		s.mu.Unlock()
		cancel()
	}, nil
}

// drainMargin is how long before the drain deadline in-flight calls are
// ended, so their answers are sent in time (a quarter of what is left when
// that is shorter).
const drainMargin = time.Second

// Drain refuses new calls and ends the ones in flight shortly before the
// deadline.
func (s *service) Drain(ctx context.Context) {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	at := time.Now()
	if d, ok := ctx.Deadline(); ok {
		left := time.Until(d)
		at = at.Add(left - min(drainMargin, left/4))
	}
	time.AfterFunc(time.Until(at), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, cancel := range s.calls {
			cancel()
		}
	})
}

// launchedHere records a browser this gateway launched.
func (s *service) launchedHere(p *profile, pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.launched[p.Dir] = launchedBrowser{p: p, pid: pid}
}

// Stop stops the browsers this gateway launched that still run as the
// process it launched (a later `browser stop` and a start from the CLI
// make it someone else's).
func (s *service) Stop(ctx context.Context) error {
	s.mu.Lock()
	launched := s.launched
	s.launched = map[string]launchedBrowser{}
	for _, cancel := range s.calls {
		cancel()
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range launched {
		if l.p.AttachOnly || l.pid == 0 || readInt(pidFile(l.p)) != l.pid {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = l.p.stop(ctx) }()
	}
	wg.Wait()
	return nil
}
