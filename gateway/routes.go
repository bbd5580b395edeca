package gateway

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/mcpserve"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// routes is the gateway's HTTP side: net/http.ServeMux patterns for plain
// requests (probes, media, services' routes) and a second mux for
// WebSocket upgrades that are not the gateway protocol (a service's live
// reload socket). Every other upgrade is the gateway protocol (§1.2). It is
// the tools.Routes services register through.
type routes struct {
	s       *Server
	plain   *http.ServeMux
	upgrade *http.ServeMux
}

func newRoutes(s *Server) *routes {
	rt := &routes{s: s, plain: http.NewServeMux(), upgrade: http.NewServeMux()}
	rt.plain.HandleFunc("/health", s.serveLive)
	rt.plain.HandleFunc("/healthz", s.serveLive)
	rt.plain.HandleFunc("/ready", s.serveReady)
	rt.plain.HandleFunc("/readyz", s.serveReady)
	rt.plain.Handle(MediaRoute, s.guard(mediaScope, http.HandlerFunc(s.serveMedia)))
	rt.plain.Handle("POST /mcp", s.guard(protocol.ScopeWrite, s.mcpHandler()))
	rt.plain.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpError(w, http.StatusNotFound, "not_found", "not found")
	})
	return rt
}

// mcpHandler is POST /mcp: the MCP front door (mcpserve) as stateless
// streamable HTTP, behind the bearer guard. Each request gets a server
// built from the current config: the toolsets of gateway.mcp.toolsets, the
// original's /tools/invoke deny list (mcpserve.HTTPDeny) as adjusted by
// gateway.tools.allow/deny (mcpserve.HTTPOptions); calls run here through
// tools.Invoke as caller kind mcp.
func (s *Server) mcpHandler() http.Handler {
	return mcpserve.HTTPHandler(func(*http.Request) (*mcpserve.Server, error) {
		var allow, deny, toolsets []string
		cfg := s.Config()
		if err := cfg.Decode("gateway.tools.allow", &allow); err != nil {
			return nil, fmt.Errorf("gateway.tools.allow: %w", err)
		}
		if err := cfg.Decode("gateway.tools.deny", &deny); err != nil {
			return nil, fmt.Errorf("gateway.tools.deny: %w", err)
		}
		if err := cfg.Decode(mcpserve.ToolsetsKey, &toolsets); err != nil {
			return nil, fmt.Errorf("%s: %w", mcpserve.ToolsetsKey, err)
		}
		return mcpserve.New(mcpserve.Config{
			Options: mcpserve.HTTPOptions(toolsets, allow, deny, func(m string) { s.log.Warnf("%s", m) }),
			Env: func() (*tools.Env, error) {
				env := s.baseEnv()
				return &env, nil
			},
			Version: s.opts.Version,
		})
	})
}

// ServeHTTP is the one handler of the port.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if websocket.IsWebSocketUpgrade(r) {
		if h, pattern := s.routes.upgrade.Handler(r); pattern != "" {
			h.ServeHTTP(w, r)
			return
		}
		if reservedUpgradePaths[r.URL.Path] {
			httpError(w, http.StatusNotFound, "not_found", "no WebSocket endpoint at "+r.URL.Path)
			return
		}
		s.serveWS(w, r)
		return
	}
	s.routes.plain.ServeHTTP(w, r)
}

// Handle serves pattern behind the gateway's auth (tools.Routes).
func (rt *routes) Handle(pattern, scope string, h http.Handler) error {
	return register(rt.plain, pattern, rt.s.guard(scope, h))
}

// HandleUpgrade serves WebSocket upgrades at pattern behind the gateway's
// auth (tools.Routes); h does its own upgrade.
func (rt *routes) HandleUpgrade(pattern, scope string, h http.Handler) error {
	return register(rt.upgrade, pattern, rt.s.guard(scope, h))
}

