package gateway

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store/media"
)

// deviceConnect connects as a signed device from loopback (auto-approved)
// with the given scopes and auth block; it returns the response and the
// hello payload's auth.
func deviceConnect(t *testing.T, url string, key deviceKey, scopes []string, auth map[string]any) (*tclient, frame, protocol.HelloAuth) {
	t.Helper()
	c := dial(t, url)
	p := connectParams(func(p map[string]any) { p["scopes"] = scopes })
	// The proof signs the first non-empty of token and deviceToken.
	sig := ""
	for _, k := range []string{"token", "deviceToken"} {
		if v, _ := auth[k].(string); v != "" && sig == "" {
			sig = v
		}
	}
	p["auth"] = map[string]any{"token": sig}
	if key.id != "" {
		key.sign(p, c.challenge, true)
	}
	p["auth"] = auth
	f := c.call("connect", p)
	var h protocol.HelloOK
	if f.OK {
		h = decode[protocol.HelloOK](t, f.Payload)
	}
	return c, f, h.Auth
}

func wantAuthRefused(t *testing.T, f frame, code string) {
	t.Helper()
	if f.OK {
		t.Fatalf("connect accepted, want %s", code)
	}
	d, _ := f.Error.Details.(map[string]any)
	if got, _ := d["code"].(string); got != code {
		t.Fatalf("refused with %s (%s), want %s", got, f.Error.Message, code)
	}
}

// A paired device gets a device token in hello-ok.auth once, may then
// connect with only that token and its device proof, within the token's
// scopes; a wrong token, another device's key, no proof or a removed
// device are refused.
func TestDeviceTokenIssuedAndAccepted(t *testing.T) {
	ts := startServer(t, Options{})
	key := newDeviceKey(t)
	shared := map[string]any{"token": testToken}
	read := []string{protocol.ScopeRead}

	c, f, auth := deviceConnect(t, ts.url, key, read, shared)
	if !f.OK || auth.DeviceToken == "" || auth.IssuedAtMs == 0 {
		t.Fatalf("first paired connect: %+v, auth %+v", f.Error, auth)
	}
	tok := auth.DeviceToken
	c.close()
	if _, f, again := deviceConnect(t, ts.url, key, read, shared); !f.OK || again.DeviceToken != "" {
		t.Fatalf("second connect issued again: %+v %+v", f.Error, again)
	}

	byToken := map[string]any{"deviceToken": tok}
	dc, f, auth := deviceConnect(t, ts.url, key, read, byToken)
	if !f.OK || auth.Method != "device-token" || strings.Join(auth.Scopes, ",") != protocol.ScopeRead {
		t.Fatalf("device-token connect: %+v, auth %+v", f.Error, auth)
	}
	if r := dc.call("health", nil); !r.OK {
		t.Fatalf("health over a device-token connection: %+v", r.Error)
	}

	_, f, _ = deviceConnect(t, ts.url, key, []string{protocol.ScopeAdmin}, byToken)
	wantAuthRefused(t, f, "AUTH_SCOPE_MISMATCH")
	_, f, _ = deviceConnect(t, ts.url, key, read, map[string]any{"deviceToken": tok + "x"})
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)
	_, f, _ = deviceConnect(t, ts.url, newDeviceKey(t), read, byToken)
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)
	_, f, _ = deviceConnect(t, ts.url, deviceKey{}, read, byToken)
	wantAuthRefused(t, f, protocol.DetailDeviceIdentityRequired)

	admin := dialConnected(t, ts.url)
	if r := admin.call("device.pair.remove", map[string]any{"deviceId": key.id}); !r.OK {
		t.Fatalf("remove: %+v", r.Error)
	}
	_, f, _ = deviceConnect(t, ts.url, key, read, byToken)
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)
}

// The token survives a restart (it is kept, hashed, with the device's
// record in the state database).
func TestDeviceTokenSurvivesRestart(t *testing.T) {
	ts := startServer(t, Options{})
	key := newDeviceKey(t)
	_, f, auth := deviceConnect(t, ts.url, key, []string{protocol.ScopeRead}, map[string]any{"token": testToken})
	if !f.OK || auth.DeviceToken == "" {
		t.Fatalf("connect: %+v", f.Error)
	}
	ts.stop()
	ts2 := startServer(t, Options{Paths: ts.s.paths})
	_, f, got := deviceConnect(t, ts2.url, key, []string{protocol.ScopeRead}, map[string]any{"deviceToken": auth.DeviceToken})
	if !f.OK || got.Method != "device-token" {
		t.Fatalf("after restart: %+v", f.Error)
	}
}

