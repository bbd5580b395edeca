package gateway

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"github.com/google/uuid"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/protocol"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestHandshakeHappyPath(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.url)
	if !uuidV4.MatchString(c.challenge.Nonce) {
		t.Errorf("challenge nonce %q is not a uuid v4", c.challenge.Nonce)
	}
	if d := time.Now().UnixMilli() - c.challenge.TS; d < 0 || d > 5000 {
		t.Errorf("challenge ts %d is not now", c.challenge.TS)
	}
	f := c.connect(connectParams())
	if !f.OK || f.Error != nil {
		t.Fatalf("connect: %+v", f.Error)
	}
	var h map[string]any
	if err := json.Unmarshal(f.Payload, &h); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"type", "protocol", "server", "features", "snapshot", "auth", "policy"} {
		if _, ok := h[k]; !ok {
			t.Errorf("hello-ok lacks %s", k)
		}
	}
	hello := decode[struct {
		Type     string `json:"type"`
		Protocol int    `json:"protocol"`
		Server   struct {
			Version, BuildID, ConnID, BootID string
		} `json:"server"`
		Features struct {
			Methods      []string  `json:"methods"`
			Events       []string  `json:"events"`
			Capabilities *[]string `json:"capabilities"`
		} `json:"features"`
		Snapshot struct {
			Presence        []protocol.PresenceEntry `json:"presence"`
			Health          map[string]any           `json:"health"`
			StateVersion    *protocol.StateVersion   `json:"stateVersion"`
			UptimeMs        *int64                   `json:"uptimeMs"`
			SessionDefaults map[string]string        `json:"sessionDefaults"`
			AuthMode        string                   `json:"authMode"`
		} `json:"snapshot"`
		Auth   protocol.HelloAuth `json:"auth"`
		Policy protocol.Policy    `json:"policy"`
	}](t, f.Payload)
	if hello.Type != "hello-ok" || hello.Protocol != 4 {
		t.Errorf("type/protocol = %q/%d", hello.Type, hello.Protocol)
	}
	if hello.Server.Version != CompatibleVersion || hello.Server.BuildID != "test" || !uuidV4.MatchString(hello.Server.ConnID) || hello.Server.BootID == "" {
		t.Errorf("server = %+v", hello.Server)
	}
	for _, m := range []string{"health", "status", "system-presence", "last-heartbeat", "set-heartbeats", "logs.tail",
		"config.get", "config.set", "config.patch", "config.apply", "config.schema", "config.schema.lookup",
		"tools.catalog", "tools.effective", "tools.invoke", "agents.list", "models.list", "channels.status"} {
		if !slices.Contains(hello.Features.Methods, m) {
			t.Errorf("features.methods lacks %s", m)
		}
	}
	if slices.Contains(hello.Features.Methods, "connect") {
		t.Errorf("connect must not be advertised")
	}
	for _, e := range []string{"connect.challenge", "tick", "presence", "shutdown", "health", "config.changed"} {
		if !slices.Contains(hello.Features.Events, e) {
			t.Errorf("features.events lacks %s", e)
		}
	}
	if hello.Features.Capabilities == nil || !slices.Equal(*hello.Features.Capabilities, []string{"published-model-catalog"}) {
		t.Errorf("capabilities = %v", hello.Features.Capabilities)
	}
	sn := hello.Snapshot
	if len(sn.Presence) < 1 || sn.Presence[0].Mode != "gateway" || sn.Presence[0].Reason != "self" {
		t.Errorf("presence = %+v", sn.Presence)
	}
	if sn.Health == nil || sn.Health["ok"] != true || sn.StateVersion == nil || sn.UptimeMs == nil {
		t.Errorf("snapshot health/stateVersion/uptime = %v %v %v", sn.Health, sn.StateVersion, sn.UptimeMs)
	}
	if sn.SessionDefaults["defaultAgentId"] != "main" || sn.SessionDefaults["mainKey"] != "main" ||
		sn.SessionDefaults["mainSessionKey"] != "agent:main:main" {
		t.Errorf("sessionDefaults = %v", sn.SessionDefaults)
	}
	if sn.AuthMode != "token" {
		t.Errorf("authMode = %q", sn.AuthMode)
	}
	if hello.Auth.Method != "token" || hello.Auth.Role != "operator" || !slices.Equal(hello.Auth.Scopes, []string{"operator.admin"}) {
		t.Errorf("auth = %+v", hello.Auth)
	}
	if hello.Policy != (protocol.Policy{MaxPayload: 26214400, MaxBufferedBytes: 52428800, TickIntervalMs: 30000}) {
		t.Errorf("policy = %+v", hello.Policy)
	}
	// The connect is followed by a presence broadcast with seq 1.
	ev := c.nextEvent(t, "presence", 2*time.Second)
	if ev.Seq == nil || *ev.Seq != 1 || ev.StateVersion == nil {
		t.Errorf("presence event seq/stateVersion = %v/%v", ev.Seq, ev.StateVersion)
	}
	// And the connection serves requests.
	if r := c.call("health", nil); !r.OK {
		t.Errorf("health: %+v", r.Error)
	}
}

