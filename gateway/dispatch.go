package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

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
		defer func() {
			c.s.inflight.Add(-1)
			<-c.sem
			c.reqWG.Done()
		}()
		defer func() {
			if r := recover(); r != nil { // a bug outside the handler: answer, don't crash
				c.s.log.Warnf("panic dispatching %s: %v\n%s", req.Method, r, debug.Stack())
				c.sendResponse(errorResponse(req.ID, retryable(protocol.NewError(protocol.ErrUnavailable, req.Method+" failed: internal error", nil))))
			}
		}()
		res := c.s.handleRequest(c.ctx, c, req)
		if res != nil {
			c.sendResponse(res)
		}
	}()
}

// handleRequest authorizes and runs one request and returns its response.
func (s *Server) handleRequest(ctx context.Context, c *conn, req *protocol.Request) *protocol.Response {
	sess := c.sess
	if s.stopping.Load() {
		return errorResponse(req.ID, retryable(protocol.NewError(protocol.ErrUnavailable, "gateway is shutting down", nil)))
	}
	action := tools.ByMethod(req.Method)
	if e := authorize(sess, req.Method, action); e != nil {
		if strings.HasPrefix(e.Message, "unauthorized role: ") {
			if c.unauthRole.Add(1) > maxUnauthorizedRole {
				c.sendResponse(errorResponse(req.ID, e))
				c.closeWith(protocol.ClosePolicyViolation, protocol.ReasonRepeatedUnauth)
				return nil
			}
		} else {
			c.unauthRole.Store(0)
		}
		return errorResponse(req.ID, e)
	}
	c.unauthRole.Store(0)
	if action == nil {
		return errorResponse(req.ID, protocol.NewError(protocol.ErrInvalidRequest, "unknown method: "+req.Method, nil))
	}

	key := idempotencyKey(req.Params)
	if key == "" {
		return s.invoke(ctx, c, sess, action, req)
	}
	return s.dedupe.run(ctx, dedupeScope(c.id, sess), req, key, func() *protocol.Response {
		return s.invoke(ctx, c, sess, action, req)
	})
}

// authorize applies §4.5: health for everyone; node-only methods need role
// node and everything else role operator; operators need the method's scope
// (admin when unclassified). It runs before the unknown-method check.
func authorize(sess *session, method string, action *tools.Action) *protocol.ErrorShape {
	if method == "health" {
		return nil
	}
	nodeOnly := protocol.NodeOnlyMethods[method]
	if nodeOnly != (sess.role == protocol.RoleNode) {
		return protocol.NewError(protocol.ErrInvalidRequest, "unauthorized role: "+sess.role, nil)
	}
	if sess.role == protocol.RoleNode {
		return nil
	}
	required := protocol.ScopeAdmin
	if action != nil && action.Scope != "" {
		required = action.Scope
	}
	if protocol.ScopeSatisfied(sess.scopes, required) {
		return nil
	}
	return protocol.NewError(protocol.ErrForbidden, "missing scope: "+required, map[string]any{
		"code":           protocol.DetailMissingScope,
		"missingScope":   required,
		"requiredScopes": []string{required},
	})
}

// invoke runs the action through the registry's single door. A panicking
// handler becomes UNAVAILABLE instead of taking the gateway down.
func (s *Server) invoke(ctx context.Context, c *conn, sess *session, a *tools.Action, req *protocol.Request) (res *protocol.Response) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Warnf("panic in %s: %v\n%s", req.Method, r, debug.Stack())
			res = errorResponse(req.ID, retryable(protocol.NewError(protocol.ErrUnavailable,
				fmt.Sprintf("%s failed: internal error", req.Method), nil)))
		}
	}()
	env := s.env(sess)
	out, err := a.Invoke(ctx, env, req.Params)
	if err != nil {
		if ctx.Err() != nil && c.closing.Load() {
			return nil // the client is gone: nobody to answer
		}
		return errorResponse(req.ID, wireError(req.Method, a, err))
	}
	return &protocol.Response{Type: protocol.TypeRes, ID: req.ID, OK: true, Payload: out}
}

// env is what a handler sees for this caller.
func (s *Server) env(sess *session) *tools.Env {
	env := s.baseEnv()
	env.Subject = tools.Subject{Role: sess.role, Scopes: sess.scopes}
	return &env
}

// wireCodes are the protocol's top-level codes a handler may return as-is.
var wireCodes = map[string]bool{
	protocol.ErrInvalidRequest: true, protocol.ErrForbidden: true, protocol.ErrUnavailable: true,
	protocol.ErrNotPaired: true, protocol.ErrApprovalNotFound: true,
}

// wireError maps a registry error onto the wire's ErrorShape.
func wireError(method string, a *tools.Action, err error) *protocol.ErrorShape {
	var te *tools.Error
	if !errors.As(err, &te) {
		return retryable(protocol.NewError(protocol.ErrUnavailable, err.Error(), nil))
	}
	msg := te.Message
	if msg == "" {
		msg = strings.ToLower(te.Code)
	}
	switch {
	case wireCodes[te.Code]:
		return protocol.NewError(te.Code, msg, te.Details)
	case te.Code == tools.CodeInvalidParams:
		// tools says "invalid <action id> params"; the wire names the method.
		if id := a.ID(); id != method {
			msg = strings.Replace(msg, "invalid "+id+" params", "invalid "+method+" params", 1)
		}
		return protocol.NewError(protocol.ErrInvalidRequest, msg, te.Details)
	case te.Code == tools.CodeUsage || te.Code == tools.CodeUnknownTool || te.Code == tools.CodeNotFound:
		return protocol.NewError(protocol.ErrInvalidRequest, msg, te.Details)
	case te.Code == tools.CodeDenied || te.Code == tools.CodeAuth:
		return protocol.NewError(protocol.ErrForbidden, msg, te.Details)
	case te.Code == tools.CodeUnreachable || te.Code == tools.CodeTimeout || te.Code == tools.CodeInterrupted:
		return retryable(protocol.NewError(protocol.ErrUnavailable, msg, te.Details))
	default:
		return protocol.NewError(protocol.ErrUnavailable, msg, te.Details)
	}
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
