package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
)

// Dial connects to the gateway and completes the handshake: wait for
// connect.challenge, send connect as the first frame, wait for hello-ok.
// Errors are *failure.Error (see the package doc). One clean pre-hello close (code
// 1000, no reason) is retried once, like the reference CLI.
func Dial(ctx context.Context, opts Options) (*Conn, error) {
	o := opts.withDefaults()
	if o.Identity != nil && (o.Identity.PrivateKey == nil || o.Identity.DeviceID == "") {
		return nil, failure.Errorf(failure.CodeFailed, "device identity is incomplete")
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < o.Timeout {
		o.Timeout = max(time.Until(dl), 0) // so timeout messages name the real limit
	}
	dctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		c, err := dialOnce(ctx, dctx, &o)
		var ce *CloseError
		if err != nil && attempt == 0 && errors.As(err, &ce) && ce.Code == protocol.CloseNormal &&
			ce.Reason == "no close reason" && dctx.Err() == nil {
			continue
		}
		return c, err
	}
}

func dialOnce(parent, ctx context.Context, o *Options) (*Conn, error) {
	dialer := websocket.Dialer{TLSClientConfig: o.TLSConfig, HandshakeTimeout: o.Timeout}
	ws, resp, err := dialer.DialContext(ctx, o.URL, o.Header)
	if err != nil {
		if ctx.Err() != nil {
			return nil, deadlineError(parent, o, "connecting")
		}
		return nil, dialError(o.URL, resp, err)
	}
	ws.SetReadLimit(protocol.MaxPayload)

	hs := &handshake{ws: ws, o: o}
	c, err := hs.run(parent, ctx)
	if err != nil {
		ws.Close()
		return nil, err
	}
	return c, nil
}

func dialError(url string, resp *http.Response, err error) *failure.Error {
	cause := err.Error()
	var dns *net.DNSError
	switch {
	case resp != nil:
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return failure.Errorf(failure.CodeAuth, "gateway at %s refused the WebSocket upgrade: HTTP %s", url, resp.Status).
				WithDetails(map[string]any{"url": url, "status": resp.StatusCode})
		}
		cause = fmt.Sprintf("HTTP %s instead of a WebSocket upgrade (is this an OpenClaw gateway?)", resp.Status)
	case errors.Is(err, syscall.ECONNREFUSED):
		cause = "connection refused"
	case errors.As(err, &dns):
		// A name that does not resolve is a typo or a network problem, not
		// a gateway that is down: do not tell the user to start one.
		return failure.Errorf(failure.CodeUnreachable, "Gateway not reachable at %s: could not resolve host %s (%s); check the URL (--url, OPENCLAW_GATEWAY_URL, gateway.remote.url)", url, dns.Name, dns.Err).
			WithDetails(map[string]any{"url": url})
	}
	return failure.Errorf(failure.CodeUnreachable, "Gateway not reachable at %s: %s. Start it with `openclaw serve`.", url, cause).
		WithDetails(map[string]any{"url": url})
}

// deadlineError reports an expired handshake: CodeInterrupted when the
// caller cancelled, else CodeTimeout.
func deadlineError(parent context.Context, o *Options, phase string) *failure.Error {
	if errors.Is(parent.Err(), context.Canceled) {
		return failure.Errorf(failure.CodeInterrupted, "gateway connect interrupted while %s (%s)", phase, o.URL)
	}
	return failure.Errorf(failure.CodeTimeout, "gateway connect timed out while %s (%s, timeout %s)", phase, o.URL, o.Timeout.Round(time.Millisecond)).
		WithDetails(map[string]any{"url": o.URL, "timeoutMs": o.Timeout.Milliseconds()})
}

// handshake runs the connect.challenge → connect → hello-ok exchange on a
// fresh socket.
type handshake struct {
	ws     *websocket.Conn
	o      *Options
	early  []protocol.Event // events that arrived before hello-ok
	helloP json.RawMessage
}