func TestConnectErrors(t *testing.T) {
	ts := startServer(t, Options{})
	cases := []struct {
		name        string
		params      map[string]any
		code        string
		message     string
		detail      string
		closeCode   int
		closeReason string
	}{
		{
			name:    "wrong token",
			params:  connectParams(func(p map[string]any) { p["auth"] = map[string]any{"token": "nope"} }),
			code:    "INVALID_REQUEST",
			message: "unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)",
			detail:  "AUTH_TOKEN_MISMATCH", closeCode: 1008,
		},
		{
			name:   "no auth and no device",
			params: connectParams(func(p map[string]any) { delete(p, "auth") }),
			code:   "NOT_PAIRED", message: "device identity required",
			detail: "DEVICE_IDENTITY_REQUIRED", closeCode: 1008,
		},
		{
			name: "node without device",
			params: connectParams(func(p map[string]any) {
				p["role"], p["scopes"], p["minProtocol"] = "node", []string{}, 3
				p["client"] = map[string]any{"id": "node-host", "version": "1", "platform": "linux", "mode": "node"}
			}),
			code: "NOT_PAIRED", message: "device identity required", detail: "DEVICE_IDENTITY_REQUIRED", closeCode: 1008,
		},
		{
			name:   "protocol mismatch",
			params: connectParams(func(p map[string]any) { p["minProtocol"], p["maxProtocol"] = 5, 6 }),
			code:   "INVALID_REQUEST", message: "protocol mismatch", detail: "PROTOCOL_MISMATCH",
			closeCode: 1002, closeReason: "protocol mismatch",
		},
		{
			name:   "bad params",
			params: connectParams(func(p map[string]any) { delete(p, "client") }),
			code:   "INVALID_REQUEST", message: "invalid connect params: must have required property 'client'",
			closeCode: 1008,
		},
		{
			name:   "worker role",
			params: connectParams(func(p map[string]any) { p["role"] = "worker" }),
			code:   "INVALID_REQUEST", message: `invalid connect params: /role must be "operator" or "node"`,
			closeCode: 1008,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, ts.url)
			f := c.call("connect", tc.params)
			if f.OK || f.Error == nil {
				t.Fatalf("connect succeeded")
			}
			if f.Error.Code != tc.code || f.Error.Message != tc.message {
				t.Errorf("error = %s %q, want %s %q", f.Error.Code, f.Error.Message, tc.code, tc.message)
			}
			if tc.detail != "" {
				d, _ := f.Error.Details.(map[string]any)
				if d["code"] != tc.detail {
					t.Errorf("details = %v, want code %s", f.Error.Details, tc.detail)
				}
			}
			code, reason := c.waitClose(t)
			want := tc.closeReason
			if want == "" {
				want = protocol.TruncateCloseReason(tc.message)
			}
			if code != tc.closeCode || reason != want {
				t.Errorf("close = %d %q, want %d %q", code, reason, tc.closeCode, want)
			}
		})
	}
}

func TestProtocolMismatchDetails(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.url)
	f := c.call("connect", connectParams(func(p map[string]any) { p["minProtocol"], p["maxProtocol"] = 1, 3 }))
	d, _ := f.Error.Details.(map[string]any)
	if d["expectedProtocol"] != 4.0 || d["clientMinProtocol"] != 1.0 || d["clientMaxProtocol"] != 3.0 || d["minimumProbeProtocol"] != 3.0 {
		t.Errorf("details = %v", d)
	}
	// A probe may use 3..3 and is served protocol 3.
	p := dial(t, ts.url)
	r := p.connect(connectParams(func(p map[string]any) {
		p["minProtocol"], p["maxProtocol"] = 3, 3
		p["client"] = map[string]any{"id": "cli", "version": "dev", "platform": "linux", "mode": "probe"}
	}))
	if !r.OK || decode[protocol.HelloOK](t, r.Payload).Protocol != 3 {
		t.Errorf("probe at 3: %+v %s", r.Error, r.Payload)
	}
}

