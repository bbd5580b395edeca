package gateway

import (
	"crypto/sha256"
	"crypto/subtle"

	"github.com/openclaw-go/openclaw/protocol"
)

// authResult is the outcome of the shared-secret check (§4.1).
type authResult struct {
	ok       bool
	method   string            // none | token | password
	reason   string            // token_mismatch, password_missing, …
	provided string            // token | password | device-token | bootstrap-token | none
	grant    *deviceTokenGrant // set when a device token authenticated
}

// authenticate checks the shared secret. The configured secret is accepted
// in either auth.token or auth.password, compared in constant time.
func (s *Server) authenticate(p *protocol.ConnectParams) authResult {
	a := s.auth.Load()
	var tok, pw, devTok, boot string
	if p.Auth != nil {
		tok, pw, devTok, boot = p.Auth.Token, p.Auth.Password, p.Auth.DeviceToken, p.Auth.BootstrapToken
	}
	r := authResult{provided: "none"}
	switch {
	case tok != "":
		r.provided = "token"
	case pw != "":
		r.provided = "password"
	case devTok != "":
		r.provided = "device-token"
	case boot != "":
		r.provided = "bootstrap-token"
	}
	var secret, kind string
	switch a.mode {
	case AuthNone:
		r.ok, r.method = true, AuthNone
		return r
	}
	if tok == "" && pw == "" && devTok != "" {
		// A token issued to a paired device (device_token.go); the
		// caller binds it to the device proof.
		if g, ok := s.pairing.checkToken(devTok); ok {
			r.ok, r.method, r.grant = true, "device-token", &g
		} else {
			r.reason = "device_token_mismatch"
		}
		return r
	}
	switch a.mode {
	case AuthPassword:
		secret, kind = a.password, "password"
	default:
		secret, kind = a.token, "token"
	}
	switch {
	case secret == "":
		r.reason = kind + "_missing_config"
	case secretEqual(tok, secret) || secretEqual(pw, secret):
		r.ok, r.method = true, kind
	case tok == "" && pw == "":
		switch {
		case boot != "":
			r.reason = "bootstrap_token_invalid"
		default:
			r.reason = kind + "_missing"
		}
	default:
		r.reason = kind + "_mismatch"
	}
	return r
}

// secretEqual compares digests so neither content nor length leaks through
// timing.
func secretEqual(got, want string) bool {
	if got == "" || want == "" {
		return false
	}
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// authDetailCodes maps failure reasons to details.code (§4.1).
var authDetailCodes = map[string]string{
	"token_missing":           protocol.DetailAuthTokenMissing,
	"token_mismatch":          protocol.DetailAuthTokenMismatch,
	"token_missing_config":    protocol.DetailAuthTokenNotConfigured,
	"password_missing":        protocol.DetailAuthPasswordMissing,
	"password_mismatch":       protocol.DetailAuthPasswordMismatch,
	"password_missing_config": protocol.DetailAuthPasswordNotConfig,
	"bootstrap_token_invalid": "AUTH_BOOTSTRAP_TOKEN_INVALID",
	"rate_limited":            protocol.DetailAuthRateLimited,
	"device_token_mismatch":   protocol.DetailAuthDeviceTokenMismat,
	"scope_mismatch":          "AUTH_SCOPE_MISMATCH",
}

// authFailure builds the connect error for a failed secret check, with the
// reference's wording and recovery hints.
func authFailure(r authResult, mode string, client protocol.ClientInfo, local bool) *protocol.ErrorShape {
	code := authDetailCodes[r.reason]
	if code == "" {
		code = protocol.DetailAuthUnauthorized
		if r.reason == "" {
			code = protocol.DetailAuthRequired
		}
	}
	next := "review_auth_configuration"
	switch r.reason {
	case "token_missing", "token_missing_config", "password_missing", "password_missing_config":
		next = "update_auth_configuration"
	case "token_mismatch", "password_mismatch", "device_token_mismatch":
		next = "update_auth_credentials"
	case "rate_limited":
		next = "wait_then_retry"
	}
	return protocol.NewError(protocol.ErrInvalidRequest, authFailureMessage(mode, r, client, local), map[string]any{
		"code":                    code,
		"authReason":              r.reason,
		"canRetryWithDeviceToken": false,
		"recommendedNextStep":     next,
	})
}

// authFailureMessage reproduces the reference's client-specific texts; the
// CLI prints them verbatim.
func authFailureMessage(mode string, r authResult, client protocol.ClientInfo, local bool) string {
	isCLI := client.Mode == protocol.ModeCLI || client.ID == protocol.ClientIDCLI
	isUI := client.ID == protocol.ClientIDControlUI || client.Mode == protocol.ModeUI ||
		client.Mode == protocol.ModeWebchat || client.ID == "webchat" || client.ID == "webchat-ui"
	tokenHint, passwordHint := "provide gateway auth token", "provide gateway auth password"
	switch {
	case isCLI && local:
		tokenHint = "use this gateway's gateway.auth.token or pair the device"
		passwordHint = "use this gateway's gateway.auth.password"
	case isCLI:
		tokenHint = "set gateway.remote.token to match gateway.auth.token"
		passwordHint = "set gateway.remote.password to match gateway.auth.password"
	case isUI:
		tokenHint = "open the dashboard URL and paste the token in Control UI settings"
		passwordHint = "enter the password in Control UI settings"
	}
	switch r.reason {
	case "token_missing":
		if isUI {
			return "unauthorized: gateway token missing (paste in Control UI settings or openclaw doctor --generate-gateway-token; restart)"
		}
		return "unauthorized: gateway token missing (" + tokenHint + ")"
	case "token_mismatch":
		return "unauthorized: gateway token mismatch (" + tokenHint + ")"
	case "token_missing_config":
		return "unauthorized: gateway token not configured on gateway (set gateway.auth.token)"
	case "password_missing":
		return "unauthorized: gateway password missing (" + passwordHint + ")"
	case "password_mismatch":
		return "unauthorized: gateway password mismatch (" + passwordHint + ")"
	case "password_missing_config":
		return "unauthorized: gateway password not configured on gateway (set gateway.auth.password)"
	case "bootstrap_token_invalid":
		return "unauthorized: setup code invalid, expired, revoked, or already used (create a new code; review `openclaw devices list`)"
	case "rate_limited":
		return "unauthorized: too many failed authentication attempts (retry later)"
	case "device_token_mismatch":
		return "unauthorized: device token mismatch (rotate/reissue device token)"
	case "scope_mismatch":
		return "unauthorized: device token scope mismatch (re-pair or approve scope upgrade)"
	}
	if mode == AuthToken && r.provided == "none" {
		return "unauthorized: gateway token missing (" + tokenHint + ")"
	}
	if mode == AuthPassword && r.provided == "none" {
		return "unauthorized: gateway password missing (" + passwordHint + ")"
	}
	return "unauthorized"
}
