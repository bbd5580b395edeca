package gateway

import (
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store/media"
)

// MediaRoute is where relayed callers fetch result files by name:
// GET /__openclaw__/media/<name> with the gateway's token or password, or
// the device token of a paired operator device with operator.read, as a
// bearer token. Only plain names of regular files directly in the media
// dir are served.
const MediaRoute = "/__openclaw__/media/"

// mediaScope is what a device token needs for the media route: reading a
// result file is reading, as `read` itself is.
const mediaScope = protocol.ScopeRead

// serveMedia answers the media route; false means the path is not its.
func (s *Server) serveMedia(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, MediaRoute) {
		return false
	}
	if !allowGetHead(w, r) {
		return true
	}
	ip, local := clientIP(r), isDirectLocal(r)
	now := time.Now()
	if wait, locked := s.limiter.blocked(ip, local, now); locked {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		httpError(w, http.StatusTooManyRequests, "rate_limited", "too many failed authentication attempts (retry later)")
		return true
	}
	secret := bearer(r)
	// The same shared-secret check as the WebSocket connect (auth.go),
	// else a device token of a paired operator device (device_token.go).
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
		httpError(w, http.StatusUnauthorized, "unauthorized", "unauthorized: send the gateway token or password, or a paired device's token, as Authorization: Bearer <secret>")
		return true
	}
	s.limiter.succeed(ip)
	if byDevice && (grant.role != protocol.RoleOperator || !protocol.ScopeSatisfied(grant.scopes, mediaScope)) {
		httpError(w, http.StatusForbidden, "forbidden", "forbidden: this device token lacks "+mediaScope+" (approve a scope upgrade for the device)")
		return true
	}
	s.svc.mu.Lock()
	md, _ := s.svc.media.(*media.Dir)
	s.svc.mu.Unlock()
	if md == nil {
		httpError(w, http.StatusNotFound, "not_found", "this gateway keeps no media")
		return true
	}
	f, ref, err := md.Open(strings.TrimPrefix(r.URL.Path, MediaRoute))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, media.ErrNotMedia) {
			httpError(w, http.StatusNotFound, "not_found", "no such media file")
		} else {
			s.log.Warnf("media route: %v", err)
			httpError(w, http.StatusInternalServerError, "error", "media file unreadable")
		}
		return true
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		httpError(w, http.StatusInternalServerError, "error", "media file unreadable")
		return true
	}
	h := w.Header()
	h.Set("Content-Type", ref.MimeType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", "attachment")
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return true
}

// bearer is the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}