func TestAuthModes(t *testing.T) {
	t.Run("password in token field", func(t *testing.T) {
		ts := startServer(t, Options{AuthMode: "password", Password: "pw"})
		c := dial(t, ts.url)
		if f := c.connect(connectParams(func(p map[string]any) { p["auth"] = map[string]any{"token": "pw"} })); !f.OK {
			t.Fatalf("password via auth.token: %+v", f.Error)
		}
		c2 := dial(t, ts.url)
		f := c2.call("connect", connectParams(func(p map[string]any) { p["auth"] = map[string]any{"password": "x"} }))
		if f.OK || f.Error.Message != "unauthorized: gateway password mismatch (use this gateway's gateway.auth.password)" {
			t.Errorf("mismatch: %+v", f.Error)
		}
	})
	t.Run("none", func(t *testing.T) {
		ts := startServer(t, Options{AuthMode: "none"})
		c := dial(t, ts.url)
		f := c.connect(connectParams(func(p map[string]any) { delete(p, "auth") }))
		if !f.OK || decode[protocol.HelloOK](t, f.Payload).Auth.Method != "none" {
			t.Fatalf("auth none: %+v", f.Error)
		}
	})
	t.Run("non-loopback without auth refused", func(t *testing.T) {
		_, err := New(Options{Bind: "lan", AuthMode: "none", Getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), "without auth") {
			t.Errorf("New(lan, none) = %v", err)
		}
		if _, err := New(Options{Bind: "lan", Token: "x", Getenv: func(string) string { return "" }}); err != nil {
			t.Errorf("New(lan, token) = %v", err)
		}
	})
}

func TestScopesWithoutDevice(t *testing.T) {
	ts := startServer(t, Options{})
	// A device-less non-CLI client keeps no scopes: health only.
	c := dial(t, ts.url)
	f := c.connect(connectParams(func(p map[string]any) {
		p["client"] = map[string]any{"id": "test", "version": "1", "platform": "linux", "mode": "test"}
	}))
	if !f.OK {
		t.Fatal(f.Error)
	}
	if s := decode[protocol.HelloOK](t, f.Payload).Auth.Scopes; s == nil || len(s) != 0 {
		t.Errorf("scopes = %v, want []", s)
	}
	if r := c.call("health", nil); !r.OK {
		t.Errorf("health with no scopes: %+v", r.Error)
	}
	if r := c.call("status", nil); r.OK || r.Error.Message != "missing scope: operator.read" {
		t.Errorf("status with no scopes: %+v", r.Error)
	}
	// The local backend client keeps its scopes.
	b := dialConnected(t, ts.url, func(p map[string]any) {
		p["client"] = map[string]any{"id": "gateway-client", "version": "1", "platform": "linux", "mode": "backend"}
		p["scopes"] = []string{"operator.read"}
	})
	if r := b.call("status", nil); !r.OK {
		t.Errorf("backend status: %+v", r.Error)
	}
}

func TestFirstFrameNotConnect(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.url)
	f := c.call("health", nil)
	if f.OK || f.Error.Code != "INVALID_REQUEST" || f.Error.Message != "invalid handshake: first request must be connect" {
		t.Fatalf("got %+v", f.Error)
	}
	if code, reason := c.waitClose(t); code != 1008 || reason != "invalid handshake: first request must be connect" {
		t.Errorf("close %d %q", code, reason)
	}
}

func TestGarbageBeforeConnect(t *testing.T) {
	ts := startServer(t, Options{})
	for _, tc := range []struct {
		name string
		mt   int
		data []byte
	}{
		{"text", websocket.TextMessage, []byte("hello there")},
		{"json not a request", websocket.TextMessage, []byte(`{"type":"event","event":"x"}`)},
		{"binary", websocket.BinaryMessage, []byte{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, ts.url)
			c.mu.Lock()
			_ = c.ws.WriteMessage(tc.mt, tc.data)
			c.mu.Unlock()
			if code, _ := c.waitClose(t); code != 1008 {
				t.Errorf("close code %d, want 1008", code)
			}
			select {
			case e := <-c.events:
				t.Errorf("unexpected frame %s", e)
			default:
			}
		})
	}
}

