package gateway

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// testCounterService is a stateful family as the gateway runs one:
// registered once, built per gateway, started after listening, stopped on
// shutdown, reached by its actions through its typed key.
type testCounterService struct {
	mu      sync.Mutex
	started bool
	stopped bool
	hits    int
	env     *tools.Env
}

func (s *testCounterService) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true
	return nil
}

func (s *testCounterService) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	return nil
}

var counterKey = tools.NewServiceKey[*testCounterService]("test.counter")

var (
	testServicesMu sync.Mutex
	testServices   []*testCounterService
)

func init() {
	tools.RegisterService(counterKey.Spec(func(env *tools.Env) (*testCounterService, error) {
		s := &testCounterService{env: env}
		testServicesMu.Lock()
		testServices = append(testServices, s)
		testServicesMu.Unlock()
		return s, nil
	}))
	tools.Register(&tools.Action{Method: "test.service", Scope: protocol.ScopeRead, Where: tools.Gateway,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := counterKey.From(env, "test.service")
			if err != nil {
				return nil, err
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			s.hits++
			return map[string]any{"hits": s.hits, "started": s.started}, nil
		}})
}

func TestServiceLifecycle(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	for want := 1; want <= 2; want++ {
		f := c.call("test.service", nil)
		if !f.OK || string(f.Payload) != `{"hits":`+string(rune('0'+want))+`,"started":true}` {
			t.Fatalf("call %d: %s %+v", want, f.Payload, f.Error)
		}
	}
	var mine *testCounterService
	testServicesMu.Lock()
	for _, s := range testServices {
		s.mu.Lock()
		if s.hits == 2 {
			mine = s
		}
		s.mu.Unlock()
	}
	testServicesMu.Unlock()
	if mine == nil {
		t.Fatal("the service instance the action reached is not one the gateway built")
	}
	if mine.env.Gateway == nil || mine.env.Events == nil || mine.env.StateDir != ts.dir {
		t.Errorf("service env lacks the gateway's services: %+v", mine.env)
	}
	ts.stop()
	mine.mu.Lock()
	defer mine.mu.Unlock()
	if !mine.stopped {
		t.Error("service not stopped at shutdown")
	}
}

// Outside the gateway (the CLI) a service-backed action says how to get one.
func TestServiceMissingOutsideGateway(t *testing.T) {
	_, err := counterKey.From(&tools.Env{}, "cron list")
	te := tools.AsError(err)
	if te.ExitCode() != 5 || te.Message != "cron list needs a running gateway: start it with `openclaw serve`" {
		t.Fatalf("got %v (exit %d)", err, te.ExitCode())
	}
}
