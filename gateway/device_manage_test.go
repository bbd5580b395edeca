package gateway

import (
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
)

// pairDevice pairs key on loopback with scopes (shared token) and returns
// the device token it was issued.
func pairDevice(t *testing.T, url string, key deviceKey, scopes []string) string {
	t.Helper()
	c, f, auth := deviceConnect(t, url, key, scopes, map[string]any{"token": testToken})
	if !f.OK || auth.DeviceToken == "" {
		t.Fatalf("pairing connect: %+v %+v", f.Error, auth)
	}
	c.close()
	return auth.DeviceToken
}

// byToken connects key with its device token (and its signed proof).
func byToken(t *testing.T, url string, key deviceKey, tok string, scopes []string) (*tclient, frame) {
	t.Helper()
	c, f, auth := deviceConnect(t, url, key, scopes, map[string]any{"deviceToken": tok})
	if f.OK && auth.Method != "device-token" {
		t.Fatalf("connected by %q, want device-token", auth.Method)
	}
	return c, f
}

// pairedEntry is the device's row in device.pair.list.
func pairedEntry(t *testing.T, admin *tclient, id string) gjson.Result {
	t.Helper()
	r := admin.call("device.pair.list", nil)
	if !r.OK {
		t.Fatalf("list: %+v", r.Error)
	}
	for _, d := range gjson.GetBytes(r.Payload, "paired").Array() {
		if d.Get("deviceId").String() == id {
			return d
		}
	}
	t.Fatalf("device %s not listed: %s", id, r.Payload)
	return gjson.Result{}
}

func wantError(t *testing.T, r frame, msg string) {
	t.Helper()
	if r.OK || r.Error.Code != protocol.ErrInvalidRequest || r.Error.Message != msg {
		t.Fatalf("got %+v %s, want INVALID_REQUEST %q", r.Error, r.Payload, msg)
	}
}

// device.pair.rename labels a paired device (trimmed); the label is in
// device.pair.list; a blank label and an unknown device are refused.
func TestDevicePairRename(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	key := newDeviceKey(t)
	pairDevice(t, ts.url, key, []string{protocol.ScopeRead})

	r := admin.call("device.pair.rename", map[string]any{"deviceId": key.id, "label": "  Kitchen tablet "})
	if !r.OK || gjson.GetBytes(r.Payload, "deviceId").String() != key.id || gjson.GetBytes(r.Payload, "label").String() != "Kitchen tablet" {
		t.Fatalf("rename: %+v %s", r.Error, r.Payload)
	}
	if got := pairedEntry(t, admin, key.id).Get("operatorLabel").String(); got != "Kitchen tablet" {
		t.Errorf("listed label %q", got)
	}
	wantError(t, admin.call("device.pair.rename", map[string]any{"deviceId": key.id, "label": "   "}), "label required")
	wantError(t, admin.call("device.pair.rename", map[string]any{"deviceId": "nope", "label": "x"}), "unknown deviceId")
}

// device.token.rotate: the device rotating its own token gets the new one
// in-band; the old token stops working at once, the new one connects
// (with the device's proof), the device's connection for that role is
// closed after the answer. Scopes may only narrow.
func TestDeviceTokenRotate(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	key := newDeviceKey(t)
	scopes := []string{protocol.ScopePairing, protocol.ScopeRead}
	old := pairDevice(t, ts.url, key, scopes)

	self, f := byToken(t, ts.url, key, old, scopes)
	if !f.OK {
		t.Fatalf("device-token connect: %+v", f.Error)
	}
	r := self.call("device.token.rotate", map[string]any{"deviceId": key.id, "role": "operator"})
	p := gjson.ParseBytes(r.Payload)
	fresh := p.Get("token").String()
	if !r.OK || fresh == "" || fresh == old || p.Get("tokenDelivery").String() != "in-band" ||
		p.Get("deviceId").String() != key.id || p.Get("role").String() != "operator" || p.Get("rotatedAtMs").Int() == 0 {
		t.Fatalf("rotate: %+v %s", r.Error, r.Payload)
	}
	if got := strs(p.Get("scopes")); !slices.Equal(got, []string{protocol.ScopePairing, protocol.ScopeRead}) {
		t.Errorf("rotated scopes %v", got)
	}
	if code, reason := self.waitClose(t); code != 4001 || reason != "client invalidated: device-token-rotated" {
		t.Errorf("rotating connection closed %d %q", code, reason)
	}
	_, f = byToken(t, ts.url, key, old, scopes)
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)
	if _, f = byToken(t, ts.url, key, fresh, scopes); !f.OK {
		t.Fatalf("rotated token refused: %+v", f.Error)
	}
	if tok := pairedEntry(t, admin, key.id).Get("tokens.#(role==\"operator\")"); tok.Get("rotatedAtMs").Int() == 0 || tok.Get("hash").Exists() {
		t.Errorf("listed token: %s", tok.Raw)
	}

	// Narrowing: the token then grants only operator.read.
	r = admin.call("device.token.rotate", map[string]any{"deviceId": key.id, "role": "operator", "scopes": []string{protocol.ScopeRead}})
	if !r.OK || !slices.Equal(strs(gjson.GetBytes(r.Payload, "scopes")), []string{protocol.ScopeRead}) {
		t.Fatalf("narrowing rotate: %+v %s", r.Error, r.Payload)
	}
	// Beyond the device's approval, or an unknown device or role: denied.
	wantError(t, admin.call("device.token.rotate", map[string]any{"deviceId": key.id, "role": "operator", "scopes": []string{protocol.ScopeAdmin}}), "device token rotation denied")
	wantError(t, admin.call("device.token.rotate", map[string]any{"deviceId": "nope", "role": "operator"}), "device token rotation denied")
	wantError(t, admin.call("device.token.rotate", map[string]any{"deviceId": key.id, "role": "node"}), "device token rotation denied")
}

