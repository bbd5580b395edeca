package nodehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// invokeRequest is the node.invoke.request event's payload (§7.2).
type invokeRequest struct {
	ID             string  `json:"id"`
	NodeID         string  `json:"nodeId"`
	Command        string  `json:"command"`
	ParamsJSON     *string `json:"paramsJSON"`
	TimeoutMs      int64   `json:"timeoutMs"`
	IdempotencyKey string  `json:"idempotencyKey"`
	SessionKey     string  `json:"sessionKey"`
}

// nodeError is a failed invocation's {code, message}: the codes the
// original node host answers with (INVALID_REQUEST, UNAVAILABLE,
// SYSTEM_RUN_DENIED, TIMEOUT, ...).
type nodeError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *nodeError) Error() string { return e.Message }

func nodeErrorf(code, format string, args ...any) *nodeError {
	return &nodeError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// defaultInvokeTimeout bounds an invocation that names no timeout (the
// gateway's own default).
const defaultInvokeTimeout = 30 * time.Second

// onEvent receives every gateway event of the live connection.
func (h *Host) onEvent(ev protocol.Event) {
	switch ev.Event {
	case "node.invoke.request":
		var req invokeRequest
		if err := json.Unmarshal(ev.Payload, &req); err != nil || req.ID == "" {
			h.logf("node host: ignoring a malformed node.invoke.request: %s", truncate(string(ev.Payload), 200))
			return
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			h.serveInvoke(req)
		}()
	case "node.invoke.cancel":
		id := gjson.GetBytes(ev.Payload, "invokeId").String()
		if id == "" {
			id = gjson.GetBytes(ev.Payload, "id").String()
		}
		h.mu.Lock()
		cancel := h.invokes[id]
		h.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case "node.pair.resolved":
		if gjson.GetBytes(ev.Payload, "nodeId").String() == h.id.DeviceID {
			h.mu.Lock()
			p := h.pubs
			h.mu.Unlock()
			if p != nil {
				p.retryNow()
			}
		}
	}
}

// serveInvoke runs one invocation and answers it with node.invoke.result.
func (h *Host) serveInvoke(req invokeRequest) {
	timeout := defaultInvokeTimeout
	if req.TimeoutMs > 0 {
		timeout = time.Duration(req.TimeoutMs) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	h.mu.Lock()
	h.invokes[req.ID] = cancel
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.invokes, req.ID)
		h.mu.Unlock()
	}()
	conn := h.waitConn(ctx)
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		h.answer(conn, req, nil, nodeErrorf("TIMEOUT", "node host is busy: invocation timed out waiting to start"))
		return
	}
	payload, nerr := h.dispatch(ctx, req)
	<-h.sem
	h.answer(conn, req, payload, nerr)
}

// waitConn is the connection to answer on: the invocation arrived on it,
// though its event may be delivered a moment before onConnect records it.
func (h *Host) waitConn(ctx context.Context) *client.Conn {
	for i := 0; ; i++ {
		if c := h.current(); c != nil || i >= 100 || ctx.Err() != nil {
			return c
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answer sends node.invoke.result: payloadJSON (a JSON string) on success,
// {ok:false, error:{code, message}} on failure, as the original does.
func (h *Host) answer(conn *client.Conn, req invokeRequest, payload json.RawMessage, nerr *nodeError) {
	if c := h.current(); c != nil {
		conn = c
	}
	if conn == nil {
		return // disconnected: the gateway has failed the invocation already
	}
	res := map[string]any{"id": req.ID, "nodeId": req.NodeID, "ok": nerr == nil}
	if nerr != nil {
		res["error"] = nerr
	} else {
		if len(payload) == 0 {
			payload = json.RawMessage(`null`)
		}
		res["payloadJSON"] = string(payload)
	}
	ctx, cancel := context.WithTimeout(context.Background(), resultTimeout)
	defer cancel()
	if _, err := conn.Call(ctx, "node.invoke.result", res); err != nil {
		h.logf("node host invoke result could not be sent (command=%s, id=%s): %v", req.Command, req.ID, err)
	}
}

// dispatch runs the command through the node host's registry.
func (h *Host) dispatch(ctx context.Context, req invokeRequest) (json.RawMessage, *nodeError) {
	cmd := strings.TrimSpace(req.Command)
	if !h.declared[cmd] {
		return nil, h.notAllowed(cmd)
	}
	params := json.RawMessage(`{}`)
	if req.ParamsJSON != nil && strings.TrimSpace(*req.ParamsJSON) != "" && strings.TrimSpace(*req.ParamsJSON) != "null" {
		params = json.RawMessage(*req.ParamsJSON)
		if !json.Valid(params) {
			return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: paramsJSON malformed JSON")
		}
		if gjson.ParseBytes(params).Type != gjson.JSON || !gjson.ParseBytes(params).IsObject() {
			return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: params must be an object")
		}
	}
	ictx := withInvocation(ctx, &invocation{req: req})
	out, err := h.reg.Invoke(ictx, h.env(req), tools.Call{Method: cmd, Args: params})
	if err != nil {
		return nil, toNodeError(ctx, err)
	}
	return out, nil
}

// notAllowed is the answer for a command this node does not declare, in
// the wording of the original's gateway hint: camera, screen recording,
// location and the like do not exist on a headless host.
func (h *Host) notAllowed(cmd string) *nodeError {
	return nodeErrorf("INVALID_REQUEST", "node command not allowed: the node (platform: %s) does not support %q", nodePlatform(), cmd)
}

// toNodeError maps a handler error onto the node's wire codes.
func toNodeError(ctx context.Context, err error) *nodeError {
	var ne *nodeError
	if errors.As(err, &ne) {
		return ne
	}
	te := failure.AsError(err)
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return nodeErrorf("CANCELLED", "invocation cancelled")
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nodeErrorf("TIMEOUT", "node invoke timed out on the node: %s", te.Message)
	}
	switch te.Code {
	case failure.CodeInvalidParams, failure.CodeUsage:
		return nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: %s", te.Message)
	case failure.CodeTimeout:
		return nodeErrorf("TIMEOUT", "%s", te.Message)
	}
	return nodeErrorf("UNAVAILABLE", "%s", te.Message)
}

// invocation is what a handler may know about the request it serves.
type invocation struct {
	req invokeRequest
}

type invocationKey struct{}

func withInvocation(ctx context.Context, inv *invocation) context.Context {
	return context.WithValue(ctx, invocationKey{}, inv)
}

func invocationOf(ctx context.Context) *invocation {
	inv, _ := ctx.Value(invocationKey{}).(*invocation)
	if inv == nil {
		return &invocation{}
	}
	return inv
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
