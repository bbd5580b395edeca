package canvas

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// The canvas host runs as a gateway service: built when the gateway
// starts, it serves its routes on the gateway's port behind the gateway's
// auth (tools.Routes), and stops with it.
//
// Config: canvasHost.enabled (default true), canvasHost.root (default
// <state>/canvas), canvasHost.liveReload (default true). The environment
// variable OPENCLAW_SKIP_CANVAS_HOST=1 turns the host off whatever the
// config says. Changes apply at the next gateway start.

var hostKey = tools.NewServiceKey[*service]("canvas")

// service is the running canvas host (nil host when it is off).
type service struct {
	host *Host
}

func (s *service) Start(context.Context) error { return nil }

func (s *service) Stop(context.Context) error {
	if s.host != nil {
		return s.host.Close()
	}
	return nil
}

// Settings are the canvas host's configuration as it applies.
type Settings struct {
	Enabled    bool
	Root       string
	LiveReload bool
	// Off says why the host is off ("" when on).
	Off string
}

// truthy reads an environment switch as the original does.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// ResolveSettings reads the canvasHost.* keys and OPENCLAW_SKIP_CANVAS_HOST.
func ResolveSettings(cfg *config.Config, stateDir string, getenv func(string) string) Settings {
	if cfg == nil {
		cfg = config.Empty()
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	s := Settings{
		Enabled:    cfg.Bool("canvasHost.enabled", true),
		Root:       cfg.String("canvasHost.root", ""),
		LiveReload: cfg.Bool("canvasHost.liveReload", true),
	}
	if s.Root == "" {
		s.Root = filepath.Join(stateDir, "canvas")
	} else {
		s.Root = tools.ExpandHome(s.Root)
		if !filepath.IsAbs(s.Root) {
			s.Root = filepath.Join(stateDir, s.Root)
		}
	}
	switch {
	case truthy(getenv("OPENCLAW_SKIP_CANVAS_HOST")):
		s.Enabled, s.Off = false, "OPENCLAW_SKIP_CANVAS_HOST is set"
	case !s.Enabled:
		s.Off = "canvasHost.enabled is false"
	}
	return s
}

func newService(env *tools.Env) (*service, error) {
	st := ResolveSettings(env.Config, env.StateDir, nil)
	if !st.Enabled {
		return &service{}, nil
	}
	warn := func(format string, args ...any) {
		if env.Warn != nil {
			fmt.Fprintf(env.Warn, format+"\n", args...)
		}
	}
	h, err := NewHost(HostOptions{Root: st.Root, LiveReload: st.LiveReload, Warn: warn})
	if err != nil {
		return nil, err
	}
	routes, err := env.NeedRoutes("the canvas host")
	if err != nil {
		h.Close()
		return nil, err
	}
	for _, r := range []struct {
		pattern string
		h       http.HandlerFunc
		upgrade bool
	}{
		{CanvasPath, h.ServeCanvas, false},
		{A2UIPath, h.ServeA2UI, false},
		{WSPath, h.ServeWSPlain, false},
		{WSPath, h.ServeWS, true},
	} {
		var err error
		if r.upgrade {
			err = routes.HandleUpgrade(r.pattern, protocol.ScopeRead, tools.OpenOnLoopback(r.h))
		} else {
			err = routes.Handle(r.pattern, protocol.ScopeRead, tools.OpenOnLoopback(r.h))
		}
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("canvas host: %w", err)
		}
	}
	return &service{host: h}, nil
}

func init() {
	tools.RegisterService(hostKey.Spec(newService))
}
