package gateway

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
)

// These tests pin device lines that a one-line mutation (gremlins, `make
// mutate`) could change with every other test still passing (issue 17,
// item 20).

// A device proof is fresh within ±DeviceSignatureSkewMs of its signedAt,
// both bounds included; one millisecond past either is expired.
func TestDeviceSignatureSkewBounds(t *testing.T) {
	key := newDeviceKey(t)
	ch := protocol.Challenge{Nonce: "nonce-1", TS: 1_000_000_000}
	raw := connectParams()
	raw["auth"] = map[string]any{"token": testToken}
	key.sign(raw, ch, true)
	b, _ := json.Marshal(raw)
	var p protocol.ConnectParams
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	role := p.Role
	if role == "" {
		role = protocol.RoleOperator
	}
	skew := int64(protocol.DeviceSignatureSkewMs)
	for _, now := range []int64{ch.TS, ch.TS + skew, ch.TS - skew} {
		if _, e := verifyDevice(&p, role, ch.Nonce, now); e != nil {
			t.Errorf("now = signedAt%+d: %+v, want fresh", now-ch.TS, e)
		}
	}
	for _, now := range []int64{ch.TS + skew + 1, ch.TS - skew - 1} {
		_, e := verifyDevice(&p, role, ch.Nonce, now)
		if e == nil {
			t.Errorf("now = signedAt%+d: fresh, want expired", now-ch.TS)
			continue
		}
		if d, _ := e.Details.(map[string]any); d["code"] != protocol.DetailDeviceSigExpired {
			t.Errorf("now = signedAt%+d: %+v, want expired", now-ch.TS, e)
		}
	}
}

// A device session cannot rotate its operator token to scopes its own
// connection does not hold, even when the device's approval covers them.
func TestDeviceRotateCappedByCallerScopes(t *testing.T) {
	ts := startServer(t, Options{})
	key := newDeviceKey(t)
	tok := pairDevice(t, ts.url, key, []string{protocol.ScopePairing, protocol.ScopeRead, protocol.ScopeWrite})
	self, f := byToken(t, ts.url, key, tok, []string{protocol.ScopePairing, protocol.ScopeRead})
	if !f.OK {
		t.Fatalf("device-token connect: %+v", f.Error)
	}
	wantError(t, self.call("device.token.rotate", map[string]any{"deviceId": key.id, "role": "operator",
		"scopes": []string{protocol.ScopeWrite}}), "device token rotation denied")
}

// hasNonOperatorRole looks at approved roles and at token roles; operator
// (and blanks) do not count.
func TestHasNonOperatorRole(t *testing.T) {
	for _, c := range []struct {
		d    pairedDevice
		want bool
	}{
		{pairedDevice{Roles: []string{"operator"}}, false},
		{pairedDevice{Roles: []string{" operator ", ""}, Tokens: []store.DeviceToken{{Role: "operator"}, {Role: " "}}}, false},
		{pairedDevice{Roles: []string{"operator", "node"}}, true},
		{pairedDevice{Roles: []string{"operator"}, Tokens: []store.DeviceToken{{Role: "node"}}}, true},
	} {
		if got := hasNonOperatorRole(&c.d); got != c.want {
			t.Errorf("%+v: %v, want %v", c.d, got, c.want)
		}
	}
}

// device.pair.list marks a paired device connected while it is, and only
// that one.
func TestDeviceListConnected(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	on, off := newDeviceKey(t), newDeviceKey(t)
	scopes := []string{protocol.ScopePairing, protocol.ScopeRead}
	tok := pairDevice(t, ts.url, on, scopes)
	pairDevice(t, ts.url, off, scopes)
	c, f := byToken(t, ts.url, on, tok, scopes)
	if !f.OK {
		t.Fatalf("device-token connect: %+v", f.Error)
	}
	defer c.close()
	if !pairedEntry(t, admin, on.id).Get("connected").Bool() {
		t.Error("the connected device is not listed as connected")
	}
	// off's pairing connection has closed on the client's side; the
	// gateway notices the close on its own goroutine, so wait for that
	// state (a list that keeps calling it connected fails here).
	waitFor(t, 10*time.Second, func() bool { return !pairedEntry(t, admin, off.id).Get("connected").Bool() })
	if !pairedEntry(t, admin, on.id).Get("connected").Bool() {
		t.Error("the connected device is no longer listed as connected")
	}
}

// Revoking is capped the same way: a device session cannot revoke a token
// that grants more than the session holds.
func TestDeviceRevokeCappedByCallerScopes(t *testing.T) {
	ts := startServer(t, Options{})
	key := newDeviceKey(t)
	tok := pairDevice(t, ts.url, key, []string{protocol.ScopePairing, protocol.ScopeRead, protocol.ScopeWrite})
	self, f := byToken(t, ts.url, key, tok, []string{protocol.ScopePairing, protocol.ScopeRead})
	if !f.OK {
		t.Fatalf("device-token connect: %+v", f.Error)
	}
	wantError(t, self.call("device.token.revoke", map[string]any{"deviceId": key.id, "role": "operator"}), "device token revocation denied")
}

// The token issued at pairing carries the device's approved scopes; a
// rotation keeps the token's creation time and records its own.
func TestDeviceTokenScopesAndTimes(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	key := newDeviceKey(t)
	pairDevice(t, ts.url, key, []string{protocol.ScopePairing, protocol.ScopeRead})
	before := pairedEntry(t, admin, key.id).Get(`tokens.#(role=="operator")`)
	if got := strs(before.Get("scopes")); len(got) != 2 || got[0] != protocol.ScopePairing || got[1] != protocol.ScopeRead {
		t.Fatalf("issued token scopes %v, want the device's", got)
	}
	created := before.Get("createdAtMs").Int()
	if created == 0 {
		t.Fatalf("token %s", before.Raw)
	}
	waitFor(t, 5*time.Second, func() bool { return nowMs() > created })
	if r := admin.call("device.token.rotate", map[string]any{"deviceId": key.id, "role": "operator"}); !r.OK {
		t.Fatalf("rotate: %+v", r.Error)
	}
	after := pairedEntry(t, admin, key.id).Get(`tokens.#(role=="operator")`)
	if after.Get("createdAtMs").Int() != created || after.Get("rotatedAtMs").Int() <= created {
		t.Errorf("after rotate %s, want createdAtMs %d kept and a later rotatedAtMs", after.Raw, created)
	}
}
