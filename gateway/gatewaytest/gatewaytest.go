// Package gatewaytest runs a real gateway inside a family's tests: the
// families linked into the test binary, a loopback port, state in a
// directory, one token, no environment and no config polling. Each
// family's tests used to carry their own copy of this start-and-stop.
package gatewaytest

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/gateway"
)

// Gateway is one running gateway; it stops when the test ends, or at Stop.
type Gateway struct {
	Dir  string // the state directory (openclaw.json, openclaw.db)
	Port int    // the bound loopback port
	URL  string // ws://127.0.0.1:Port

	t      testing.TB
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// Start serves a gateway with state in dir (its config is dir/openclaw.json
// when present) on port (0: a free one), accepting token.
func Start(t testing.TB, dir, token string, port int) *Gateway {
	t.Helper()
	s, err := gateway.New(gateway.Options{
		Port: port, Token: token, Version: "test",
		Paths:              config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")},
		Getenv:             func(string) string { return "" },
		ConfigPollInterval: -1, DrainTimeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	_, p, _ := net.SplitHostPort(s.Addr())
	port, _ = strconv.Atoi(p)
	ctx, cancel := context.WithCancel(context.Background())
	g := &Gateway{Dir: dir, Port: port, URL: "ws://127.0.0.1:" + strconv.Itoa(port), t: t, cancel: cancel, done: make(chan error, 1)}
	go func() { g.done <- s.Serve(ctx) }()
	t.Cleanup(g.Stop)
	return g
}

// Stop ends the gateway and waits for it (once; the test's cleanup calls it too).
func (g *Gateway) Stop() {
	g.once.Do(func() {
		g.cancel()
		select {
		case <-g.done:
		case <-time.After(20 * time.Second):
			g.t.Errorf("gateway did not stop")
		}
	})
}