// A rotation by another caller (here the shared-token admin) withholds the
// token, as the original does; the device gets a fresh one in hello-ok on
// its next verified connect, and that one is bound to the rotated scopes.
func TestDeviceTokenRotateWithheld(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	key := newDeviceKey(t)
	scopes := []string{protocol.ScopeRead, protocol.ScopeWrite}
	old := pairDevice(t, ts.url, key, scopes)
	open, f := byToken(t, ts.url, key, old, scopes)
	if !f.OK {
		t.Fatalf("device-token connect: %+v", f.Error)
	}

	r := admin.call("device.token.rotate", map[string]any{"deviceId": key.id, "role": "operator", "scopes": []string{protocol.ScopeRead}})
	p := gjson.ParseBytes(r.Payload)
	if !r.OK || p.Get("token").Exists() || p.Get("tokenDelivery").String() != "withheld-cross-device" {
		t.Fatalf("cross-device rotate: %+v %s", r.Error, r.Payload)
	}
	if code, _ := open.waitClose(t); code != 4001 {
		t.Errorf("device's connection closed %d, want 4001", code)
	}
	_, f = byToken(t, ts.url, key, old, []string{protocol.ScopeRead})
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)

	_, f, auth := deviceConnect(t, ts.url, key, []string{protocol.ScopeRead}, map[string]any{"token": testToken})
	if !f.OK || auth.DeviceToken == "" || auth.DeviceToken == old {
		t.Fatalf("re-delivery on the next connect: %+v %+v", f.Error, auth)
	}
	if _, f = byToken(t, ts.url, key, auth.DeviceToken, []string{protocol.ScopeRead}); !f.OK {
		t.Fatalf("re-delivered token: %+v", f.Error)
	}
	_, f = byToken(t, ts.url, key, auth.DeviceToken, scopes)
	wantAuthRefused(t, f, "AUTH_SCOPE_MISMATCH")
}

// device.token.revoke: the token stops working, the device's open
// connection for that role is closed, device.pair.list shows the revocation,
// and the device gets a new token on its next shared-secret connect.
func TestDeviceTokenRevoke(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	key := newDeviceKey(t)
	read := []string{protocol.ScopeRead}
	tok := pairDevice(t, ts.url, key, read)
	open, f := byToken(t, ts.url, key, tok, read)
	if !f.OK {
		t.Fatalf("device-token connect: %+v", f.Error)
	}

	r := admin.call("device.token.revoke", map[string]any{"deviceId": key.id, "role": "operator"})
	p := gjson.ParseBytes(r.Payload)
	if !r.OK || p.Get("deviceId").String() != key.id || p.Get("role").String() != "operator" || p.Get("revokedAtMs").Int() == 0 {
		t.Fatalf("revoke: %+v %s", r.Error, r.Payload)
	}
	if code, reason := open.waitClose(t); code != 4001 || reason != "client invalidated: device-token-revoked" {
		t.Errorf("device's connection closed %d %q", code, reason)
	}
	_, f = byToken(t, ts.url, key, tok, read)
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)
	if at := pairedEntry(t, admin, key.id).Get("tokens.#(role==\"operator\").revokedAtMs").Int(); at != p.Get("revokedAtMs").Int() {
		t.Errorf("listed revokedAtMs %d, want %d", at, p.Get("revokedAtMs").Int())
	}
	wantError(t, admin.call("device.token.revoke", map[string]any{"deviceId": key.id, "role": "node"}), "device token revocation denied")
	wantError(t, admin.call("device.token.revoke", map[string]any{"deviceId": "nope", "role": "operator"}), "device token revocation denied")

	_, f, auth := deviceConnect(t, ts.url, key, read, map[string]any{"token": testToken})
	if !f.OK || auth.DeviceToken == "" || auth.DeviceToken == tok {
		t.Fatalf("new token after revoke: %+v %+v", f.Error, auth)
	}
	if pairedEntry(t, admin, key.id).Get("tokens.#(role==\"operator\").revokedAtMs").Exists() {
		t.Errorf("fresh token still listed as revoked")
	}
}

