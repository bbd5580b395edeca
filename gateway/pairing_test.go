package gateway

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/openclaw-go/openclaw/protocol"
)

var remoteHeader = http.Header{"X-Forwarded-For": {"203.0.113.7"}}

// remoteConnect connects with a device key from a "remote" address and
// returns the connect response.
func remoteConnect(t *testing.T, url string, key deviceKey, mut ...func(map[string]any)) (*tclient, frame) {
	t.Helper()
	c := dialHeader(t, url, remoteHeader)
	p := connectParams(append([]func(map[string]any){func(p map[string]any) {
		p["client"] = map[string]any{"id": "openclaw-tui", "version": "1", "platform": "linux", "mode": "ui"}
		p["scopes"] = []string{"operator.read"}
	}}, mut...)...)
	key.sign(p, c.challenge, true)
	return c, c.call("connect", p)
}

// Issue 6 minor: `openclaw devices approve` exists: device.pair.list shows
// the pending request of a remote device, approve lets it in, remove
// closes its connections and forgets it; reject drops a request.
func TestDevicePairMethods(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	key := newDeviceKey(t)

	_, f := remoteConnect(t, ts.url, key)
	if f.OK || f.Error.Code != "NOT_PAIRED" {
		t.Fatalf("remote device admitted unpaired: %+v", f.Error)
	}
	d, _ := f.Error.Details.(map[string]any)
	reqID, _ := d["requestId"].(string)
	if hint, _ := d["remediationHint"].(string); hint != "approve this device on the gateway host (openclaw devices approve "+reqID+")" {
		t.Errorf("hint %q", hint)
	}
	l := admin.call("device.pair.list", nil)
	list := decode[pairingList](t, l.Payload)
	if !l.OK || len(list.Pending) != 1 || list.Pending[0].RequestID != reqID || list.Pending[0].DeviceID != key.id {
		t.Fatalf("list: %s %+v", l.Payload, l.Error)
	}
	if r := admin.call("device.pair.approve", map[string]any{"requestId": "nope"}); r.OK || r.Error.Message != "unknown requestId" {
		t.Errorf("unknown id: %+v", r.Error)
	}
	if r := admin.call("device.pair.approve", map[string]any{"requestId": reqID}); !r.OK {
		t.Fatalf("approve: %+v", r.Error)
	}
	dev, f2 := remoteConnect(t, ts.url, key)
	if !f2.OK {
		t.Fatalf("approved device refused: %+v", f2.Error)
	}
	list = decode[pairingList](t, admin.call("device.pair.list", nil).Payload)
	if len(list.Pending) != 0 || len(list.Paired) != 1 || list.Paired[0].DeviceID != key.id {
		t.Errorf("after approve: %+v", list)
	}
	if r := admin.call("device.pair.remove", map[string]any{"deviceId": key.id}); !r.OK {
		t.Fatalf("remove: %+v", r.Error)
	}
	if code, _ := dev.waitClose(t); code != 4001 {
		t.Errorf("removed device's socket closed %d, want 4001", code)
	}
	if r := admin.call("device.pair.remove", map[string]any{"deviceId": key.id}); r.OK || r.Error.Message != "unknown deviceId" {
		t.Errorf("second remove: %+v", r.Error)
	}
	// Reject: the request is gone and the device still cannot connect.
	_, f = remoteConnect(t, ts.url, key)
	reqID, _ = f.Error.Details.(map[string]any)["requestId"].(string)
	r := admin.call("device.pair.reject", map[string]any{"requestId": reqID})
	if !r.OK {
		t.Fatalf("reject: %+v", r.Error)
	}
	if got := decode[map[string]string](t, r.Payload); got["requestId"] != reqID || got["deviceId"] != key.id {
		t.Errorf("reject answered %s, want its requestId and deviceId", r.Payload)
	}
	if r := admin.call("device.pair.reject", map[string]any{"requestId": reqID}); r.OK {
		t.Errorf("a second reject of the same request succeeded: %s", r.Payload)
	}
	if list = decode[pairingList](t, admin.call("device.pair.list", nil).Payload); len(list.Pending) != 0 {
		t.Errorf("pending after reject: %+v", list.Pending)
	}
}

// device.pair.* needs operator.pairing; a pairing-only approver cannot mint
// a node or a device with scopes it lacks.
func TestDevicePairScopes(t *testing.T) {
	ts := startServer(t, Options{})
	reader := dialConnected(t, ts.url, func(p map[string]any) { p["scopes"] = []string{"operator.read"} })
	if r := reader.call("device.pair.list", nil); r.OK || r.Error.Message != "missing scope: operator.pairing" {
		t.Errorf("reader: %+v", r.Error)
	}
	pairer := dialConnected(t, ts.url, func(p map[string]any) { p["scopes"] = []string{"operator.pairing", "operator.read"} })
	_, f := remoteConnect(t, ts.url, newDeviceKey(t), func(p map[string]any) { p["scopes"] = []string{"operator.admin"} })
	reqID, _ := f.Error.Details.(map[string]any)["requestId"].(string)
	if r := pairer.call("device.pair.approve", map[string]any{"requestId": reqID}); r.OK || r.Error.Message != "device pairing approval denied" {
		t.Errorf("pairing-only approver minted an admin device: %+v", r.Error)
	}
	_, f = remoteConnect(t, ts.url, newDeviceKey(t))
	reqID, _ = f.Error.Details.(map[string]any)["requestId"].(string)
	if r := pairer.call("device.pair.approve", map[string]any{"requestId": reqID}); !r.OK {
		t.Errorf("read-scoped request: %+v", r.Error)
	}
}

// Pending requests are capped per address and overall, and expire.
func TestPendingPairingsBounded(t *testing.T) {
	p := newPairingStore("")
	admit := func(ip string, now int64) {
		t.Helper()
		k := newDeviceKey(t)
		if dec, err := p.admit(k.id, "pk", protocol.RoleOperator, nil, protocol.ClientInfo{}, ip, false, now); err != nil || dec.ok {
			t.Fatalf("admit: %v %+v", err, dec)
		}
	}
	for i := 0; i < 3*maxPendingPerIP; i++ {
		admit("198.51.100.1", 1000+int64(i))
	}
	if n := len(p.list(2000).Pending); n != maxPendingPerIP {
		t.Errorf("one address holds %d pending, want %d", n, maxPendingPerIP)
	}
	for i := 0; i < 2*maxPending; i++ {
		admit(fmt.Sprintf("198.51.100.%d", 2+i%200), 3000+int64(i))
	}
	if n := len(p.list(4000).Pending); n != maxPending {
		t.Errorf("%d pending, want the cap %d", n, maxPending)
	}
	if n := len(p.list(3000 + 2*maxPending + pendingPairingTTL + 1).Pending); n != 0 {
		t.Errorf("%d pending after the TTL", n)
	}
}
