// Package failure is the one typed error set of openclaw: a stable code, a
// human message and optional details. It is a leaf (standard library only)
// so that tools, the gateway client and the CLI share it without importing
// each other. Codes are mapped to exit codes here and to wire codes at the
// gateway's edge; the message is never edited on the way out.
package failure

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to one documented exit code (see ExitCode).
const (
	CodeInvalidParams   = "INVALID_PARAMS"   // exit 2
	CodeUsage           = "USAGE"            // exit 2
	CodeUnknownTool     = "UNKNOWN_TOOL"     // exit 2
	CodeDenied          = "DENIED"           // exit 3
	CodeAuth            = "AUTH_FAILED"      // exit 4
	CodeUnreachable     = "UNREACHABLE"      // exit 5
	CodePendingApproval = "PENDING_APPROVAL" // exit 8
	CodeTimeout         = "TIMEOUT"          // exit 124
	CodeInterrupted     = "INTERRUPTED"      // exit 130
	CodeNotFound        = "NOT_FOUND"        // exit 1
	CodeFailed          = "FAILED"           // exit 1

	// Access and lookup failures of the one door; the gateway answers them
	// with the protocol's codes and exact strings.
	CodeUnknownMethod    = "UNKNOWN_METHOD"    // wire INVALID_REQUEST "unknown method: X"; exit 2
	CodeUnauthorizedRole = "UNAUTHORIZED_ROLE" // wire INVALID_REQUEST "unauthorized role: R"; exit 4
	CodeMissingScope     = "MISSING_SCOPE"     // wire FORBIDDEN "missing scope: S"; exit 3
)

// Gateway-protocol codes (protocol.Err*), mapped to exit codes when one
// reaches the CLI, e.g. inside a relayed tools.invoke result.
const (
	wireInvalidRequest = "INVALID_REQUEST"
	wireForbidden      = "FORBIDDEN"
	wireNotPaired      = "NOT_PAIRED"
	wireAgentTimeout   = "AGENT_TIMEOUT"
)

// Error is a failure with a stable code, a human message and optional
// machine-readable details. It travels unchanged from handler to CLI or wire.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
	cause   error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.cause }

// ExitCode maps the error code to the CLI's documented exit codes.
func (e *Error) ExitCode() int { return ExitCode(e.Code) }

// ExitCode maps a code (ours or a gateway-protocol one) to an exit code.
func ExitCode(code string) int {
	switch code {
	case CodeInvalidParams, CodeUsage, CodeUnknownTool, CodeUnknownMethod, wireInvalidRequest:
		return 2
	case CodeDenied, CodeMissingScope, wireForbidden:
		return 3
	case CodeAuth, CodeUnauthorizedRole, wireNotPaired:
		return 4
	case CodeUnreachable:
		return 5
	case CodePendingApproval:
		return 8
	case CodeTimeout, wireAgentTimeout:
		return 124
	case CodeInterrupted:
		return 130
	}
	return 1
}

// Known reports whether code is one of this package's codes.
func Known(code string) bool {
	switch code {
	case CodeInvalidParams, CodeUsage, CodeUnknownTool, CodeDenied, CodeAuth, CodeUnreachable,
		CodePendingApproval, CodeTimeout, CodeInterrupted, CodeNotFound, CodeFailed,
		CodeUnknownMethod, CodeUnauthorizedRole, CodeMissingScope:
		return true
	}
	return false
}

// Errorf builds an *Error with a code; a %w verb becomes its cause.
func Errorf(code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), cause: errors.Unwrap(err)}
}

// Wrap builds an *Error with a code and message around cause.
func Wrap(code, message string, cause error) *Error {
	return &Error{Code: code, Message: message, cause: cause}
}

// WithDetails attaches details and returns the error.
func (e *Error) WithDetails(d any) *Error { e.Details = d; return e }

// AsError converts any error into an *Error (code FAILED when it carries none).
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	return &Error{Code: CodeFailed, Message: err.Error(), cause: err}
}