func TestGarbageAfterConnect(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	raw := func(mt int, data string) frame {
		// responses to garbage carry id "invalid" (or the frame's id)
		ch := make(chan frame, 1)
		c.mu.Lock()
		c.pending["invalid"] = ch
		c.pending["x1"] = ch
		_ = c.ws.WriteMessage(mt, []byte(data))
		c.mu.Unlock()
		select {
		case f := <-ch:
			c.mu.Lock()
			delete(c.pending, "invalid")
			delete(c.pending, "x1")
			c.mu.Unlock()
			return f
		case <-time.After(5 * time.Second):
			t.Fatalf("no response to %q", data)
		}
		return frame{}
	}
	f := raw(websocket.TextMessage, "not json")
	if f.ID != "invalid" || f.Error.Code != "INVALID_REQUEST" || !strings.HasPrefix(f.Error.Message, "invalid request frame: ") {
		t.Errorf("garbage: %+v %+v", f, f.Error)
	}
	f = raw(websocket.TextMessage, `{"type":"req","id":"x1"}`)
	if f.ID != "x1" || f.Error.Message != "invalid request frame: method must be a non-empty string" {
		t.Errorf("no method: %+v %+v", f, f.Error)
	}
	f = raw(websocket.BinaryMessage, "\x00\x01")
	if f.ID != "invalid" || f.Error.Code != "INVALID_REQUEST" {
		t.Errorf("binary: %+v", f.Error)
	}
	if r := c.call("health", nil); !r.OK {
		t.Errorf("still serving: %+v", r.Error)
	}
}

func TestPreauthPayloadTooLarge(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.url)
	big := `{"type":"req","id":"1","method":"connect","params":{"pad":"` + strings.Repeat("x", 70*1024) + `"}}`
	c.mu.Lock()
	_ = c.ws.WriteMessage(websocket.TextMessage, []byte(big))
	c.mu.Unlock()
	if code, reason := c.waitClose(t); code != 1009 || reason != "preauth payload too large" {
		t.Errorf("close %d %q", code, reason)
	}
	// After hello the cap is 25 MiB: 100 KiB passes.
	c2 := dialConnected(t, ts.url)
	r := c2.call("test.counter", map[string]any{"pad": strings.Repeat("x", 100*1024)})
	if !r.OK {
		t.Errorf("post-auth: %+v", r.Error)
	}
}

func TestFramesQueuedDuringConnect(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.url)
	_, helloCh := c.send("connect", connectParams())
	var chans []chan frame
	for i := 0; i < 5; i++ {
		_, ch := c.send("health", nil)
		chans = append(chans, ch)
	}
	if f := <-helloCh; !f.OK {
		t.Fatalf("connect: %+v", f.Error)
	}
	for _, ch := range chans {
		select {
		case f := <-ch:
			if !f.OK {
				t.Errorf("queued health: %+v", f.Error)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("queued request not answered")
		}
	}
}

// deviceKey signs connect params like a real client (§3.5).
type deviceKey struct {
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
	id   string
}

func newDeviceKey(t *testing.T) deviceKey {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return deviceKey{pub, priv, protocol.DeviceIDFromPublicKey(pub)}
}

// sign adds a device block to p for challenge ch, with the v3 or v2 payload.
func (k deviceKey) sign(p map[string]any, ch protocol.Challenge, v3 bool) {
	client := p["client"].(map[string]any)
	str := func(m map[string]any, key string) string { s, _ := m[key].(string); return s }
	var scopes []string
	switch s := p["scopes"].(type) {
	case []string:
		scopes = s
	}
	token := ""
	if a, ok := p["auth"].(map[string]any); ok {
		token = str(a, "token")
	}
	f := protocol.DeviceAuthFields{
		DeviceID: k.id, ClientID: str(client, "id"), ClientMode: str(client, "mode"), Role: str(p, "role"),
		Scopes: scopes, SignedAtMs: ch.TS, Token: token, Nonce: ch.Nonce,
		Platform: str(client, "platform"), DeviceFamily: str(client, "deviceFamily"),
	}
	payload := protocol.DeviceAuthPayloadV2(f)
	if v3 {
		payload = protocol.DeviceAuthPayloadV3(f)
	}
	p["device"] = map[string]any{
		"id": k.id, "publicKey": base64.RawURLEncoding.EncodeToString(k.pub),
		"signature": base64.RawURLEncoding.EncodeToString(ed25519.Sign(k.priv, []byte(payload))),
		"signedAt":  ch.TS, "nonce": ch.Nonce,
	}
}

