package nodes

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// nodeError is a node's {code, message} (node.invoke.result error).
type nodeError struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// invokeOutcome is how an invocation ended.
type invokeOutcome struct {
	ok           bool
	payload      json.RawMessage // the node's payload, when it sent one instead of payloadJSON
	payloadJSON  *string
	err          *nodeError
	disconnected bool
}

// invocation is one node.invoke waiting for its node.invoke.result.
type invocation struct {
	id, nodeID, connID, command string
	runID                       string             // system.run's runId (exec.* events match it)
	done                        chan invokeOutcome // buffered 1
	once                        sync.Once
	progress                    func(seq int64, chunk string)
}

func (inv *invocation) finish(o invokeOutcome) {
	inv.once.Do(func() { inv.done <- o })
}

// invokeRequest is what the gateway asks of a node.
type invokeRequest struct {
	nodeID, command string
	params          any // nil: paramsJSON null
	hasParams       bool
	timeout         time.Duration
	idempotencyKey  string
	sessionKey      string
	progress        func(seq int64, chunk string)
}

// dispatch sends node.invoke.request to the node's connection and waits for
// its result, the timeout, the node's disconnect (at once) or ctx. A node
// that answers after the timeout is told ignored:true. dispatched reports
// whether the request reached the node's connection.
func (h *hub) dispatch(ctx context.Context, r invokeRequest) (out invokeOutcome, dispatched bool) {
	h.reap()
	h.mu.Lock()
	ln := h.live[r.nodeID]
	h.mu.Unlock()
	if ln == nil {
		return invokeOutcome{err: &nodeError{Code: "NOT_CONNECTED", Message: "node not connected"}}, false
	}
	timeout := r.timeout
	if timeout <= 0 {
		timeout = defaultInvoke
	}
	timeout = min(timeout, maxInvoke)
	inv := &invocation{id: uuid.NewString(), nodeID: r.nodeID, connID: ln.info.ConnID, command: r.command,
		done: make(chan invokeOutcome, 1), progress: r.progress}
	if m, ok := r.params.(map[string]any); ok && r.command == "system.run" {
		inv.runID, _ = m["runId"].(string)
	}
	var paramsJSON *string
	if r.hasParams {
		b, err := json.Marshal(r.params)
		if err != nil {
			return invokeOutcome{err: &nodeError{Code: "INVALID_REQUEST", Message: "params are not JSON: " + err.Error()}}, false
		}
		s := string(b)
		paramsJSON = &s
	}
	req := map[string]any{"id": inv.id, "nodeId": r.nodeID, "command": r.command, "paramsJSON": paramsJSON,
		"timeoutMs": timeout.Milliseconds()}
	if r.idempotencyKey != "" {
		req["idempotencyKey"] = r.idempotencyKey
	}
	if r.sessionKey != "" {
		req["sessionKey"] = r.sessionKey
	}
	h.mu.Lock()
	if h.byConn[inv.connID] != ln { // it went while we built the request
		h.mu.Unlock()
		return invokeOutcome{err: &nodeError{Code: "NOT_CONNECTED", Message: "node not connected"}}, false
	}
	h.invokes[inv.id] = inv
	h.mu.Unlock()
	drop := func() {
		h.mu.Lock()
		delete(h.invokes, inv.id)
		h.mu.Unlock()
	}
	if err := h.conns.Send(inv.connID, "node.invoke.request", req); err != nil {
		drop()
		return invokeOutcome{err: &nodeError{Code: "UNAVAILABLE", Message: "failed to send invoke to node"}}, false
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case out = <-inv.done:
		return out, true
	case <-t.C:
		drop()
		h.cancelOnNode(inv)
		return invokeOutcome{err: &nodeError{Code: "TIMEOUT", Message: "node invoke timed out"}}, true
	case <-ctx.Done():
		drop()
		h.cancelOnNode(inv)
		return invokeOutcome{err: &nodeError{Code: "ABORTED", Message: "node invoke cancelled"}}, true
	case <-ln.gone:
		// Forget the node before answering, not whenever the watcher
		// goroutine gets to it: a caller told "disconnected" that invokes
		// again must hear "not connected", not a failed send to the
		// closed socket.
		h.disconnected(ln)
		drop()
		// The result may have raced the close: take it if it is there.
		select {
		case out = <-inv.done:
			return out, true
		default:
		}
		return invokeOutcome{disconnected: true, err: &nodeError{Code: "NOT_CONNECTED", Message: "node disconnected before it answered"}}, true
	}
}

