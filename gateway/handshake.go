package gateway

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// session is what a connection is authorized as after hello-ok.
type session struct {
	role        string
	scopes      []string
	authMethod  string
	client      protocol.ClientInfo
	deviceID    string
	protocol    int
	connectedAt int64
	caps        []string
	commands    []string
	permissions map[string]bool // a node's declared permissions (node_hooks.go)
	pathEnv     string
	// deviceToken is issued on this connect (hello-ok.auth.deviceToken).
	deviceToken string
	issuedAtMs  int64
}

// handleFirstFrame enforces "first frame must be connect" (§3.1 step 4) and
// starts the connect admission on its own goroutine, so frames arriving
// meanwhile are queued (up to 15) and replayed after hello.
func (c *conn) handleFirstFrame(mt int, data []byte) {
	if mt != websocket.TextMessage {
		c.closeWith(protocol.ClosePolicyViolation, protocol.ReasonInvalidHandshake)
		return
	}
	req, err := protocol.DecodeRequest(data)
	if err != nil {
		c.closeWith(protocol.ClosePolicyViolation, protocol.ReasonInvalidHandshake)
		return
	}
	if req.Method != "connect" {
		c.rejectConnect(req.ID, protocol.NewError(protocol.ErrInvalidRequest,
			"invalid handshake: first request must be connect", nil), protocol.ClosePolicyViolation, "")
		return
	}
	params, msg := parseConnectParams(req.Params)
	if msg != "" {
		c.rejectConnect(req.ID, protocol.NewError(protocol.ErrInvalidRequest,
			"invalid connect params: "+msg, nil), protocol.ClosePolicyViolation, "")
		return
	}
	c.mu.Lock()
	c.state = stateConnecting
	c.mu.Unlock()
	c.reqWG.Add(1)
	go func() {
		defer c.reqWG.Done()
		defer func() {
			if r := recover(); r != nil {
				c.s.log.Warnf("panic in connect: %v\n%s", r, debug.Stack())
				c.rejectConnect(req.ID, retryable(protocol.NewError(protocol.ErrUnavailable, "connect failed: internal error", nil)),
					protocol.CloseTryAgainLater, "")
			}
		}()
		c.handleConnect(req.ID, params)
	}()
}

// rejectConnect answers the connect request with err and closes with code;
// the close reason is the error message unless reason is given.
func (c *conn) rejectConnect(id string, e *protocol.ErrorShape, code int, reason string) {
	c.sendResponse(errorResponse(id, e))
	if reason == "" {
		reason = e.Message
	}
	c.s.log.Debugf("conn %s (%s): connect rejected: %s", c.id, c.ip, e.Message)
	c.closeWith(code, reason)
}

var validRoles = []string{protocol.RoleOperator, protocol.RoleNode}

