package tools

import "github.com/openclaw-go/openclaw/failure"

// Error is the typed failure every handler returns; it lives in the leaf
// package failure so the gateway client can share it without importing tools.
type Error = failure.Error

// Error codes (see package failure).
const (
	CodeInvalidParams   = failure.CodeInvalidParams
	CodeUsage           = failure.CodeUsage
	CodeUnknownTool     = failure.CodeUnknownTool
	CodeDenied          = failure.CodeDenied
	CodeAuth            = failure.CodeAuth
	CodeUnreachable     = failure.CodeUnreachable
	CodePendingApproval = failure.CodePendingApproval
	CodeTimeout         = failure.CodeTimeout
	CodeInterrupted     = failure.CodeInterrupted
	CodeNotFound        = failure.CodeNotFound
	CodeFailed          = failure.CodeFailed
)

// Errorf builds an *Error with a code (see failure.Errorf).
func Errorf(code, format string, args ...any) *Error { return failure.Errorf(code, format, args...) }

// AsError converts any error into an *Error (code FAILED when it carries none).
func AsError(err error) *Error { return failure.AsError(err) }
