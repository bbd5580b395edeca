package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// maxUnauthorizedRole is how many consecutive "unauthorized role" answers a
// socket gets before it is closed (§2.4).
const maxUnauthorizedRole = 10

// dispatchFrame decodes a post-auth frame and runs it on its own goroutine.
// It blocks while the connection already has MaxInflightPerConn requests
// running, which pushes back on the client through TCP.
func (c *conn) dispatchFrame(mt int, data []byte) {
	if mt != websocket.TextMessage {
		c.sendResponse(errorResponse("invalid", protocol.NewError(protocol.ErrInvalidRequest,
			"invalid request frame: binary frames are not supported", nil)))
		return
	}
	req, err := protocol.DecodeRequest(data)
	if err != nil {
		id := "invalid"
		if req != nil && req.ID != "" {
			id = req.ID
		}
		c.sendResponse(errorResponse(id, protocol.NewError(protocol.ErrInvalidRequest, err.Error(), nil)))
		return
	}
	select {
	case c.sem <- struct{}{}:
	case <-c.ctx.Done():
		return
	}
	c.reqWG.Add(1)
	c.s.inflight.Add(1)
	go func() {
		released := false // the deferred path frees the slot before waiting for its final result
		defer func() {
			c.s.inflight.Add(-1)
			if !released {
				<-c.sem
			}
			c.reqWG.Done()
		}()
		defer func() {
			if r := recover(); r != nil { // a bug outside the handler: answer, don't crash
				c.s.log.Warnf("panic dispatching %s: %v\n%s", req.Method, r, debug.Stack())
				c.sendResponse(errorResponse(req.ID, retryable(protocol.NewError(protocol.ErrUnavailable, req.Method+" failed: internal error", nil))))
			}
		}()
		start := time.Now()
		var res *protocol.Response
		res, released = c.s.handleRequest(c.ctx, c, req)
		c.logRequest(req, start, res)
		if res != nil {
			c.sendResponse(res)
		}
		c.runAfterReply(req.ID) // device_disconnect.go
	}()
}

// handleRequest runs one request through the registry's one door and
// returns the response to send last. An action that answers "accepted"
// (tools.Deferred) gets that response sent at once and its final result
// returned (§2.2 expectFinal: two responses on one id); the connection's
// request slot is freed first (released), since the wait may be long. With
// an idempotency key the final response is what a repeat gets.
func (s *Server) handleRequest(ctx context.Context, c *conn, req *protocol.Request) (res *protocol.Response, released bool) {
	if s.stopping.Load() {
		return errorResponse(req.ID, retryable(protocol.NewError(protocol.ErrUnavailable, "gateway is shutting down", nil))), false
	}
	var roleDenied bool
	if key := idempotencyKey(req.Params); key == "" {
		res, roleDenied, released = s.runRequest(ctx, c, req)
	} else {
		res = s.dedupe.run(ctx, dedupeScope(c.id, c.sess), req, key, func() *protocol.Response {
			r, denied, rel := s.runRequest(ctx, c, req)
			roleDenied, released = denied, rel
			return r
		})
	}
	if !roleDenied {
		c.unauthRole.Store(0)
	} else if c.unauthRole.Add(1) > maxUnauthorizedRole {
		c.sendResponse(res)
		c.closeWith(protocol.ClosePolicyViolation, protocol.ReasonRepeatedUnauth)
		return nil, released
	}
	return res, released
}

// runRequest invokes the request; for a deferred action it sends the
// accepted response, frees the request slot and waits for the final one.
func (s *Server) runRequest(ctx context.Context, c *conn, req *protocol.Request) (res *protocol.Response, roleDenied, released bool) {
	res, final, roleDenied := s.invoke(ctx, c, req)
	if final == nil {
		return res, roleDenied, false
	}
	c.sendResponse(res)
	<-c.sem
	return s.finish(ctx, c, req, final), roleDenied, true
}

