package nodehost

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/protocol"
)

// testGW is the gateway side of the node protocol on a real WebSocket
// (127.0.0.1): it verifies the node's Ed25519 device proof as a gateway
// must (§3.5), answers hello-ok, records every request the node makes, and
// lets a test send node.invoke.request events and wait for their results.
// Until our gateway serves node.* (branch nodes-gw) this is how the node
// host is driven in-process; the real-process tests use `openclaw serve`.
type testGW struct {
	t          testing.TB
	ln         net.Listener
	srv        *http.Server
	addr       string
	token      string
	mux        *http.ServeMux
	extraHello map[string]any

	mu       sync.Mutex
	conns    []*gwConn
	requests []gwRequest
	connects []json.RawMessage // connect params, one per connection
	results  map[string]chan json.RawMessage
	// reject, when set, refuses the next connects with this error.
	reject *protocol.ErrorShape
	// answer overrides the response to a node request (nil: ok {}).
	answer  func(method string, params json.RawMessage) (any, *protocol.ErrorShape)
	changed chan struct{}
	// deviceToken is issued in hello-ok.auth when set.
	deviceToken string
	// tlsCert makes it a wss:// gateway (set by newTestGWTLS).
	tlsCert *tls.Certificate
}

type gwRequest struct {
	Method string
	Params json.RawMessage
	At     time.Time
}

type gwConn struct {
	ws *websocket.Conn
	mu sync.Mutex
}

func (c *gwConn) send(v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

func newTestGW(t testing.TB, token string) *testGW {
	return newGW(t, token, nil)
}

// newTestGWTLS is a wss:// gateway with a fresh self-signed certificate;
// it returns the certificate's sha256 fingerprint (hex).
func newTestGWTLS(t testing.TB, token string) (*testGW, string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test gateway"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	return newGW(t, token, &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}), hex.EncodeToString(sum[:])
}

func newGW(t testing.TB, token string, cert *tls.Certificate) *testGW {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gw := &testGW{t: t, ln: ln, addr: ln.Addr().String(), token: token, results: map[string]chan json.RawMessage{},
		changed: make(chan struct{}), mux: http.NewServeMux(), tlsCert: cert}
	gw.start()
	t.Cleanup(gw.stop)
	return gw
}

func (gw *testGW) start() {
	up := websocket.Upgrader{}
	gw.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) {
			http.NotFound(w, r)
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		gw.serve(&gwConn{ws: ws})
	})
	gw.srv = &http.Server{Handler: gw.mux}
	if gw.tlsCert != nil {
		go gw.srv.Serve(tls.NewListener(gw.ln, &tls.Config{Certificates: []tls.Certificate{*gw.tlsCert}}))
		return
	}
	go gw.srv.Serve(gw.ln)
}

func (gw *testGW) stop() {
	gw.srv.Close()
	gw.mu.Lock()
	for _, c := range gw.conns {
		c.ws.Close()
	}
	gw.mu.Unlock()
}

// restart drops every connection and listens again on the same port
// after a pause (a gateway restart).
func (gw *testGW) restart(pause time.Duration) {
	gw.stop()
	time.Sleep(pause)
	ln, err := net.Listen("tcp", gw.addr)
	if err != nil {
		gw.t.Fatal(err)
	}
	gw.ln = ln
	gw.mux = http.NewServeMux()
	gw.start()
}

func (gw *testGW) port() int {
	_, p, _ := net.SplitHostPort(gw.addr)
	var n int
	fmt.Sscan(p, &n)
	return n
}

func (gw *testGW) notify() {
	gw.mu.Lock()
	close(gw.changed)
	gw.changed = make(chan struct{})
	gw.mu.Unlock()
}

