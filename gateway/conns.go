package gateway

import (
	"encoding/json"
	"fmt"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// connSender is the tools.Conns view of a server: a service sends to one
// connection by id and learns when it closes (node.invoke goes to one node).
type connSender struct{ s *Server }

// closedChan is what Closed returns for a connection that is already gone.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (cs connSender) Send(connID, event string, payload any) error {
	s := cs.s
	s.mu.Lock()
	c := s.byID[connID]
	_, ready := s.ready[c]
	s.mu.Unlock()
	if c == nil || !ready {
		return tools.Errorf(tools.CodeNotFound, "no connected client with connection id %s", connID)
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("send %s to %s: %w", event, connID, err)
	}
	frame, err := json.Marshal(protocol.Event{Type: protocol.TypeEvent, Event: event, Payload: b})
	if err != nil {
		return fmt.Errorf("send %s to %s: %w", event, connID, err)
	}
	if err := c.send(frame, sendClose); err != nil {
		return tools.Errorf(tools.CodeNotFound, "connection %s is closing", connID)
	}
	return nil
}

func (cs connSender) Closed(connID string) <-chan struct{} {
	s := cs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.byID[connID]; c != nil {
		return c.gone
	}
	return closedChan
}

func (cs connSender) Close(connID string, code int, reason string) {
	s := cs.s
	s.mu.Lock()
	c := s.byID[connID]
	s.mu.Unlock()
	if c != nil {
		c.closeWith(code, reason)
	}
}
