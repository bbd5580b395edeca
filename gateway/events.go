package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
)

// Broadcast sends an event to every authenticated connection allowed to
// see it (§6.2 scope guards; unknown events are not delivered). Other
// packages reach it through tools.Env.Server.
func (s *Server) Broadcast(event string, payload any) error {
	if _, known := protocol.EventScope(event); !known {
		return fmt.Errorf("broadcast %s: event has no scope guard, not delivered", event)
	}
	return s.broadcast(event, payload, nil, false)
}

// broadcast encodes payload once and queues it on every eligible ready
// connection with that connection's next seq. With dropIfSlow a full queue
// skips the frame (the seq is still used, so clients see the gap).
func (s *Server) broadcast(event string, payload any, sv *protocol.StateVersion, dropIfSlow bool) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("broadcast %s: %w", event, err)
	}
	scope, known := protocol.EventScope(event)
	if !known {
		return nil
	}
	var svJSON []byte
	if sv != nil {
		svJSON, _ = json.Marshal(sv)
	}
	for _, c := range s.readyConns() {
		sess := c.sess
		if scope != "" && (sess.role != protocol.RoleOperator || !protocol.ScopeSatisfied(sess.scopes, scope)) {
			continue
		}
		mode := sendClose
		if dropIfSlow {
			mode = sendDrop
		}
		_ = c.send(eventFrame(event, b, c.seq.Add(1), svJSON), mode)
	}
	return nil
}

// eventFrame assembles a broadcast frame around an already encoded
// payload: re-marshalling a large presence list per connection is what
// made bursts of connects quadratic.
func eventFrame(event string, payload []byte, seq uint64, sv []byte) []byte {
	name, _ := json.Marshal(event)
	out := make([]byte, 0, len(payload)+len(name)+len(sv)+64)
	out = append(out, `{"type":"event","event":`...)
	out = append(out, name...)
	out = append(out, `,"payload":`...)
	out = append(out, payload...)
	out = append(out, `,"seq":`...)
	out = strconv.AppendUint(out, seq, 10)
	if sv != nil {
		out = append(out, `,"stateVersion":`...)
		out = append(out, sv...)
	}
	return append(out, '}')
}

// enqueueHello queues a connect's hello-ok and makes the connection ready
// (listed, a broadcast target) in one step under s.mu: a broadcast that
// finds it ready queues its event after hello-ok, and anything that reads
// the ready set once hello-ok can have been read finds it there.
func (s *Server) enqueueHello(c *conn, res *protocol.Response) {
	frame := c.responseFrame(res)
	s.mu.Lock()
	queued := c.tryQueue(frame)
	s.ready[c] = struct{}{}
	s.mu.Unlock()
	if !queued {
		// The output budget is full (not at a connect in practice): wait
		// for room outside s.mu. The connection is ready already, so an
		// event may precede hello-ok here.
		_ = c.send(frame, sendWait)
	}
}

// announceReady follows enqueueHello: the address's pre-auth slot is free
// and presence changed.
func (s *Server) announceReady(c *conn) {
	s.releasePreauth(c.ip)
	s.broadcastPresence()
}

// forget drops a finished connection; presence changes if it was ready.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if s.byID[c.id] == c {
		delete(s.byID, c.id)
	}
	_, wasReady := s.ready[c]
	delete(s.ready, c)
	s.mu.Unlock()
	close(c.gone)
	if !wasReady {
		s.releasePreauth(c.ip)
		return
	}
	if !s.stopping.Load() {
		s.broadcastPresence()
	}
}

func (s *Server) stateVersion() protocol.StateVersion {
	return protocol.StateVersion{Presence: s.presenceVer.Load(), Health: s.healthVer.Load()}
}

// presenceCoalesce batches presence broadcasts: a burst of connects or
// disconnects yields one snapshot instead of one per socket per socket.
const presenceCoalesce = 250 * time.Millisecond

