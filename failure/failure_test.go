package failure

import (
	"errors"
	"fmt"
	"testing"
)

// Our codes and the gateway protocol's map to the documented exit codes, so
// a protocol code reaching the CLI (e.g. inside a relayed tool result) does
// not exit 1 by default.
func TestExitCodes(t *testing.T) {
	for code, want := range map[string]int{
		CodeInvalidParams: 2, CodeUsage: 2, CodeUnknownTool: 2, CodeUnknownMethod: 2, "INVALID_REQUEST": 2,
		CodeDenied: 3, CodeMissingScope: 3, "FORBIDDEN": 3,
		CodeAuth: 4, CodeUnauthorizedRole: 4, "NOT_PAIRED": 4,
		CodeUnreachable: 5, CodePendingApproval: 8, CodeTimeout: 124, "AGENT_TIMEOUT": 124, CodeInterrupted: 130,
		CodeNotFound: 1, CodeFailed: 1, "UNAVAILABLE": 1, "SOMETHING_ELSE": 1,
	} {
		if got := (&Error{Code: code}).ExitCode(); got != want {
			t.Errorf("%s: exit %d, want %d", code, got, want)
		}
	}
}

func TestErrorfWrapsAndAsError(t *testing.T) {
	cause := errors.New("disk full")
	e := Errorf(CodeFailed, "write x: %w", cause)
	if e.Message != "write x: disk full" || !errors.Is(e, cause) {
		t.Fatalf("%+v", e)
	}
	if AsError(fmt.Errorf("ctx: %w", e)) != e {
		t.Error("AsError must find a wrapped *Error")
	}
	if a := AsError(cause); a.Code != CodeFailed || a.Message != "disk full" || !errors.Is(a, cause) {
		t.Errorf("plain error: %+v", a)
	}
	if AsError(nil) != nil {
		t.Error("AsError(nil)")
	}
}