func (gw *testGW) serve(c *gwConn) {
	defer c.ws.Close()
	nonce := uuid.NewString()
	ts := time.Now().UnixMilli()
	if err := c.send(map[string]any{"type": "event", "event": "connect.challenge", "payload": map[string]any{"nonce": nonce, "ts": ts}}); err != nil {
		return
	}
	_, data, err := c.ws.ReadMessage()
	if err != nil {
		return
	}
	req, err := protocol.DecodeRequest(data)
	if err != nil || req.Method != "connect" {
		return
	}
	var p protocol.ConnectParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		gw.t.Errorf("connect params: %v", err)
		return
	}
	gw.mu.Lock()
	gw.connects = append(gw.connects, req.Params)
	reject := gw.reject
	devTok := gw.deviceToken
	gw.mu.Unlock()
	gw.notify()
	if e := gw.verify(p, nonce, ts); e != nil {
		reject = e
	}
	if reject != nil {
		c.send(map[string]any{"type": "res", "id": req.ID, "ok": false, "error": reject})
		c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1008, reject.Message), time.Now().Add(time.Second))
		return
	}
	auth := map[string]any{"role": "node", "scopes": []string{}}
	if devTok != "" {
		auth["deviceToken"], auth["issuedAtMs"] = devTok, time.Now().UnixMilli()
	}
	hello := map[string]any{"type": "hello-ok", "protocol": 4,
		"server":   map[string]any{"version": "2026.9.6", "connId": uuid.NewString()},
		"features": map[string]any{"methods": []string{"node.invoke.result", "node.event"}, "events": []string{"node.invoke.request"}},
		"snapshot": map[string]any{"presence": []any{}, "health": map[string]any{}, "stateVersion": map[string]any{"presence": 0, "health": 0}, "uptimeMs": 1},
		"auth":     auth,
		"policy":   map[string]any{"maxPayload": protocol.MaxPayload, "maxBufferedBytes": 52428800, "tickIntervalMs": 30000}}
	for k, v := range gw.extraHello {
		hello[k] = v
	}
	if err := c.send(map[string]any{"type": "res", "id": req.ID, "ok": true, "payload": hello}); err != nil {
		return
	}
	gw.mu.Lock()
	gw.conns = append(gw.conns, c)
	gw.mu.Unlock()
	gw.notify()
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			gw.mu.Lock()
			for i, x := range gw.conns {
				if x == c {
					gw.conns = append(gw.conns[:i], gw.conns[i+1:]...)
					break
				}
			}
			gw.mu.Unlock()
			gw.notify()
			return
		}
		r, err := protocol.DecodeRequest(data)
		if err != nil {
			gw.t.Errorf("node sent a non-request frame: %s", data)
			continue
		}
		gw.mu.Lock()
		gw.requests = append(gw.requests, gwRequest{Method: r.Method, Params: r.Params, At: time.Now()})
		answer := gw.answer
		var ch chan json.RawMessage
		if r.Method == "node.invoke.result" {
			var res struct {
				ID string `json:"id"`
			}
			json.Unmarshal(r.Params, &res)
			ch = gw.results[res.ID]
		}
		gw.mu.Unlock()
		gw.notify()
		if ch != nil {
			ch <- r.Params
		}
		var payload any = map[string]any{"ok": true}
		var rerr *protocol.ErrorShape
		if answer != nil {
			if p, e := answer(r.Method, r.Params); p != nil || e != nil {
				payload, rerr = p, e
			}
		}
		if rerr != nil {
			c.send(map[string]any{"type": "res", "id": r.ID, "ok": false, "error": rerr})
		} else {
			c.send(map[string]any{"type": "res", "id": r.ID, "ok": true, "payload": payload})
		}
	}
}

// verify checks the device proof as a gateway does: id = sha256(key),
// nonce and signedAt from the challenge, a v3 signature over the fields.
func (gw *testGW) verify(p protocol.ConnectParams, nonce string, ts int64) *protocol.ErrorShape {
	bad := func(code, msg string) *protocol.ErrorShape {
		return protocol.NewError(protocol.ErrInvalidRequest, msg, map[string]any{"code": code})
	}
	d := p.Device
	if d == nil {
		return protocol.NewError(protocol.ErrNotPaired, "device identity required", map[string]any{"code": protocol.DetailDeviceIdentityRequired})
	}
	pub, err := protocol.DecodePublicKey(d.PublicKey)
	if err != nil {
		return bad(protocol.DetailDevicePubKeyInvalid, "device public key invalid")
	}
	if protocol.DeviceIDFromPublicKey(pub) != d.ID {
		return bad(protocol.DetailDeviceIDMismatch, "device identity mismatch")
	}
	if d.Nonce != nonce || d.SignedAt != ts {
		return bad(protocol.DetailDeviceNonceMismatch, "device nonce mismatch")
	}
	tok := ""
	if p.Auth != nil {
		tok = p.Auth.Token
		if tok == "" {
			tok = p.Auth.DeviceToken
		}
	}
	f := protocol.DeviceAuthFields{DeviceID: d.ID, ClientID: p.Client.ID, ClientMode: p.Client.Mode, Role: p.Role,
		Scopes: p.Scopes, SignedAtMs: d.SignedAt, Token: tok, Nonce: d.Nonce, Platform: p.Client.Platform, DeviceFamily: p.Client.DeviceFamily}
	if _, ok := protocol.VerifyDeviceSignature(pub, f, d.Signature); !ok {
		return bad(protocol.DetailDeviceSigInvalid, "device signature invalid")
	}
	if gw.token != "" {
		switch {
		case p.Auth == nil || (p.Auth.Token == "" && p.Auth.DeviceToken == ""):
			return protocol.NewError(protocol.ErrInvalidRequest, "unauthorized: gateway token missing", map[string]any{"code": "AUTH_TOKEN_MISSING"})
		case p.Auth.Token != "" && p.Auth.Token != gw.token:
			return protocol.NewError(protocol.ErrInvalidRequest, "unauthorized: gateway token mismatch", map[string]any{"code": "AUTH_TOKEN_MISMATCH"})
		case p.Auth.Token == "" && p.Auth.DeviceToken != gw.deviceToken:
			return protocol.NewError(protocol.ErrInvalidRequest, "unauthorized: device token mismatch", map[string]any{"code": "AUTH_DEVICE_TOKEN_MISMATCH"})
		}
	}
	return nil
}