// broadcastPresence schedules one presence snapshot for every change seen
// within presenceCoalesce.
func (s *Server) broadcastPresence() {
	if !s.presencePending.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(presenceCoalesce, func() {
		s.presencePending.Store(false)
		if s.stopping.Load() {
			return
		}
		s.presenceVer.Add(1)
		sv := s.stateVersion()
		_ = s.broadcast(protocol.EventPresence, protocol.PresencePayload{Presence: s.presence()}, &sv, true)
	})
}

// presence lists the gateway itself and one row per connected client,
// merging the operator and node sockets of one device.
func (s *Server) presence() []protocol.PresenceEntry {
	host, _ := os.Hostname()
	now := nowMs()
	ip := s.selfIP()
	self := protocol.PresenceEntry{
		Host: host, IP: ip, Version: s.opts.Version, Platform: runtime.GOOS, DeviceFamily: deviceFamily(),
		Mode: "gateway", Reason: "self", InstanceID: s.bootID, TS: now, OnlineSince: s.started.UnixMilli(),
		Text: fmt.Sprintf("Gateway: %s (%s) · app %s · mode gateway · reason self", host, ip, s.opts.Version),
	}
	out := []protocol.PresenceEntry{self}
	byKey := map[string]int{}
	conns := s.readyConns()
	sort.Slice(conns, func(i, j int) bool { return conns[i].sess.connectedAt < conns[j].sess.connectedAt })
	for _, c := range conns {
		sess := c.sess
		key := sess.deviceID
		if key == "" {
			key = "conn:" + c.id
		}
		if i, ok := byKey[key]; ok {
			e := &out[i]
			if !containsStr(e.Roles, sess.role) {
				e.Roles = append(e.Roles, sess.role)
			}
			continue
		}
		name := sess.client.DisplayName
		if name == "" {
			name = sess.client.ID
		}
		byKey[key] = len(out)
		out = append(out, protocol.PresenceEntry{
			Host: name, ClientID: sess.client.ID, IP: c.ip, Version: sess.client.Version,
			Platform: sess.client.Platform, DeviceFamily: sess.client.DeviceFamily,
			ModelIdentifier: sess.client.ModelIdentifier, TimeZone: sess.client.TimeZone,
			Mode: sess.client.Mode, Reason: "connect", TS: sess.connectedAt, OnlineSince: sess.connectedAt,
			DeviceID: sess.deviceID, Roles: []string{sess.role}, Scopes: sess.scopes,
			InstanceID: sess.client.InstanceID,
			Text:       fmt.Sprintf("%s: %s · app %s · mode %s · reason connect", sess.client.ID, c.ip, sess.client.Version, sess.client.Mode),
		})
	}
	return out
}

// presenceRaw is presence for the hello snapshot's []json.RawMessage.
func (s *Server) presenceRaw() []json.RawMessage {
	entries := s.presence()
	out := make([]json.RawMessage, 0, len(entries))
	for _, e := range entries {
		if b, err := json.Marshal(e); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func containsStr(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// tickLoop emits tick to every authenticated connection; clients close
// after two silent intervals (§6.4), so this must never stall.
func (s *Server) tickLoop(ctx context.Context) {
	every(ctx, s.opts.TickInterval, func() {
		_ = s.broadcast(protocol.EventTick, protocol.TickPayload{TS: nowMs()}, nil, true)
	})
}

// healthLoop refreshes the health snapshot for UIs (§6.3: every 60 s).
func (s *Server) healthLoop(ctx context.Context) {
	every(ctx, s.opts.HealthInterval, func() {
		s.healthVer.Add(1)
		sv := s.stateVersion()
		_ = s.broadcast(protocol.EventHealth, s.healthSnapshot(false), &sv, true)
	})
}

// every runs fn each interval until ctx ends: the gateway's periodic loops.
func every(ctx context.Context, interval time.Duration, fn func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}
