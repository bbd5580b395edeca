package gateway

import (
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// notifyConnReady tells every running tools.ConnWatcher of a connection
// that passed its handshake (handshake.go calls it under c.mu, before the
// queued frames are replayed), so a node's first request finds it known.
func (s *Server) notifyConnReady(c *conn) {
	s.svc.mu.Lock()
	var watchers []tools.ConnWatcher
	for _, name := range s.svc.order {
		if w, ok := s.svc.running[name].(tools.ConnWatcher); ok {
			watchers = append(watchers, w)
		}
	}
	s.svc.mu.Unlock()
	if len(watchers) == 0 || c.sess == nil {
		return
	}
	sess := c.sess
	info := tools.ConnInfo{
		ConnID: c.id, Role: sess.role, DeviceID: sess.deviceID, Client: sess.client,
		Caps: slices.Clone(sess.caps), Commands: slices.Clone(sess.commands),
		Permissions: maps.Clone(sess.permissions), PathEnv: sess.pathEnv,
		RemoteIP: c.ip, Local: c.local, Protocol: sess.protocol, ConnectedAtMs: sess.connectedAt,
	}
	for _, w := range watchers {
		w.ConnReady(info)
	}
}

// canvasRoute is the canvas host's path; a service serving it (through
// tools.Routes) turns hello-ok's canvasHostUrl on for nodes.
const canvasRoute = "/__openclaw__/canvas/"

// nodeHello adds what only node connections get to hello-ok: the canvas
// host's URL, on the host and port the node connected to, when the canvas
// host is served.
func (s *Server) nodeHello(c *conn, sess *session, h protocol.HelloOK) protocol.HelloOK {
	if sess.role != protocol.RoleNode || c.host == "" || !s.servesCanvas() {
		return h
	}
	u := url.URL{Scheme: "http", Host: c.host}
	h.CanvasHostURL = u.String()
	return h
}

// servesCanvas reports whether a route answers the canvas host's path.
func (s *Server) servesCanvas() bool {
	r, err := http.NewRequest(http.MethodGet, canvasRoute, nil)
	if err != nil {
		return false
	}
	_, pattern := s.routes.plain.Handler(r)
	return pattern != "" && pattern != "/"
}

// autoApproveLocal is gateway.nodes.pairing.autoApproveLocal (default
// true, as the original): loopback devices pair silently; false makes
// them wait for `openclaw devices approve` like remote ones.
func (s *Server) autoApproveLocal() bool {
	return s.Config().Bool("gateway.nodes.pairing.autoApproveLocal", true)
}
