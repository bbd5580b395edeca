package client

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/failure"
)

// Issue 8 item 4: a connect refused for lack of credentials says how to
// give them.
func TestMissingCredentialsHint(t *testing.T) {
	for _, dc := range []string{"DEVICE_IDENTITY_REQUIRED", "AUTH_TOKEN_MISSING", "AUTH_REQUIRED"} {
		err := connectToolError(&Options{}, &CallError{Method: "connect", Code: "NOT_PAIRED", Message: "device identity required",
			Details: map[string]any{"code": dc}})
		if err.Code != failure.CodeAuth {
			t.Errorf("%s: code %s", dc, err.Code)
		}
		for _, want := range []string{"--token", "OPENCLAW_GATEWAY_TOKEN", "gateway.auth.token"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", dc, err.Error(), want)
			}
		}
	}
	// With a token given, a mismatch is not "missing": no such hint.
	err := connectToolError(&Options{Token: "x"}, &CallError{Method: "connect", Code: "INVALID_REQUEST",
		Message: "unauthorized: gateway token mismatch", Details: map[string]any{"code": "AUTH_TOKEN_MISMATCH"}})
	if strings.Contains(err.Error(), "OPENCLAW_GATEWAY_TOKEN") {
		t.Errorf("mismatch got the missing-token hint: %q", err.Error())
	}
}

// Issue 8 item 12: a host that does not resolve is not "start it with
// openclaw serve".
func TestDialUnresolvableHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Dial(ctx, Options{URL: "garbage.invalid"})
	if err == nil {
		t.Fatal("dial succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "could not resolve host garbage.invalid") || strings.Contains(msg, "openclaw serve") {
		t.Errorf("message %q", msg)
	}
	if te := failure.AsError(err); te.Code != failure.CodeUnreachable {
		t.Errorf("code: %v", err)
	}
}