// Issue 7 (media): a paired device holding only its device token fetches
// media; a token without operator.read, a wrong one, a revoked one and the
// token of a removed device are refused.
func TestMediaRouteDeviceToken(t *testing.T) {
	ts := startServer(t, Options{})
	ref, err := media.New(ts.dir).Save(context.Background(), strings.NewReader("PNGDATA"), "image/png", "")
	if err != nil {
		t.Fatal(err)
	}
	get := func(bearer string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.http+MediaRoute+media.Name(ref.Path), nil)
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tokenFor := func(key deviceKey, scopes []string) string {
		t.Helper()
		c, f, auth := deviceConnect(t, ts.url, key, scopes, map[string]any{"token": testToken})
		if !f.OK || auth.DeviceToken == "" {
			t.Fatalf("pairing connect: %+v %+v", f.Error, auth)
		}
		c.close()
		return auth.DeviceToken
	}
	reader := newDeviceKey(t)
	readTok := tokenFor(reader, []string{protocol.ScopeRead})
	if code, body := get(readTok); code != 200 || body != "PNGDATA" {
		t.Fatalf("device token: %d %q", code, body)
	}
	pairingOnly := tokenFor(newDeviceKey(t), []string{protocol.ScopePairing})
	if code, body := get(pairingOnly); code != 403 || strings.Contains(body, "PNGDATA") {
		t.Errorf("token without operator.read: %d %q", code, body)
	}
	if code, _ := get(readTok[:len(readTok)-1]); code != 401 {
		t.Errorf("truncated token: %d", code)
	}
	admin := dialConnected(t, ts.url)
	other := newDeviceKey(t)
	otherTok := tokenFor(other, []string{protocol.ScopeRead})
	if r := admin.call("device.token.revoke", map[string]any{"deviceId": other.id, "role": "operator"}); !r.OK {
		t.Fatalf("revoke: %+v", r.Error)
	}
	if code, body := get(otherTok); code != 401 || strings.Contains(body, "PNGDATA") {
		t.Errorf("revoked token: %d %q", code, body)
	}
	if r := admin.call("device.pair.remove", map[string]any{"deviceId": reader.id}); !r.OK {
		t.Fatalf("remove: %+v", r.Error)
	}
	if code, body := get(readTok); code != 401 || strings.Contains(body, "PNGDATA") {
		t.Errorf("removed device's token: %d %q", code, body)
	}
}

// A token stands for the device's current pairing: a scope the operator
// approves later is usable with the same token; the token of a device
// removed and paired again (same key) is not.
func TestDeviceTokenFollowsPairing(t *testing.T) {
	ts := startServer(t, Options{})
	key := newDeviceKey(t)
	_, f, auth := deviceConnect(t, ts.url, key, []string{protocol.ScopeRead}, map[string]any{"token": testToken})
	if !f.OK || auth.DeviceToken == "" {
		t.Fatalf("connect: %+v", f.Error)
	}
	tok := map[string]any{"deviceToken": auth.DeviceToken}
	write := []string{protocol.ScopeWrite}
	_, f, _ = deviceConnect(t, ts.url, key, write, tok)
	wantAuthRefused(t, f, "AUTH_SCOPE_MISMATCH")
	// Loopback: the scope upgrade is approved silently on a shared-token connect.
	if _, f, _ := deviceConnect(t, ts.url, key, write, map[string]any{"token": testToken}); !f.OK {
		t.Fatalf("upgrade: %+v", f.Error)
	}
	if _, f, got := deviceConnect(t, ts.url, key, write, tok); !f.OK || got.Method != "device-token" {
		t.Fatalf("after upgrade: %+v", f.Error)
	}
	admin := dialConnected(t, ts.url)
	if r := admin.call("device.pair.remove", map[string]any{"deviceId": key.id}); !r.OK {
		t.Fatalf("remove: %+v", r.Error)
	}
	_, f, again := deviceConnect(t, ts.url, key, write, map[string]any{"token": testToken})
	if !f.OK || again.DeviceToken == "" || again.DeviceToken == auth.DeviceToken {
		t.Fatalf("re-paired: %+v %+v", f.Error, again)
	}
	_, f, _ = deviceConnect(t, ts.url, key, write, tok)
	wantAuthRefused(t, f, protocol.DetailAuthDeviceTokenMismat)
}