// parseConnectParams checks the shape of connect params (§3.2) and returns
// a validation summary on failure. Unknown keys are tolerated (§9.4).
func parseConnectParams(raw json.RawMessage) (*protocol.ConnectParams, string) {
	if len(raw) == 0 || !gjson.ValidBytes(raw) {
		return nil, "must be object"
	}
	g := gjson.ParseBytes(raw)
	if !g.IsObject() {
		return nil, "must be object"
	}
	intField := func(path string) string {
		v := g.Get(path)
		switch {
		case !v.Exists():
			return fmt.Sprintf("must have required property '%s'", path)
		case v.Type != gjson.Number || v.Num != float64(int64(v.Num)) || v.Num < 1:
			return fmt.Sprintf("/%s must be integer >= 1", path)
		}
		return ""
	}
	if m := intField("minProtocol"); m != "" {
		return nil, m
	}
	if m := intField("maxProtocol"); m != "" {
		return nil, m
	}
	client := g.Get("client")
	if !client.IsObject() {
		if !client.Exists() {
			return nil, "must have required property 'client'"
		}
		return nil, "/client must be object"
	}
	for _, k := range []string{"id", "version", "platform", "mode"} {
		v := client.Get(k)
		if !v.Exists() {
			return nil, fmt.Sprintf("/client must have required property '%s'", k)
		}
		if v.Type != gjson.String {
			return nil, fmt.Sprintf("/client/%s must be string", k)
		}
		if (k == "id" || k == "mode") && v.Str == "" {
			return nil, fmt.Sprintf("/client/%s must NOT have fewer than 1 characters", k)
		}
	}
	if r := g.Get("role"); r.Exists() && (r.Type != gjson.String || !slices.Contains(validRoles, r.Str)) {
		return nil, "/role must be \"operator\" or \"node\""
	}
	for _, k := range []string{"scopes", "caps", "commands"} {
		if v := g.Get(k); v.Exists() {
			if !v.IsArray() {
				return nil, fmt.Sprintf("/%s must be array", k)
			}
			for i, e := range v.Array() {
				if e.Type != gjson.String {
					return nil, fmt.Sprintf("/%s/%d must be string", k, i)
				}
			}
		}
	}
	if d := g.Get("device"); d.Exists() {
		if !d.IsObject() {
			return nil, "/device must be object"
		}
		for _, k := range []string{"id", "publicKey", "signature", "signedAt", "nonce"} {
			if !d.Get(k).Exists() {
				return nil, fmt.Sprintf("/device must have required property '%s'", k)
			}
		}
		if sa := d.Get("signedAt"); sa.Type != gjson.Number || sa.Num != float64(int64(sa.Num)) {
			return nil, "/device/signedAt must be integer"
		}
	}
	if a := g.Get("auth"); a.Exists() {
		if !a.IsObject() {
			return nil, "/auth must be object"
		}
		var bad string
		a.ForEach(func(k, v gjson.Result) bool {
			if v.Type != gjson.String {
				bad = fmt.Sprintf("/auth/%s must be string", k.Str)
				return false
			}
			return true
		})
		if bad != "" {
			return nil, bad
		}
	}
	var p protocol.ConnectParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, strings.TrimPrefix(err.Error(), "json: ")
	}
	if p.Role == "" {
		p.Role = protocol.RoleOperator
	}
	return &p, ""
}

