package client

import (
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
)

// ErrClosed is wrapped by Conn.Err and by pending calls after the client
// itself closed the connection (Conn.Close).
var ErrClosed = errors.New("gateway connection closed by client")

// CallError is a gateway response with ok:false.
type CallError struct {
	Method       string // the method called ("connect" for a rejected handshake)
	Code         string // gateway error code, e.g. INVALID_REQUEST, FORBIDDEN
	Message      string
	Details      any // decoded JSON (map[string]any usually), nil when absent
	Retryable    bool
	RetryAfterMs int64
}

func newCallError(method string, e *protocol.ErrorShape) *CallError {
	ce := &CallError{Method: method}
	if e != nil {
		ce.Code, ce.Message, ce.Details = e.Code, e.Message, e.Details
		if e.Retryable != nil {
			ce.Retryable = *e.Retryable
		}
		if e.RetryAfterMs != nil {
			ce.RetryAfterMs = *e.RetryAfterMs
		}
	}
	if ce.Code == "" {
		ce.Code = protocol.ErrUnavailable
	}
	if ce.Message == "" {
		ce.Message = "gateway request failed: " + method
	}
	return ce
}

func (e *CallError) Error() string { return e.Message }

// DetailCode returns details.code ("AUTH_TOKEN_MISMATCH", "MISSING_SCOPE", …)
// or "".
func (e *CallError) DetailCode() string {
	if m, ok := e.Details.(map[string]any); ok {
		if s, ok := m["code"].(string); ok {
			return s
		}
	}
	return ""
}

// ToolError maps the gateway error onto the CLI's error codes:
//
//   - a code that already is a tools code (INVALID_PARAMS, DENIED, TIMEOUT, …,
//     as our own gateway relays tool failures) is kept with its details
//     verbatim, so a relayed tool error looks exactly like a local one;
//   - INVALID_REQUEST "invalid <method> params: …" → CodeInvalidParams (2);
//   - INVALID_REQUEST "unknown method: …" → CodeUnknownMethod (2);
//   - FORBIDDEN → CodeDenied (3); NOT_PAIRED → CodeAuth (4);
//   - AGENT_TIMEOUT → CodeTimeout (124); APPROVAL_NOT_FOUND and details codes
//     ending in _NOT_FOUND → CodeNotFound (1);
//   - anything else (UNAVAILABLE, other INVALID_REQUEST) → CodeFailed (1).
//
// Mapped errors carry Details {"gatewayCode": Code, "details": Details} (and
// "retryable"/"retryAfterMs" when set) so the original code is not lost.
func (e *CallError) ToolError() *failure.Error {
	if isToolsCode(e.Code) {
		return failure.Errorf(e.Code, "%w", e).WithDetails(e.Details)
	}
	code := failure.CodeFailed
	switch e.Code {
	case protocol.ErrInvalidRequest:
		if strings.HasPrefix(e.Message, "invalid ") && strings.Contains(e.Message, " params") {
			code = failure.CodeInvalidParams
		} else if strings.HasPrefix(e.Message, "unknown method: ") {
			code = failure.CodeUnknownMethod
		}
	case protocol.ErrForbidden:
		code = failure.CodeDenied
	case protocol.ErrNotPaired:
		code = failure.CodeAuth
	case protocol.ErrApprovalNotFound:
		code = failure.CodeNotFound
	case "AGENT_TIMEOUT":
		code = failure.CodeTimeout
	}
	if code == failure.CodeFailed && strings.HasSuffix(e.DetailCode(), "_NOT_FOUND") {
		code = failure.CodeNotFound
	}
	return failure.Errorf(code, "%w", e).WithDetails(e.wrappedDetails())
}

func (e *CallError) wrappedDetails() map[string]any {
	d := map[string]any{"gatewayCode": e.Code}
	if e.Details != nil {
		d["details"] = e.Details
	}
	if e.Retryable {
		d["retryable"] = true
	}
	if e.RetryAfterMs > 0 {
		d["retryAfterMs"] = e.RetryAfterMs
	}
	return d
}

// As lets errors.As(err, &toolErr) (and so failure.AsError) turn a CallError
// into its mapped *failure.Error.
func (e *CallError) As(target any) bool {
	if t, ok := target.(**failure.Error); ok {
		*t = e.ToolError()
		return true
	}
	return false
}

// isToolsCode reports a code of our typed set (as our gateway relays them).
func isToolsCode(code string) bool { return failure.Known(code) }

// CloseError is the WebSocket close that ended a connection. It is wrapped
// (as the cause) by the *failure.Error returned from Conn.Err and from calls
// pending at that moment; its message is `gateway closed (<code>): <reason>`.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	return fmt.Sprintf("gateway closed (%d): %s", e.Code, e.Reason)
}