func (h *handshake) run(parent, ctx context.Context) (*Conn, error) {
	// Phase 1: the challenge.
	chCtx, cancel := context.WithTimeout(ctx, connectChallengeTimeout)
	defer cancel()
	var ch *protocol.Challenge
	err := h.readPhase(chCtx, func(f *inFrame) bool {
		if f.Type == protocol.TypeEvent && f.Event == "connect.challenge" {
			ch = &protocol.Challenge{}
			if json.Unmarshal(f.Payload, ch) != nil {
				ch.Nonce = ""
			}
			return true
		}
		return false
	})
	if err != nil {
		return nil, h.phaseError(parent, ctx, chCtx, err, "waiting for connect.challenge",
			protocol.ClosePolicyViolation, "connect challenge timeout")
	}
	if strings.TrimSpace(ch.Nonce) == "" {
		h.sendClose(protocol.ClosePolicyViolation, "connect challenge missing nonce")
		return nil, failure.Errorf(failure.CodeFailed, "gateway at %s sent a connect.challenge without a nonce", h.o.URL)
	}
	if h.o.Identity != nil && ch.TS <= 0 {
		h.sendClose(protocol.ClosePolicyViolation, "connect challenge missing ts")
		return nil, failure.Errorf(failure.CodeFailed, "gateway at %s sent a connect.challenge without a valid ts", h.o.URL)
	}

	// Phase 2: connect → hello-ok.
	params, _ := json.Marshal(buildConnect(h.o, ch))
	c := newConn(h.ws, *h.o)
	connectID := c.nextID()
	frame, _ := json.Marshal(protocol.Request{Type: protocol.TypeReq, ID: connectID, Method: "connect", Params: params})
	if len(frame) > protocol.MaxPreAuthPayload {
		return nil, failure.Errorf(failure.CodeInvalidParams, "connect frame is %d bytes, over the gateway's %d-byte pre-auth limit",
			len(frame), protocol.MaxPreAuthPayload)
	}
	h.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	if err := h.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		if ctx.Err() != nil {
			return nil, deadlineError(parent, h.o, "sending connect")
		}
		return nil, failure.Errorf(failure.CodeFailed, "gateway connect to %s failed: %w", h.o.URL, err)
	}
	h.ws.SetWriteDeadline(time.Time{})

	resCtx, cancel2 := context.WithTimeout(ctx, connectResponseTimeout)
	defer cancel2()
	var res *inFrame
	err = h.readPhase(resCtx, func(f *inFrame) bool {
		switch {
		case f.Type == protocol.TypeRes && f.ID == connectID:
			res = f
			return true
		case f.Type == protocol.TypeEvent && f.Event != "connect.challenge":
			h.early = append(h.early, f.event())
		}
		return false
	})
	if err != nil {
		return nil, h.phaseError(parent, ctx, resCtx, err, "waiting for hello-ok", 4000, "connect timeout")
	}
	if !res.OK {
		h.sendClose(protocol.CloseNormal, "")
		return nil, connectToolError(h.o, newCallError("connect", res.Error))
	}
	var hello protocol.HelloOK
	if err := json.Unmarshal(res.Payload, &hello); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) { // tolerate odd field types, not garbage
			h.sendClose(protocol.ClosePolicyViolation, "invalid hello")
			return nil, failure.Errorf(failure.CodeFailed, "gateway at %s sent an invalid hello-ok: %v", h.o.URL, err)
		}
	}
	if hello.Protocol != 0 && (hello.Protocol < h.o.MinProtocol || hello.Protocol > h.o.MaxProtocol) {
		h.sendClose(protocol.CloseProtocolError, "protocol mismatch")
		return nil, failure.Errorf(failure.CodeFailed, "gateway protocol mismatch: the gateway at %s answered protocol %d, this client speaks %d..%d",
			h.o.URL, hello.Protocol, h.o.MinProtocol, h.o.MaxProtocol)
	}
	c.start(&hello, res.Payload, h.early)
	return c, nil
}

// readPhase reads frames until accept returns true, the socket fails, or
// ctx ends (which unblocks the read through a read deadline).
func (h *handshake) readPhase(ctx context.Context, accept func(*inFrame) bool) error {
	stop := context.AfterFunc(ctx, func() { h.ws.UnderlyingConn().SetReadDeadline(time.Now()) })
	defer stop()
	for {
		_, data, err := h.ws.ReadMessage()
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f, ok := decodeFrame(data)
		if ok && accept(f) {
			if !stop() { // the deadline fired as the frame arrived: socket is poisoned
				return ctx.Err()
			}
			return nil
		}
	}
}

func (h *handshake) phaseError(parent, ctx, phaseCtx context.Context, err error, phase string, closeCode int, closeReason string) error {
	if phaseCtx.Err() != nil {
		h.sendClose(closeCode, closeReason)
		if ctx.Err() != nil {
			return deadlineError(parent, h.o, phase)
		}
		return failure.Errorf(failure.CodeTimeout, "gateway %s (%s): no answer within %s", closeReason, h.o.URL, connectChallengeTimeout).
			WithDetails(map[string]any{"url": h.o.URL})
	}
	return closeToolError(closeFromReadError(err))
}

func (h *handshake) sendClose(code int, reason string) {
	h.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
}

// closeFromReadError turns a socket read error into the close it means:
// the peer's close frame, or 1006 for a connection lost without one. An
// empty reason reads "no close reason", as in the reference CLI.
func closeFromReadError(err error) *CloseError {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		reason := strings.TrimSpace(ce.Text)
		if reason == "" {
			reason = "no close reason"
		}
		return &CloseError{Code: ce.Code, Reason: reason}
	}
	return &CloseError{Code: websocket.CloseAbnormalClosure, Reason: "abnormal closure (no close frame)"}
}