// handleConnect runs admission (§3.1 steps 5-9): protocol, shared secret,
// device proof and pairing, scopes; then hello-ok.
func (c *conn) handleConnect(id string, p *protocol.ConnectParams) {
	s := c.s
	version, ok := protocol.Negotiate(p.MinProtocol, p.MaxProtocol, p.Role, p.Client.Mode)
	if !ok {
		c.rejectConnect(id, protocol.NewError(protocol.ErrInvalidRequest, "protocol mismatch", map[string]any{
			"code":                 protocol.DetailProtocolMismatch,
			"clientMinProtocol":    p.MinProtocol,
			"clientMaxProtocol":    p.MaxProtocol,
			"expectedProtocol":     protocol.Version,
			"minimumProbeProtocol": protocol.MinProbeVersion,
		}), protocol.CloseProtocolError, protocol.ReasonProtocolMismatch)
		return
	}
	now := time.Now()
	if wait, locked := s.limiter.blocked(c.ip, c.local, now); locked {
		e := authFailure(authResult{reason: "rate_limited"}, s.auth.Load().mode, p.Client, c.local)
		ms := wait.Milliseconds()
		e.RetryAfterMs = &ms
		c.rejectConnect(id, retryable(e), protocol.ClosePolicyViolation, "")
		return
	}
	ar := s.authenticate(p)
	if !ar.ok {
		if p.Device == nil && ar.provided == "none" {
			c.rejectConnect(id, deviceRequired(), protocol.ClosePolicyViolation, "")
			return
		}
		if ar.provided != "none" {
			s.limiter.fail(c.ip, c.local, now)
		}
		c.rejectConnect(id, authFailure(ar, s.auth.Load().mode, p.Client, c.local), protocol.ClosePolicyViolation, "")
		return
	}
	s.limiter.succeed(c.ip)
	sess := &session{
		role: p.Role, authMethod: ar.method, client: p.Client, protocol: version,
		connectedAt: nowMs(), caps: p.Caps, commands: p.Commands, scopes: []string{},
		permissions: p.Permissions, pathEnv: p.PathEnv,
	}
	switch {
	case p.Device != nil:
		pub, derr := verifyDevice(p, p.Role, c.nonce, nowMs())
		if derr != nil {
			c.rejectConnect(id, derr, protocol.ClosePolicyViolation, "")
			return
		}
		sess.deviceID = protocol.DeviceIDFromPublicKey(pub)
		if e := bindDeviceToken(ar.grant, sess.deviceID, p); e != nil {
			s.limiter.fail(c.ip, c.local, now)
			c.rejectConnect(id, authFailure(*e, s.auth.Load().mode, p.Client, c.local), protocol.ClosePolicyViolation, "")
			return
		}
		scopes := p.Scopes
		if p.Role == protocol.RoleNode {
			scopes = nil
		}
		dec, err := s.pairing.admit(sess.deviceID, p.Device.PublicKey, p.Role, scopes, p.Client, c.ip, c.local && s.autoApproveLocal(), nowMs()) // node_hooks.go
		if err != nil {
			s.log.Warnf("device pairing: %v", err)
		}
		if !dec.ok {
			s.broadcast("device.pair.requested", dec.pending, nil, false)
			c.rejectConnect(id, pairingError(dec), protocol.ClosePolicyViolation,
				fmt.Sprintf("device pairing required (requestId: %s)", dec.pending.RequestID))
			return
		}
		if dec.autoNote != "" {
			s.log.Infof("device %s auto-approved on loopback (%s, role %s)", short(sess.deviceID), dec.autoNote, p.Role)
		}
		if p.Role == protocol.RoleOperator {
			sess.scopes = nonNil(p.Scopes)
		}
		if ar.grant == nil {
			tok, err := s.pairing.issueToken(sess.deviceID, p.Role, nowMs())
			if err != nil {
				s.log.Warnf("device token for %s: %v (connecting without one)", short(sess.deviceID), err)
			}
			if tok != "" {
				sess.deviceToken, sess.issuedAtMs = tok, nowMs()
			}
		}
	case ar.grant != nil:
		// A device token stands for a device: without its proof it is
		// refused (the token alone could be replayed from anywhere).
		c.rejectConnect(id, deviceRequired(), protocol.ClosePolicyViolation, "")
		return
	case p.Role == protocol.RoleNode:
		c.rejectConnect(id, deviceRequired(), protocol.ClosePolicyViolation, "")
		return
	default:
		// Device-less operator with shared auth: keep self-declared scopes
		// only for the local CLI and local backend clients (§3.5).
		if c.local && ((p.Client.ID == protocol.ClientIDCLI && p.Client.Mode == protocol.ModeCLI) ||
			(p.Client.ID == protocol.ClientIDGatewayClient && p.Client.Mode == protocol.ModeBackend)) {
			sess.scopes = nonNil(p.Scopes)
		}
	}

	hello, err := json.Marshal(s.nodeHello(c, sess, s.helloOK(c, sess))) // node_hooks.go
	if err != nil {
		c.rejectConnect(id, protocol.NewError(protocol.ErrUnavailable, "could not build hello-ok", nil), protocol.CloseTryAgainLater, "")
		return
	}
	// hello-ok goes out under c.mu, with the connection already authed:
	// a client may send requests the moment it reads hello-ok, and the
	// read loop must then find it ready (or wait for the lock), not still
	// connecting, where frames are queued up to 15 and the 16th closes
	// 1008 "too many pending handshake frames".
	c.mu.Lock()
	c.sess = sess
	c.authed.Store(true)
	if c.hsTimer != nil {
		c.hsTimer.Stop()
	}
	// Whatever a client does once it has read hello-ok must find the
	// connection: services that track connections (the node registry)
	// know it before hello-ok is queued, and it joins the listed and
	// broadcast set in the same step as hello-ok is queued (enqueueHello).
	// Before, hello-ok went out first, and a device.pair.list sent right
	// after it could miss the device (TestDeviceListConnected, 1 in 30).
	s.notifyConnReady(c) // node_hooks.go
	s.enqueueHello(c, &protocol.Response{Type: protocol.TypeRes, ID: id, OK: true, Payload: hello})
	if hook := s.helloQueued.Load(); hook != nil {
		(*hook)(c)
	}
	s.announceReady(c)
	if hook := s.afterHello.Load(); hook != nil {
		(*hook)(c)
	}
	// Replay queued frames before the read loop may dispatch newer ones,
	// so requests start in the order they were sent.
	for _, f := range c.pending {
		c.dispatchFrame(f.mt, f.data)
	}
	c.pending = nil
	c.state = stateReady
	c.mu.Unlock()
	s.log.Debugf("conn %s (%s): %s %s/%s connected, scopes %v", c.id, c.ip, sess.role, sess.client.ID, sess.client.Mode, sess.scopes)
}