// register turns ServeMux's panic on a bad or duplicate pattern into an
// error for the service that asked.
func register(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	if h == nil {
		return fmt.Errorf("route %q: no handler", pattern)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("route %q: %v", pattern, p)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	if !allowGetHead(w, r) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "status": "live"})
}

func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	if !allowGetHead(w, r) {
		return
	}
	if s.serving.Load() && !s.stopping.Load() {
		writeJSON(w, http.StatusOK, map[string]any{"ready": true})
	} else {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false})
	}
}

// guard admits a request carrying the gateway's token or password, or the
// device token of a paired operator device holding scope, as a bearer
// token: the same checks as the WebSocket connect (auth.go,
// device_token.go), with the same failed-attempt limiter. 401 without a
// valid secret, 403 for a device token short of scope.
func (s *Server) guard(scope string, h http.Handler) http.Handler {
	_, openLocal := h.(interface{ OpenOnLoopback() bool })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A page whose name was re-pointed at 127.0.0.1 (DNS rebinding)
		// passes the loopback peer check from the user's own browser, with
		// its own name as Host: such a request is not open, it needs the
		// gateway's auth like any other.
		foreignHost := false
		if openLocal && s.loopbackOnly() && isLoopbackHost(clientIP(r)) && !forwarded(r) {
			if s.loopbackHostOK(r.Host) {
				h.ServeHTTP(w, r) // tools.OpenOnLoopback: the canvas host on a loopback bind
				return
			}
			foreignHost = true
		}
		ip, local := clientIP(r), isDirectLocal(r)
		now := time.Now()
		if wait, locked := s.limiter.blocked(ip, local, now); locked {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
			httpError(w, http.StatusTooManyRequests, "rate_limited", "too many failed authentication attempts (retry later)")
			return
		}
		secret := bearer(r)
		ar := s.authenticate(&protocol.ConnectParams{Auth: &protocol.ConnectAuth{Token: secret}})
		var grant deviceTokenGrant
		byDevice := false
		if !ar.ok && secret != "" && s.auth.Load().mode != AuthNone {
			grant, byDevice = s.pairing.checkToken(secret)
		}
		if !ar.ok && !byDevice {
			if secret != "" {
				s.limiter.fail(ip, local, now)
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="openclaw"`)
			if foreignHost {
				httpError(w, http.StatusUnauthorized, "unauthorized", fmt.Sprintf("unauthorized: Host %q is not a loopback name, so this page needs the gateway's auth; open it as http://127.0.0.1:%d or http://localhost:%d", r.Host, s.Port(), s.Port()))
				return
			}
			httpError(w, http.StatusUnauthorized, "unauthorized", "unauthorized: send the gateway token or password, or a paired device's token, as Authorization: Bearer <secret>")
			return
		}
		s.limiter.succeed(ip)
		if byDevice && (grant.role != protocol.RoleOperator || !protocol.ScopeSatisfied(grant.scopes, scope)) {
			httpError(w, http.StatusForbidden, "forbidden", "forbidden: this device token lacks "+scope+" (approve a scope upgrade for the device)")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackHostOK is the DNS-rebinding check of the routes open on loopback
// (the one the MCP SDK applies to POST /mcp): the Host header must name
// loopback (localhost, 127.0.0.0/8, ::1) or the configured bind host.
func (s *Server) loopbackHostOK(hostport string) bool {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return isLoopbackHost(h) || (s.host != "" && strings.EqualFold(h, strings.Trim(s.host, "[]")))
}

// loopbackOnly: the gateway listens on a loopback address only.
func (s *Server) loopbackOnly() bool {
	if s.ln == nil {
		return false
	}
	a, ok := s.ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

// forwarded: the request names a client behind a proxy.
func forwarded(r *http.Request) bool {
	for _, h := range []string{"X-Forwarded-For", "X-Real-Ip", "Forwarded", "X-Forwarded-Host"} {
		if r.Header.Get(h) != "" {
			return true
		}
	}
	return false
}