// closeToolError classifies a close: revoked authority (4001) and auth or
// pairing closes (1008 with such a reason) are CodeAuth, the rest CodeFailed.
func closeToolError(ce *CloseError) *failure.Error {
	code := failure.CodeFailed
	r := strings.ToLower(ce.Reason)
	switch {
	case ce.Code == 4001:
		code = failure.CodeAuth
	case ce.Code == protocol.ClosePolicyViolation && (strings.HasPrefix(r, "unauthorized") ||
		strings.Contains(r, "pairing required") || strings.Contains(r, "device token mismatch") ||
		strings.Contains(r, "device identity") || strings.Contains(r, "device signature")):
		code = failure.CodeAuth
	}
	return failure.Errorf(code, "%w", ce).WithDetails(map[string]any{"closeCode": ce.Code, "closeReason": ce.Reason})
}

// connectAuthDetailCodes are connect rejections that mean "fix your
// credentials or pair the device" (exit 4), besides AUTH_* and DEVICE_AUTH_*.
var connectAuthDetailCodes = map[string]bool{
	"PAIRING_REQUIRED": true, "NOT_PAIRED": true, "DEVICE_IDENTITY_REQUIRED": true,
	"CONTROL_UI_DEVICE_IDENTITY_REQUIRED": true,
}

// connectToolError maps a rejected connect (res ok:false to the connect
// request) onto a *failure.Error wrapping the *CallError.
func connectToolError(o *Options, ce *CallError) *failure.Error {
	dc := ce.DetailCode()
	details := ce.wrappedDetails()
	switch {
	case dc == "PROTOCOL_MISMATCH" || ce.Message == "protocol mismatch":
		want := ""
		if m, ok := ce.Details.(map[string]any); ok {
			if v, ok := m["expectedProtocol"]; ok {
				want = fmt.Sprintf(", the gateway speaks protocol %v", v)
			}
		}
		return failure.Errorf(failure.CodeFailed, "gateway protocol mismatch: this client speaks protocol %d..%d%s (%w)",
			o.MinProtocol, o.MaxProtocol, want, ce).WithDetails(details)
	case missingCredentials(o, dc):
		return failure.Errorf(failure.CodeAuth, "%w: %s", ce, credentialsHint).WithDetails(details)
	case strings.HasPrefix(dc, "AUTH_") || strings.HasPrefix(dc, "DEVICE_AUTH_") || connectAuthDetailCodes[dc] ||
		ce.Code == protocol.ErrNotPaired || (dc == "" && strings.HasPrefix(ce.Message, "unauthorized")):
		return failure.Errorf(failure.CodeAuth, "%w", ce).WithDetails(details)
	}
	return failure.Errorf(failure.CodeFailed, "%w", ce).WithDetails(details)
}

// credentialsHint says what to do when the gateway wants a secret and the
// client sent none (the gateway answers "device identity required", which
// on its own does not tell a CLI user anything).
const credentialsHint = "this gateway requires a token: pass --token, set OPENCLAW_GATEWAY_TOKEN, or set gateway.auth.token in the config (openclaw config set gateway.auth.token ...)"

// missingCredentials: the connect was refused for lack of a secret and
// this client had none to offer.
func missingCredentials(o *Options, dc string) bool {
	if o.Token != "" || o.Password != "" || o.DeviceToken != "" || o.BootstrapToken != "" {
		return false
	}
	switch dc {
	case "DEVICE_IDENTITY_REQUIRED", "AUTH_TOKEN_MISSING", "AUTH_REQUIRED":
		return dc != "DEVICE_IDENTITY_REQUIRED" || o.Identity == nil
	}
	return false
}

// reconnectPauseCodes stop a Session's reconnect loop (§8.3): retrying
// cannot succeed without the user changing something.
var reconnectPauseCodes = map[string]bool{
	"AUTH_TOKEN_MISSING": true, "AUTH_BOOTSTRAP_TOKEN_INVALID": true, "AUTH_PASSWORD_MISSING": true,
	"AUTH_PASSWORD_MISMATCH": true, "AUTH_RATE_LIMITED": true, "AUTH_DEVICE_TOKEN_MISMATCH": true,
	"AUTH_SCOPE_MISMATCH": true, "AUTH_IDENTITY_HEADER_REQUIRED": true, "AUTH_VERIFIED_USER_REQUIRED": true,
	"CONTROL_UI_BUILD_MISMATCH": true, "CONTROL_UI_DEVICE_IDENTITY_REQUIRED": true,
	"DEVICE_IDENTITY_REQUIRED": true, "AUTH_TOKEN_MISMATCH": true, "PROTOCOL_MISMATCH": true,
	"CLIENT_VERSION_MISMATCH": true,
}

// isFatalConnectError reports whether err is a connect rejection after which
// automatic reconnects pause.
func isFatalConnectError(err error) bool {
	ce, ok := asCallError(err)
	if !ok || ce.Method != "connect" {
		return false
	}
	dc := ce.DetailCode()
	if dc == "PAIRING_REQUIRED" {
		m, _ := ce.Details.(map[string]any)
		if p, ok := m["pauseReconnect"].(bool); ok && !p {
			return false
		}
		return m["recommendedNextStep"] != "wait_then_retry"
	}
	return reconnectPauseCodes[dc] || ce.Message == "protocol mismatch"
}

func asCallError(err error) (*CallError, bool) {
	var ce *CallError
	ok := errors.As(err, &ce)
	return ce, ok
}
