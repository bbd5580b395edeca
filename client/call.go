package client

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
)

// CallOptions adjust one call.
type CallOptions struct {
	// ExpectFinal waits past a first ok response whose payload.status is
	// "accepted" (long-running methods such as agent) for the final response
	// with the same id (§2.2).
	ExpectFinal bool
	// OnAccepted receives the "accepted" payload when ExpectFinal is set.
	OnAccepted func(payload json.RawMessage)
}

// Call sends one request and waits for its response. params may be nil
// (sent as {}), a json.RawMessage or []byte (sent as is), or any value
// encoding/json can marshal. It returns the response payload (nil when the
// gateway sent none).
//
// An ok:false response returns a *CallError carrying the gateway's code,
// message and details; errors.As(err, &toolErr) (or failure.AsError) maps it to
// the CLI's *failure.Error. A connection that ends first returns the
// connection's Err (`gateway closed (<code>): <reason>`); ctx expiring returns
// CodeTimeout, ctx cancelled CodeInterrupted. There is no implicit per-call
// timeout: bound ctx. Calls are not replayed on another connection.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.CallWith(ctx, method, params, CallOptions{})
}

// CallWith is Call with options.
func (c *Conn) CallWith(ctx context.Context, method string, params any, o CallOptions) (json.RawMessage, error) {
	raw, err := encodeParams(params)
	if err != nil {
		return nil, failure.Errorf(failure.CodeInvalidParams, "%s params: %w", method, err)
	}
	id := c.nextID()
	frame, err := json.Marshal(protocol.Request{Type: protocol.TypeReq, ID: id, Method: method, Params: raw})
	if err != nil {
		return nil, failure.Errorf(failure.CodeInvalidParams, "%s params: %w", method, err)
	}
	if int64(len(frame)) > c.maxPayload {
		return nil, failure.Errorf(failure.CodeInvalidParams, "%s request is %d bytes, over the gateway's maxPayload of %d bytes",
			method, len(frame), c.maxPayload)
	}

	p := &pendingCall{ch: make(chan *inFrame, 4), expectFinal: o.ExpectFinal}
	c.mu.Lock()
	if c.closing || c.isDone() {
		err := c.endErr()
		c.mu.Unlock()
		return nil, err
	}
	c.pending[id] = p
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()

	if err := c.write(frame); err != nil {
		<-c.done
		return nil, c.Err()
	}
	for {
		var res *inFrame
		select {
		case res = <-p.ch:
		case <-c.done:
			select {
			case res = <-p.ch: // answered just before the end
			default:
				return nil, c.Err()
			}
		case <-ctx.Done():
			return nil, callCtxError(ctx, method)
		}
		if !res.OK {
			return nil, newCallError(method, res.Error)
		}
		if o.ExpectFinal && isAccepted(res.Payload) {
			if o.OnAccepted != nil {
				o.OnAccepted(res.Payload)
			}
			continue
		}
		return res.Payload, nil
	}
}

func (c *Conn) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// endErr is the error for a call on a closing or closed connection; c.mu held.
func (c *Conn) endErr() error {
	if c.err != nil {
		return c.err
	}
	return failure.Errorf(failure.CodeFailed, "%w", ErrClosed)
}

func callCtxError(ctx context.Context, method string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return failure.Errorf(failure.CodeTimeout, "gateway request %s timed out", method)
	}
	return failure.Errorf(failure.CodeInterrupted, "gateway request %s interrupted: %w", method, ctx.Err())
}

func encodeParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		if len(p) == 0 {
			return json.RawMessage("{}"), nil
		}
		return p, nil // validated by json.Marshal of the frame
	case []byte:
		return encodeParams(json.RawMessage(p))
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" { // typed nil pointer or map
		return json.RawMessage("{}"), nil
	}
	return b, nil
}

func isAccepted(payload json.RawMessage) bool {
	var s struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(payload, &s) == nil && s.Status == "accepted"
}