// A device connected by its own token with operator.pairing (no admin)
// manages only itself: another device's rename, rotate and revoke are
// denied with the original's texts, and so is a non-operator role of its own.
func TestDeviceManageCrossDeviceDenied(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	a, b := newDeviceKey(t), newDeviceKey(t)
	scopes := []string{protocol.ScopePairing}
	tokA := pairDevice(t, ts.url, a, scopes)
	tokB := pairDevice(t, ts.url, b, []string{protocol.ScopeRead})

	ca, f := byToken(t, ts.url, a, tokA, scopes)
	if !f.OK {
		t.Fatalf("device-token connect: %+v", f.Error)
	}
	wantError(t, ca.call("device.pair.rename", map[string]any{"deviceId": b.id, "label": "mine"}), "device pairing rename denied")
	wantError(t, ca.call("device.token.rotate", map[string]any{"deviceId": b.id, "role": "operator"}), "device token rotation denied")
	wantError(t, ca.call("device.token.revoke", map[string]any{"deviceId": b.id, "role": "operator"}), "device token revocation denied")
	wantError(t, ca.call("device.token.revoke", map[string]any{"deviceId": a.id, "role": "node"}), "device token revocation denied")
	if _, f := byToken(t, ts.url, b, tokB, []string{protocol.ScopeRead}); !f.OK {
		t.Fatalf("b's token no longer works: %+v", f.Error)
	}
	if got := pairedEntry(t, admin, b.id).Get("operatorLabel").String(); got != "" {
		t.Errorf("b renamed to %q", got)
	}
	wantError(t, ca.call("device.pair.remove", map[string]any{"deviceId": b.id}), "device pairing removal denied")
	// It lists only itself.
	if r := ca.call("device.pair.list", nil); !r.OK || gjson.GetBytes(r.Payload, "paired.#").Int() != 1 ||
		gjson.GetBytes(r.Payload, "paired.0.deviceId").String() != a.id {
		t.Errorf("device caller's list: %+v %s", r.Error, r.Payload)
	}
	// Its own device: allowed.
	if r := ca.call("device.pair.rename", map[string]any{"deviceId": a.id, "label": "self"}); !r.OK {
		t.Errorf("own rename: %+v", r.Error)
	}
	// Once it is also a node, even its own rename needs operator.admin.
	nc := dial(t, ts.url)
	np := connectParams(nodeParams)
	a.sign(np, nc.challenge, true)
	if f := nc.call("connect", np); !f.OK {
		t.Fatalf("node connect: %+v", f.Error)
	}
	wantError(t, ca.call("device.pair.rename", map[string]any{"deviceId": a.id, "label": "node"}), "device pairing rename denied")
	if r := admin.call("device.pair.rename", map[string]any{"deviceId": a.id, "label": "node"}); !r.OK {
		t.Errorf("admin rename of a node: %+v", r.Error)
	}
	// A caller with operator.read only has no operator.pairing at all.
	reader := dialConnected(t, ts.url, func(p map[string]any) { p["scopes"] = []string{protocol.ScopeRead} })
	if r := reader.call("device.token.revoke", map[string]any{"deviceId": b.id, "role": "operator"}); r.OK || r.Error.Message != "missing scope: operator.pairing" {
		t.Errorf("reader: %+v", r.Error)
	}
}

// Labels, rotations and revocations are in the state database: after a
// restart the label is listed, the revoked token is still refused and the
// rotated one still connects.
func TestDeviceManageSurvivesRestart(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	a, b := newDeviceKey(t), newDeviceKey(t)
	scopes := []string{protocol.ScopePairing, protocol.ScopeRead}
	tokA := pairDevice(t, ts.url, a, scopes)
	tokB := pairDevice(t, ts.url, b, []string{protocol.ScopeRead})
	if r := admin.call("device.pair.rename", map[string]any{"deviceId": a.id, "label": "Desk"}); !r.OK {
		t.Fatalf("rename: %+v", r.Error)
	}
	ca, f := byToken(t, ts.url, a, tokA, scopes)
	if !f.OK {
		t.Fatalf("device-token connect: %+v", f.Error)
	}
	r := ca.call("device.token.rotate", map[string]any{"deviceId": a.id, "role": "operator"})
	rotated := gjson.GetBytes(r.Payload, "token").String()
	if !r.OK || rotated == "" {
		t.Fatalf("rotate: %+v", r.Error)
	}
	if r := admin.call("device.token.revoke", map[string]any{"deviceId": b.id, "role": "operator"}); !r.OK {
		t.Fatalf("revoke: %+v", r.Error)
	}
	admin.close()
	ts.stop()

	ts2 := startServer(t, Options{Paths: ts.s.paths})
	admin2 := dialConnected(t, ts2.url)
	if got := pairedEntry(t, admin2, a.id).Get("operatorLabel").String(); got != "Desk" {
		t.Errorf("label after restart %q", got)
	}
	if !pairedEntry(t, admin2, b.id).Get("tokens.#(role==\"operator\").revokedAtMs").Exists() {
		t.Errorf("revocation not listed after restart")
	}
	_, f = byToken(t, ts2.url, b, tokB, []string{protocol.ScopeRead})
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)
	_, f = byToken(t, ts2.url, a, tokA, scopes)
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)
	if _, f = byToken(t, ts2.url, a, rotated, scopes); !f.OK {
		t.Fatalf("rotated token after restart: %+v", f.Error)
	}
}
