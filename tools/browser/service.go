package browser

import (
	"context"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

const serviceName = "browser"

// service is the browser inside `openclaw serve`: it keeps one CDP
// connection per endpoint for the gateway's lifetime so relayed calls skip
// the handshake. The browsers themselves stay independent processes (the
// CLI shares them); Stop drops the connections, `browser stop` ends one.
type service struct {
	mu    sync.Mutex
	ctx   context.Context
	stop  context.CancelFunc
	conns map[string]*rod.Browser
}

func init() {
	tools.RegisterService(tools.ServiceSpec{Name: serviceName, New: func(*tools.Env) (tools.Service, error) {
		return &service{conns: map[string]*rod.Browser{}}, nil
	}})
}

func (s *service) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx, s.stop = context.WithCancel(context.Background())
	return nil
}

func (s *service) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		s.stop() // closes every CDP connection, not the browsers
	}
	s.conns = map[string]*rod.Browser{}
	return nil
}

// browser returns a live connection to endpoint, reconnecting when the
// cached one broke (browser restarted).
func (s *service) browser(ctx context.Context, endpoint string) (*rod.Browser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil || s.ctx.Err() != nil {
		return nil, tools.Errorf(tools.CodeUnreachable, "browser service is stopped")
	}
	if b := s.conns[endpoint]; b != nil {
		if _, err := (proto.BrowserGetVersion{}).Call(b.Context(ctx)); err == nil {
			return b, nil
		}
		delete(s.conns, endpoint)
	}
	ws, err := wsURL(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	b, err := connect(s.ctx, ws)
	if err != nil {
		return nil, err
	}
	s.conns[endpoint] = b
	return b, nil
}