// waitFor waits until cond holds (checked on every change), up to 30 s.
func (gw *testGW) waitFor(what string, cond func() bool) {
	gw.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		gw.mu.Lock()
		ok := cond()
		ch := gw.changed
		gw.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			gw.t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func (gw *testGW) connected() int {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	return len(gw.conns)
}

// invoke sends node.invoke.request and waits for node.invoke.result.
func (gw *testGW) invoke(command string, params any, timeoutMs int64) invokeResult {
	gw.t.Helper()
	id := uuid.NewString()
	ch := make(chan json.RawMessage, 1)
	gw.mu.Lock()
	gw.results[id] = ch
	var c *gwConn
	if len(gw.conns) > 0 {
		c = gw.conns[len(gw.conns)-1]
	}
	gw.mu.Unlock()
	if c == nil {
		gw.t.Fatal("no node connected")
	}
	var pj any
	if params != nil {
		b, _ := json.Marshal(params)
		pj = string(b)
	}
	ev := map[string]any{"id": id, "nodeId": "n", "command": command, "paramsJSON": pj, "timeoutMs": timeoutMs, "idempotencyKey": uuid.NewString()}
	if err := c.send(map[string]any{"type": "event", "event": "node.invoke.request", "payload": ev}); err != nil {
		gw.t.Fatal(err)
	}
	select {
	case raw := <-ch:
		var r invokeResult
		if err := json.Unmarshal(raw, &r); err != nil {
			gw.t.Fatal(err)
		}
		r.raw = raw
		return r
	case <-time.After(60 * time.Second):
		gw.t.Fatalf("no node.invoke.result for %s", command)
	}
	return invokeResult{}
}

// event sends an event to the newest connection.
func (gw *testGW) event(name string, payload any) {
	gw.mu.Lock()
	c := gw.conns[len(gw.conns)-1]
	gw.mu.Unlock()
	c.send(map[string]any{"type": "event", "event": name, "payload": payload})
}

type invokeResult struct {
	ID          string     `json:"id"`
	NodeID      string     `json:"nodeId"`
	OK          bool       `json:"ok"`
	PayloadJSON *string    `json:"payloadJSON"`
	Error       *nodeError `json:"error"`
	raw         json.RawMessage
}

func (r invokeResult) payload(t testing.TB) map[string]any {
	t.Helper()
	if !r.OK || r.PayloadJSON == nil {
		t.Fatalf("invoke failed: %s", r.raw)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(*r.PayloadJSON), &m); err != nil {
		t.Fatalf("payloadJSON is not a JSON object: %s", *r.PayloadJSON)
	}
	return m
}

func (gw *testGW) requestsOf(method string) []gwRequest {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	var out []gwRequest
	for _, r := range gw.requests {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// runHost starts a node host against gw; the returned stop ends it and
// returns Run's error.
func runHost(t testing.TB, o Options) (*Host, func() error) {
	t.Helper()
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(30 * time.Second):
				t.Error("node host did not stop")
			}
		})
		return runErr
	}
	t.Cleanup(func() { stop() })
	return h, stop
}

func hostOptions(t testing.TB, gw *testGW) Options {
	return Options{Host: "127.0.0.1", Port: gw.port(), Token: gw.token, StateDir: t.TempDir(), Version: "test",
		Workdir: t.TempDir(), Log: &testLog{t: t}}
}

type testLog struct {
	t  testing.TB
	mu sync.Mutex
	b  strings.Builder
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	return len(p), nil
}

func (l *testLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