func nodeParams(p map[string]any) {
	p["role"], p["scopes"], p["minProtocol"] = "node", []string{}, 3
	p["client"] = map[string]any{"id": "node-host", "version": "2026.9.6", "platform": "Linux", "deviceFamily": " Linux ", "mode": "node"}
	p["commands"] = []string{"system.run", "system.which"}
}

func TestDeviceProof(t *testing.T) {
	ts := startServer(t, Options{})
	key := newDeviceKey(t)

	t.Run("v3 node", func(t *testing.T) {
		c := dial(t, ts.url)
		p := connectParams(nodeParams)
		key.sign(p, c.challenge, true)
		f := c.connect(p)
		if !f.OK {
			t.Fatalf("v3: %+v", f.Error)
		}
		h := decode[protocol.HelloOK](t, f.Payload)
		if h.Auth.Role != "node" || len(h.Auth.Scopes) != 0 || h.Protocol != 4 {
			t.Errorf("auth = %+v protocol %d", h.Auth, h.Protocol)
		}
		// Nodes may only call node methods (and health).
		if r := c.call("status", nil); r.OK || r.Error.Message != "unauthorized role: node" {
			t.Errorf("node status: %+v", r.Error)
		}
		if r := c.call("health", nil); !r.OK {
			t.Errorf("node health: %+v", r.Error)
		}
	})
	t.Run("v2 operator keeps scopes and is paired", func(t *testing.T) {
		c := dial(t, ts.url)
		p := connectParams(func(p map[string]any) {
			p["client"] = map[string]any{"id": "openclaw-tui", "version": "1", "platform": "linux", "mode": "ui"}
			p["scopes"] = []string{"operator.read", "operator.write"}
		})
		key.sign(p, c.challenge, false)
		f := c.connect(p)
		if !f.OK {
			t.Fatalf("v2: %+v", f.Error)
		}
		if s := decode[protocol.HelloOK](t, f.Payload).Auth.Scopes; !slices.Equal(s, []string{"operator.read", "operator.write"}) {
			t.Errorf("scopes = %v", s)
		}
		// Paired devices persist in the state database (issue 7).
		devs, err := ts.s.db.PairedDevices(context.Background())
		if err != nil || len(devs) != 1 || devs[0].DeviceID != key.id {
			t.Errorf("paired devices in the store: %v %+v", err, devs)
		}
	})
	bad := []struct {
		name   string
		mutate func(d map[string]any, ch protocol.Challenge)
		detail string
	}{
		{"bad signature", func(d map[string]any, ch protocol.Challenge) {
			d["signature"] = base64.RawURLEncoding.EncodeToString(make([]byte, 64))
		}, "DEVICE_AUTH_SIGNATURE_INVALID"},
		{"nonce mismatch", func(d map[string]any, ch protocol.Challenge) { d["nonce"] = uuid.NewString() }, "DEVICE_AUTH_NONCE_MISMATCH"},
		{"id mismatch", func(d map[string]any, ch protocol.Challenge) { d["id"] = strings.Repeat("a", 64) }, "DEVICE_AUTH_DEVICE_ID_MISMATCH"},
		{"expired", func(d map[string]any, ch protocol.Challenge) { d["signedAt"] = ch.TS - 200000 }, "DEVICE_AUTH_SIGNATURE_EXPIRED"},
		{"bad key", func(d map[string]any, ch protocol.Challenge) { d["publicKey"] = "!!" }, "DEVICE_AUTH_PUBLIC_KEY_INVALID"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, ts.url)
			p := connectParams(nodeParams)
			key.sign(p, c.challenge, true)
			tc.mutate(p["device"].(map[string]any), c.challenge)
			f := c.call("connect", p)
			if f.OK {
				t.Fatal("connect succeeded")
			}
			if d, _ := f.Error.Details.(map[string]any); f.Error.Code != "INVALID_REQUEST" || d["code"] != tc.detail {
				t.Errorf("error = %+v", f.Error)
			}
			if code, _ := c.waitClose(t); code != 1008 {
				t.Errorf("close %d", code)
			}
		})
	}
}
