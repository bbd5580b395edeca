package gateway

import (
	"testing"

	"github.com/openclaw-go/openclaw/protocol"
)

// The shared-secret check names what was presented and why it failed, as
// the original does (§4.1); the CLI and the original client act on these.
func TestAuthenticateReasons(t *testing.T) {
	s := newTestServerNoListen(t)
	pw := newTestServerNoListen(t, func(o *Options) { o.Token, o.AuthMode, o.Password = "", AuthPassword, "pw" })
	for _, tc := range []struct {
		name             string
		srv              *Server
		auth             *protocol.ConnectAuth
		ok               bool
		provided, reason string
	}{
		{"token ok", s, &protocol.ConnectAuth{Token: testToken}, true, "token", ""},
		{"token in password field", s, &protocol.ConnectAuth{Password: testToken}, true, "password", ""},
		{"wrong token", s, &protocol.ConnectAuth{Token: "x"}, false, "token", "token_mismatch"},
		{"nothing", s, nil, false, "none", "token_missing"},
		{"stale device token", s, &protocol.ConnectAuth{DeviceToken: "d"}, false, "device-token", "device_token_mismatch"},
		{"bootstrap", s, &protocol.ConnectAuth{BootstrapToken: "b"}, false, "bootstrap-token", "bootstrap_token_invalid"},
		{"password ok", pw, &protocol.ConnectAuth{Password: "pw"}, true, "password", ""},
		{"password missing", pw, nil, false, "none", "password_missing"},
		{"password wrong", pw, &protocol.ConnectAuth{Password: "no"}, false, "password", "password_mismatch"},
	} {
		r := tc.srv.authenticate(&protocol.ConnectParams{Auth: tc.auth})
		if r.ok != tc.ok || r.provided != tc.provided || r.reason != tc.reason {
			t.Errorf("%s: %+v", tc.name, r)
		}
	}
}

// The failure texts are the original's, with the hint for the client.
func TestAuthFailureMessages(t *testing.T) {
	cli := protocol.ClientInfo{ID: protocol.ClientIDCLI, Mode: protocol.ModeCLI}
	ui := protocol.ClientInfo{ID: protocol.ClientIDControlUI, Mode: protocol.ModeUI}
	other := protocol.ClientInfo{ID: "test", Mode: "backend"}
	for _, tc := range []struct {
		mode   string
		reason string
		client protocol.ClientInfo
		local  bool
		want   string
	}{
		{AuthToken, "token_missing", cli, true, "unauthorized: gateway token missing (use this gateway's gateway.auth.token or pair the device)"},
		{AuthToken, "token_mismatch", cli, false, "unauthorized: gateway token mismatch (set gateway.remote.token to match gateway.auth.token)"},
		{AuthToken, "token_missing", ui, false, "unauthorized: gateway token missing (paste in Control UI settings or openclaw doctor --generate-gateway-token; restart)"},
		{AuthToken, "token_mismatch", ui, false, "unauthorized: gateway token mismatch (open the dashboard URL and paste the token in Control UI settings)"},
		{AuthToken, "token_mismatch", other, false, "unauthorized: gateway token mismatch (provide gateway auth token)"},
		{AuthPassword, "password_missing", cli, true, "unauthorized: gateway password missing (use this gateway's gateway.auth.password)"},
		{AuthPassword, "password_mismatch", cli, false, "unauthorized: gateway password mismatch (set gateway.remote.password to match gateway.auth.password)"},
		{AuthPassword, "password_mismatch", ui, false, "unauthorized: gateway password mismatch (enter the password in Control UI settings)"},
		{AuthToken, "token_missing_config", cli, true, "unauthorized: gateway token not configured on gateway (set gateway.auth.token)"},
		{AuthPassword, "password_missing_config", cli, true, "unauthorized: gateway password not configured on gateway (set gateway.auth.password)"},
		{AuthToken, "rate_limited", cli, true, "unauthorized: too many failed authentication attempts (retry later)"},
		{AuthToken, "device_token_mismatch", cli, true, "unauthorized: device token mismatch (rotate/reissue device token)"},
		{AuthToken, "scope_mismatch", cli, true, "unauthorized: device token scope mismatch (re-pair or approve scope upgrade)"},
		{AuthToken, "", other, false, "unauthorized: gateway token missing (provide gateway auth token)"},
		{AuthPassword, "", other, false, "unauthorized: gateway password missing (provide gateway auth password)"},
	} {
		r := authResult{reason: tc.reason, provided: "none"}
		if got := authFailureMessage(tc.mode, r, tc.client, tc.local); got != tc.want {
			t.Errorf("%s/%s/%s local=%v:\n got %q\nwant %q", tc.mode, tc.reason, tc.client.ID, tc.local, got, tc.want)
		}
	}
	e := authFailure(authResult{reason: "token_mismatch", provided: "token"}, AuthToken, cli, true)
	d := e.Details.(map[string]any)
	if d["code"] != protocol.DetailAuthTokenMismatch || d["recommendedNextStep"] != "update_auth_credentials" {
		t.Errorf("details %v", d)
	}
	for reason, next := range map[string]string{"token_missing": "update_auth_configuration", "rate_limited": "wait_then_retry", "weird": "review_auth_configuration"} {
		if d := authFailure(authResult{reason: reason}, AuthToken, cli, true).Details.(map[string]any); d["recommendedNextStep"] != next {
			t.Errorf("%s: next %v", reason, d["recommendedNextStep"])
		}
	}
	if d := authFailure(authResult{reason: "weird"}, AuthToken, cli, true).Details.(map[string]any); d["code"] != protocol.DetailAuthUnauthorized {
		t.Errorf("unknown reason code %v", d["code"])
	}
	if d := authFailure(authResult{}, AuthToken, cli, true).Details.(map[string]any); d["code"] != protocol.DetailAuthRequired {
		t.Errorf("no reason code %v", d["code"])
	}
}

// AuthSource names where the secret lives without printing it.
func TestAuthSource(t *testing.T) {
	p := tokenTestPaths(t)
	s, err := New(Options{Paths: p, Getenv: func(string) string { return "" }, ConfigPollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.AuthSource(); got != "gateway.auth.token in "+p.ConfigPath+" (openclaw config get gateway.auth.token)" {
		t.Errorf("generated: %q", got)
	}
	if s.AuthMode() != AuthToken {
		t.Errorf("mode %s", s.AuthMode())
	}
	env := newTestServerNoListen(t, func(o *Options) {
		o.Token, o.AuthMode = "", ""
		o.Getenv = func(k string) string {
			if k == "OPENCLAW_GATEWAY_PASSWORD" {
				return "pw"
			}
			return ""
		}
	})
	if got := env.AuthSource(); got != "OPENCLAW_GATEWAY_PASSWORD" {
		t.Errorf("env password: %q", got)
	}
}
