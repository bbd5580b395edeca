package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
)

// provided are the typed services this gateway hands to handlers through
// tools.Env. The gateway control and event publisher are the server itself;
// jobs, store and media are filled by their implementations when present.
type provided struct {
	mu      sync.Mutex
	jobs    tools.Jobs
	store   tools.Store
	media   tools.Media
	running map[string]tools.Service
	order   []string // start order, stopped in reverse
}

// control is the tools.GatewayControl view of a server.
type control struct{ s *Server }

func (c control) Version() string { return c.s.opts.Version }

func (c control) ScheduleRestart(delay time.Duration, reason string) (bool, error) {
	err := c.s.ScheduleRestart(delay, reason)
	if errors.Is(err, ErrRestartPending) {
		return true, nil
	}
	return false, err
}

// publisher is the tools.Events view of a server.
type publisher struct{ s *Server }

func (p publisher) Publish(event string, payload any) error { return p.s.Broadcast(event, payload) }

// serverFrom returns the running gateway behind env, or an UNREACHABLE
// error when the method is invoked outside `openclaw serve`. Only the
// gateway's own methods use it; families use the typed services.
func serverFrom(env *tools.Env, method string) (*Server, error) {
	if c, ok := env.Gateway.(control); ok && c.s != nil {
		return c.s, nil
	}
	return nil, tools.Errorf(tools.CodeUnreachable, "%s needs a running gateway: start it with `openclaw serve`", method)
}

// baseEnv is the Env every handler and service of this gateway starts from.
func (s *Server) baseEnv() tools.Env {
	s.svc.mu.Lock()
	defer s.svc.mu.Unlock()
	return tools.Env{
		Config:   s.Config(),
		StateDir: s.paths.StateDir,
		Warn:     s.log,
		Gateway:  control{s},
		Events:   publisher{s},
		Conns:    connSender{s},
		Routes:   s.routes,
		Jobs:     s.svc.jobs,
		Store:    s.svc.store,
		Media:    s.svc.media,
		Services: s.svc.running,
	}
}

// provide fills the typed services the gateway itself provides before any
// registered service is built: the job runner, the store and the media
// directory live for the gateway's lifetime (ctx) and are set here by their
// implementations (s.svc.jobs, s.svc.store, s.svc.media); nil until then.
func (s *Server) provide(ctx context.Context) error { return s.startState(ctx) }

// startServices builds and starts the registered services (tools.
// RegisterService) in dependency order (tools.ServiceOrder): each
// constructor sees the base services and, in Env.Services, only what it
// Requires, already started. A cycle, a missing dependency or a failing
// service stops those already started and fails the start, naming the
// services, so the gateway does not run half-equipped.
func (s *Server) startServices(ctx context.Context) error {
	if err := s.provide(ctx); err != nil {
		return fmt.Errorf("gateway services: %w", err)
	}
	ordered, err := tools.ServiceOrder(s.specs)
	if err != nil {
		return fmt.Errorf("gateway %w", err)
	}
	running := map[string]tools.Service{}
	var order []string
	for _, spec := range ordered {
		env := s.baseEnv()
		env.Services = make(map[string]tools.Service, len(spec.Requires))
		for _, d := range spec.Requires {
			env.Services[d] = running[d]
		}
		svc, err := spec.New(&env)
		if err == nil && svc == nil {
			err = errors.New("constructor returned no service")
		}
		if err == nil {
			err = svc.Start(ctx)
		}
		if err != nil {
			s.stopServicesIn(running, order)
			return fmt.Errorf("gateway service %s: %w", spec.Name, err)
		}
		running[spec.Name] = svc
		order = append(order, spec.Name)
	}
	s.svc.mu.Lock()
	s.svc.running, s.svc.order = running, order
	s.svc.mu.Unlock()
	full := func() *tools.Env { e := s.baseEnv(); return &e }
	for _, name := range order {
		if a, ok := running[name].(tools.Attacher); ok {
			a.Attach(full)
		}
	}
	return nil
}

// serviceFamilies are the registered services' own migrations, applied
// under each service's name when the store opens.
func serviceFamilies(specs []tools.ServiceSpec) []store.Family {
	var out []store.Family
	for _, sp := range specs {
		if len(sp.Migrations) == 0 {
			continue
		}
		f := store.Family{Name: sp.Name}
		for _, m := range sp.Migrations {
			f.Migrations = append(f.Migrations, store.Migration{Version: m.Version, Name: m.Name, Up: m.Up})
		}
		out = append(out, f)
	}
	return out
}

// drainServices tells every running tools.Drainer that shutdown began;
// ctx ends at the drain deadline. The drainers are called outside the
// services lock, so one that waits cannot block handlers building an Env.
func (s *Server) drainServices(ctx context.Context) {
	s.svc.mu.Lock()
	var drainers []tools.Drainer
	for _, name := range s.svc.order {
		if d, ok := s.svc.running[name].(tools.Drainer); ok {
			drainers = append(drainers, d)
		}
	}
	s.svc.mu.Unlock()
	for _, d := range drainers {
		d.Drain(ctx)
	}
}

// stopServices stops the running services in reverse start order.
func (s *Server) stopServices() {
	s.svc.mu.Lock()
	running, order := s.svc.running, s.svc.order
	s.svc.running, s.svc.order = nil, nil
	s.svc.mu.Unlock()
	s.stopServicesIn(running, order)
}

func (s *Server) stopServicesIn(running map[string]tools.Service, order []string) {
	for i := len(order) - 1; i >= 0; i-- {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := running[order[i]].Stop(ctx); err != nil {
			s.log.Warnf("gateway service %s: stop: %v", order[i], err)
		}
		cancel()
	}
}