func deviceRequired() *protocol.ErrorShape {
	return protocol.NewError(protocol.ErrNotPaired, "device identity required",
		map[string]any{"code": protocol.DetailDeviceIdentityRequired})
}

// helloOK builds the hello-ok payload with every required field (§3.3).
func (s *Server) helloOK(c *conn, sess *session) protocol.HelloOK {
	methods := tools.Methods()
	if methods == nil {
		methods = []string{}
	}
	snap := protocol.Snapshot{
		Presence:     s.presenceRaw(),
		Health:       s.healthJSON(),
		StateVersion: s.stateVersion(),
		UptimeMs:     s.uptimeMs(),
		SessionDefaults: &protocol.SessionDefaults{
			DefaultAgentID: defaultAgentID(s.Config()), MainKey: "main",
			MainSessionKey: "agent:" + defaultAgentID(s.Config()) + ":main", Scope: "per-sender",
		},
		AuthMode: s.auth.Load().mode,
	}
	if protocol.ScopeSatisfied(sess.scopes, protocol.ScopeAdmin) {
		snap.ConfigPath, snap.StateDir = s.paths.ConfigPath, s.paths.StateDir
	}
	return protocol.HelloOK{
		Type:     "hello-ok",
		Protocol: sess.protocol,
		Server:   protocol.ServerInfo{Version: CompatibleVersion, BuildID: buildID(s.opts.Version), ConnID: c.id, BootID: s.bootID},
		Features: protocol.Features{Methods: methods, Events: protocol.Events, Capabilities: capabilities()},
		Snapshot: snap,
		Auth: protocol.HelloAuth{Method: sess.authMethod, Role: sess.role, Scopes: sess.scopes,
			DeviceToken: sess.deviceToken, IssuedAtMs: sess.issuedAtMs},
		Policy: protocol.Policy{
			MaxPayload:       protocol.MaxPayload,
			MaxBufferedBytes: s.opts.MaxBufferedBytes,
			TickIntervalMs:   s.opts.TickInterval.Milliseconds(),
		},
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return append([]string{}, s...)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// CompatibleVersion is the original OpenClaw release whose protocol and
// method semantics this gateway implements. hello-ok.server.version carries
// it, because that is where the original CLI compares versions (`gateway
// status` warns on a mismatch); this build's own version goes in
// server.buildId and in `status`, presence and `openclaw version`.
const CompatibleVersion = "2026.9.6"

// buildID is this build's version for hello-ok.server.buildId (1..96 chars).
func buildID(v string) string {
	if len(v) > 96 {
		v = v[:96]
	}
	return v
}

// capabilityMethods maps each server capability (§3.3) we may advertise
// to the methods that must be served, with the original's semantics, for
// it to be true. Only those whose methods are all registered are sent: the
// original CLI refuses or changes behaviour on these strings.
var capabilityMethods = map[string][]string{
	// `openclaw models list` requires it before it sends models.list.
	"published-model-catalog": {"models.list"},
}

// capabilities lists the advertised server capabilities, sorted.
func capabilities() []string {
	out := []string{}
	for cp, methods := range capabilityMethods {
		ok := true
		for _, m := range methods {
			ok = ok && tools.ByMethod(m) != nil
		}
		if ok {
			out = append(out, cp)
		}
	}
	slices.Sort(out)
	return out
}