// invoke runs the request through tools.InvokeDeferred: lookup, the
// action's own role and scope rules, schema, policy, handler. A panicking
// handler becomes UNAVAILABLE instead of taking the gateway down.
func (s *Server) invoke(ctx context.Context, c *conn, req *protocol.Request) (res *protocol.Response, final tools.Final, roleDenied bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Warnf("panic in %s: %v\n%s", req.Method, r, debug.Stack())
			res = errorResponse(req.ID, retryable(protocol.NewError(protocol.ErrUnavailable,
				fmt.Sprintf("%s failed: internal error", req.Method), nil)))
			final = nil
		}
	}()
	env := s.env(c.sess)
	env.ConnID = c.id                      // services answer this connection (tools.Conns)
	env.Sink = &connSink{c: c, id: req.ID} // progress and events to this caller (sink.go)
	out, final, err := tools.InvokeDeferred(ctx, env, tools.Call{Method: req.Method, Args: req.Params})
	if err != nil {
		if ctx.Err() != nil && c.closing.Load() {
			return nil, nil, false // the client is gone: nobody to answer
		}
		te := failure.AsError(err)
		return errorResponse(req.ID, wireError(err)), nil, te.Code == failure.CodeUnauthorizedRole
	}
	return &protocol.Response{Type: protocol.TypeRes, ID: req.ID, OK: true, Payload: out}, final, false
}

// finish runs a deferred action's final step and returns the second
// response for the same request id (nil when the client is gone).
func (s *Server) finish(ctx context.Context, c *conn, req *protocol.Request, final tools.Final) (res *protocol.Response) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Warnf("panic in %s (final): %v\n%s", req.Method, r, debug.Stack())
			res = errorResponse(req.ID, retryable(protocol.NewError(protocol.ErrUnavailable,
				fmt.Sprintf("%s failed: internal error", req.Method), nil)))
		}
	}()
	out, err := final(ctx)
	if err != nil {
		if ctx.Err() != nil && c.closing.Load() {
			return nil
		}
		return errorResponse(req.ID, wireError(err))
	}
	return &protocol.Response{Type: protocol.TypeRes, ID: req.ID, OK: true, Payload: out}
}

// env is what a handler sees for this caller.
func (s *Server) env(sess *session) *tools.Env {
	env := s.baseEnv()
	env.Subject = connSubject(sess)
	return &env
}

// connSubject is the caller a connection is: a node host or an operator,
// with the role and scopes it authenticated with (tools/caller.go).
func connSubject(sess *session) tools.Subject {
	kind := tools.CallerOperator
	if sess.role == protocol.RoleNode {
		kind = tools.CallerNode
	}
	return tools.Subject{Kind: kind, Role: sess.role, Scopes: sess.scopes}
}

// wireError maps a typed error onto the wire's ErrorShape: the code is
// translated, the message and details travel unchanged.
func wireError(err error) *protocol.ErrorShape {
	var te *tools.Error
	if !errors.As(err, &te) {
		return retryable(protocol.NewError(protocol.ErrUnavailable, err.Error(), nil))
	}
	msg := te.Message
	if msg == "" {
		msg = strings.ToLower(te.Code)
	}
	switch te.Code {
	case protocol.ErrInvalidRequest, protocol.ErrForbidden, protocol.ErrUnavailable,
		protocol.ErrNotPaired, protocol.ErrApprovalNotFound:
		return protocol.NewError(te.Code, msg, te.Details)
	case failure.CodeInvalidParams, failure.CodeUsage, failure.CodeUnknownTool, failure.CodeNotFound,
		failure.CodeUnknownMethod, failure.CodeUnauthorizedRole:
		return protocol.NewError(protocol.ErrInvalidRequest, msg, te.Details)
	case failure.CodeDenied, failure.CodeAuth, failure.CodeMissingScope:
		return protocol.NewError(protocol.ErrForbidden, msg, te.Details)
	case failure.CodeUnreachable, failure.CodeTimeout, failure.CodeInterrupted:
		return retryable(protocol.NewError(protocol.ErrUnavailable, msg, te.Details))
	}
	return protocol.NewError(protocol.ErrUnavailable, msg, te.Details)
}

func retryable(e *protocol.ErrorShape) *protocol.ErrorShape {
	t := true
	e.Retryable = &t
	return e
}

func errorResponse(id string, e *protocol.ErrorShape) *protocol.Response {
	return &protocol.Response{Type: protocol.TypeRes, ID: id, OK: false, Error: e}
}

// idempotencyKey reads params.idempotencyKey (a non-empty string) or "".
func idempotencyKey(params json.RawMessage) string {
	if len(params) == 0 || params[0] != '{' {
		return ""
	}
	v := gjson.GetBytes(params, "idempotencyKey")
	if v.Type != gjson.String {
		return ""
	}
	return v.Str
}
