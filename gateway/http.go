package gateway

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// reservedUpgradePaths belong to protocols we do not serve (§1.2); an
// upgrade there must not become a general RPC socket.
var reservedUpgradePaths = map[string]bool{
	"/__openclaw__/worker": true,
	"/desktop/observe":     true,
	"/node-desktop/attach": true,
	"/node-portal/attach":  true,
}

func allowGetHead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	httpError(w, http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed")
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// httpError uses the {"error":{"type","message"}} body the reference client
// parses from rejected upgrades.
func httpError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"type": typ, "message": msg}})
}

// checkOrigin lets non-browser clients (no Origin) in, and browsers only
// from a loopback page or the gateway's own origin: a random web page must
// not drive a loopback gateway.
func checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return isLoopbackHost(u.Hostname())
}

// clientIP is the TCP peer address (proxy headers are not trusted).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// isDirectLocal is the reference's "direct local" test: a loopback peer with
// no proxy headers and no browser Origin.
func isDirectLocal(r *http.Request) bool {
	if !isLoopbackHost(clientIP(r)) {
		return false
	}
	return !forwarded(r) && r.Header.Get("Origin") == ""
}

// serveWS admits a socket: per-IP pre-auth budget, upgrade, then the
// connection's own loops on this goroutine.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if s.stopping.Load() {
		httpError(w, http.StatusServiceUnavailable, "unavailable", "gateway stopping")
		return
	}
	ip := clientIP(r)
	s.mu.Lock()
	if s.preauthByIP[ip] >= s.opts.MaxPreAuthPerIP {
		s.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, "unavailable", "too many unauthenticated connections from this address")
		return
	}
	s.preauthByIP[ip]++
	s.mu.Unlock()

	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		s.releasePreauth(ip)
		s.log.Debugf("upgrade from %s failed: %v", ip, err)
		return // Upgrade already answered with an HTTP error
	}
	c := newConn(s, ws, ip, isDirectLocal(r))
	c.host = r.Host
	s.mu.Lock()
	if s.stopping.Load() {
		s.mu.Unlock()
		s.releasePreauth(ip)
		_ = ws.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.byID[c.id] = c
	s.connWG.Add(1)
	s.mu.Unlock()
	defer s.connWG.Done()
	c.run()
}

func (s *Server) releasePreauth(ip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.preauthByIP[ip] <= 1 {
		delete(s.preauthByIP, ip)
	} else {
		s.preauthByIP[ip]--
	}
}
