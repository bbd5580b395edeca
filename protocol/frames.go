// Package protocol holds the OpenClaw Gateway WebSocket protocol (v4) wire
// types shared by the client and the gateway: frames, error shapes, the
// handshake payloads, scopes and limits.
package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Protocol versions (gateway-protocol.md §0, §3.4).
const (
	Version          = 4
	MinClientVersion = 4
	MinNodeVersion   = 3
	MinProbeVersion  = 3
)

// Limits and timers (§2, §3.1, §8.2).
const (
	MaxPreAuthPayload  = 64 * 1024
	MaxPayload         = 25 * 1024 * 1024
	MaxBufferedBytes   = 50 * 1024 * 1024
	TickIntervalMs     = 30000
	HandshakeTimeoutMs = 15000
	DefaultPort        = 18789
	DevPort            = 19001
)

// Frame types.
const (
	TypeReq   = "req"
	TypeRes   = "res"
	TypeEvent = "event"
)

// Request is a client → server frame.
type Request struct {
	Type              string          `json:"type"`
	ID                string          `json:"id"`
	Method            string          `json:"method"`
	Params            json.RawMessage `json:"params,omitempty"`
	Traceparent       string          `json:"traceparent,omitempty"`
	ExpectedProfileID string          `json:"expectedProfileId,omitempty"`
}

// Response is a server → client answer to one request id.
type Response struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	OK      bool            `json:"ok"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Error   *ErrorShape     `json:"error,omitempty"`
}

// Event is a server → client push. Seq is per connection and only set on
// broadcasts; targeted events (connect.challenge) carry none.
type Event struct {
	Type         string          `json:"type"`
	Event        string          `json:"event"`
	Payload      json.RawMessage `json:"payload,omitempty"`
	Seq          *uint64         `json:"seq,omitempty"`
	StateVersion *StateVersion   `json:"stateVersion,omitempty"`
}

// StateVersion versions presence and health broadcasts.
type StateVersion struct {
	Presence int64 `json:"presence"`
	Health   int64 `json:"health"`
}

// ErrorShape is the error object of a failed response. Code and Message
// must never be empty: the reference client drops such frames.
type ErrorShape struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Details      any    `json:"details,omitempty"`
	Retryable    *bool  `json:"retryable,omitempty"`
	RetryAfterMs *int64 `json:"retryAfterMs,omitempty"`
}

func (e *ErrorShape) Error() string { return e.Message }

// Top-level error codes (§2.4).
const (
	ErrInvalidRequest   = "INVALID_REQUEST"
	ErrForbidden        = "FORBIDDEN"
	ErrUnavailable      = "UNAVAILABLE"
	ErrNotPaired        = "NOT_PAIRED"
	ErrApprovalNotFound = "APPROVAL_NOT_FOUND"
)

// Close codes (§2.5).
const (
	CloseNormal          = 1000
	CloseProtocolError   = 1002
	ClosePolicyViolation = 1008
	CloseTooLarge        = 1009
	CloseServiceRestart  = 1012
	CloseTryAgainLater   = 1013
)

// Envelope is the minimal view used to tell frames apart.
type Envelope struct {
	Type string `json:"type"`
}

// ErrBadFrame marks a frame that is not a valid request frame. Its text is
// the prefix of the wire message ("invalid request frame: …", §2.1).
var ErrBadFrame = errors.New("invalid request frame")

// DecodeRequest parses a client frame and checks the request envelope
// (§2.1): a JSON object with type "req", non-empty string id and method,
// optional params, traceparent ≤ 128 chars, expectedProfileId 1..128 chars,
// and no other keys. On an envelope error the returned Request still carries
// the id when one could be read, so the error response can echo it.
func DecodeRequest(data []byte) (*Request, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("%w: frame must be a JSON object", ErrBadFrame)
	}
	r := &Request{}
	if raw, ok := fields["id"]; ok {
		_ = json.Unmarshal(raw, &r.ID)
	}
	str := func(key string) (string, bool, error) {
		raw, ok := fields[key]
		if !ok {
			return "", false, nil
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", true, fmt.Errorf("%w: %s must be a string", ErrBadFrame, key)
		}
		return v, true, nil
	}
	typ, _, err := str("type")
	if err != nil {
		return r, err
	}
	if typ != TypeReq {
		return r, fmt.Errorf("%w: type must be \"req\"", ErrBadFrame)
	}
	r.Type = typ
	if id, _, err := str("id"); err != nil || id == "" {
		return r, fmt.Errorf("%w: id must be a non-empty string", ErrBadFrame)
	}
	if r.Method, _, err = str("method"); err != nil || r.Method == "" {
		return r, fmt.Errorf("%w: method must be a non-empty string", ErrBadFrame)
	}
	if r.Traceparent, _, err = str("traceparent"); err != nil {
		return r, err
	} else if len(r.Traceparent) > 128 {
		return r, fmt.Errorf("%w: traceparent longer than 128 characters", ErrBadFrame)
	}
	var has bool
	if r.ExpectedProfileID, has, err = str("expectedProfileId"); err != nil {
		return r, err
	} else if has && (r.ExpectedProfileID == "" || len(r.ExpectedProfileID) > 128) {
		return r, fmt.Errorf("%w: expectedProfileId must be 1..128 characters", ErrBadFrame)
	}
	if raw, ok := fields["params"]; ok && string(raw) != "null" {
		r.Params = raw
	}
	for k := range fields {
		switch k {
		case "type", "id", "method", "params", "traceparent", "expectedProfileId":
		default:
			return r, fmt.Errorf("%w: unexpected property %q", ErrBadFrame, k)
		}
	}
	return r, nil
}

// NewError builds an ErrorShape.
func NewError(code, message string, details any) *ErrorShape {
	return &ErrorShape{Code: code, Message: message, Details: details}
}