// cancelOnNode tells the node to stop (node.invoke.cancel); best effort.
func (h *hub) cancelOnNode(inv *invocation) {
	_ = h.conns.Send(inv.connID, "node.invoke.cancel", map[string]any{"invokeId": inv.id, "nodeId": inv.nodeID})
}

// result delivers a node.invoke.result; false when nobody waits for it
// (late, unknown, or from another connection).
func (h *hub) result(connID, id string, o invokeOutcome) bool {
	h.mu.Lock()
	inv := h.invokes[id]
	if inv == nil || inv.connID != connID {
		h.mu.Unlock()
		return false
	}
	delete(h.invokes, id)
	h.mu.Unlock()
	inv.finish(o)
	return true
}

// progressed delivers a node.invoke.progress chunk; false when nobody waits.
func (h *hub) progressed(connID, id string, seq int64, chunk string) bool {
	h.mu.Lock()
	inv := h.invokes[id]
	h.mu.Unlock()
	if inv == nil || inv.connID != connID {
		return false
	}
	if inv.progress != nil {
		inv.progress(seq, chunk)
	}
	return true
}

// Sizes of node.invoke's answer. The original answers every result twice,
// as payload (parsed) and payloadJSON (the node's text): a node's legal
// 24 MB answer became a 48 MB frame that no client reads (1006) and held
// the gateway's memory. Small answers keep the original's two copies (its
// clients may read either); from bothCopiesMax on the answer carries one
// copy, payload, which is what the original CLI and our families read, and
// payloadJSON is null. An answer that cannot fit one frame is refused.
const (
	bothCopiesMax = 64 << 10
	// frameRoom is what the response frame adds around the answer (type,
	// request id, ok, the answer's own keys), generously.
	frameRoom = 4 << 10
)

// invokeReply is node.invoke's result, in the original's key order.
type invokeReply struct {
	OK          bool            `json:"ok"`
	NodeID      string          `json:"nodeId"`
	Command     string          `json:"command"`
	Payload     json.RawMessage `json:"payload"`
	PayloadJSON *string         `json:"payloadJSON"`
}

// invokeAnswer is node.invoke's result: {ok, nodeId, command, payload,
// payloadJSON} (payload is payloadJSON parsed; see bothCopiesMax), or an
// error when it would not fit a gateway frame.
func invokeAnswer(nodeID, command string, o invokeOutcome) (*invokeReply, error) {
	r := &invokeReply{OK: true, NodeID: nodeID, Command: command, Payload: json.RawMessage("null")}
	switch {
	case o.payloadJSON != nil && strings.TrimSpace(*o.payloadJSON) != "":
		if json.Valid([]byte(*o.payloadJSON)) {
			r.Payload = json.RawMessage(*o.payloadJSON)
		} else {
			b, _ := json.Marshal(map[string]string{"payloadJSON": *o.payloadJSON})
			r.Payload = b
		}
	case len(o.payload) > 0:
		r.Payload = o.payload
	}
	size := len(r.Payload) + len(nodeID) + len(command)
	if size+frameRoom > protocol.MaxPayload {
		return nil, tools.Errorf(protocol.ErrUnavailable,
			"PAYLOAD_TOO_LARGE: node %s answered %s with %d bytes, over the gateway's frame limit of %d bytes (maxPayload): ask the node for less",
			short(nodeID), command, size, protocol.MaxPayload-frameRoom).WithDetails(map[string]any{
			"nodeError":             &nodeError{Code: "PAYLOAD_TOO_LARGE", Message: "answer over the gateway's frame limit"},
			"nodeCommandDispatched": true, "bytes": size, "maxBytes": protocol.MaxPayload - frameRoom})
	}
	if o.payloadJSON != nil && len(*o.payloadJSON) <= bothCopiesMax {
		r.PayloadJSON = o.payloadJSON
	}
	return r, nil
}

// invokeError is the wire error of a failed invoke (UNAVAILABLE
// "<CODE>: <message>" with details.nodeError), as the original's.
func invokeError(o invokeOutcome, dispatched bool) error {
	ne := o.err
	if ne == nil {
		ne = &nodeError{}
	}
	msg := strings.TrimSpace(ne.Message)
	if msg == "" {
		msg = "node invoke failed"
	}
	if ne.Code != "" {
		msg = ne.Code + ": " + msg
	}
	details := map[string]any{"nodeError": ne, "nodeCommandDispatched": dispatched}
	if ne.Code == "NOT_CONNECTED" && !dispatched {
		msg = "node not connected"
		details["code"] = "NOT_CONNECTED"
	}
	return tools.Errorf(protocol.ErrUnavailable, "%s", msg).WithDetails(details)
}
