package gateway

import (
	"errors"
	"net/http"
	"os"
	"strings"

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

// serveMedia answers the media route, behind guard(mediaScope).
func (s *Server) serveMedia(w http.ResponseWriter, r *http.Request) {
	if !allowGetHead(w, r) {
		return
	}
	s.svc.mu.Lock()
	md, _ := s.svc.media.(*media.Dir)
	s.svc.mu.Unlock()
	if md == nil {
		httpError(w, http.StatusNotFound, "not_found", "this gateway keeps no media")
		return
	}
	f, ref, err := md.Open(strings.TrimPrefix(r.URL.Path, MediaRoute))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, media.ErrNotMedia) {
			httpError(w, http.StatusNotFound, "not_found", "no such media file")
		} else {
			s.log.Warnf("media route: %v", err)
			httpError(w, http.StatusInternalServerError, "error", "media file unreadable")
		}
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		httpError(w, http.StatusInternalServerError, "error", "media file unreadable")
		return
	}
	h := w.Header()
	h.Set("Content-Type", ref.MimeType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", "attachment")
	http.ServeContent(w, r, "", fi.ModTime(), f)
}

// bearer is the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}
