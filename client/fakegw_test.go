package client

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/protocol"
)

// fakeGW is a small real WebSocket gateway on 127.0.0.1:0 speaking the
// handshake; tests customise it through the hooks before the first dial.
type fakeGW struct {
	t   testing.TB
	srv *httptest.Server
	url string

	// challenge returns the connect.challenge payload; nil → fresh nonce, now.
	challenge func(n int) any
	// beforeChallenge runs first; false ends the connection.
	beforeChallenge func(s *fakeSess) bool
	// skipChallenge(n) true → send nothing before the client's first frame.
	skipChallenge func(n int) bool
	// onConnect checks the connect frame; it returns a hello payload or a
	// rejection (then the socket closes with closeCode/closeReason).
	onConnect func(s *fakeSess, req *protocol.Request, ch map[string]any) (hello any, rej *protocol.ErrorShape, closeCode int, closeReason string)
	// afterHello runs once hello-ok is sent.
	afterHello func(s *fakeSess)
	// handle answers a request (each on its own goroutine); nil → default.
	handle func(s *fakeSess, req *protocol.Request)

	conns      atomic.Int32
	closeCodes chan int // close codes received from clients
}

type fakeSess struct {
	gw *fakeGW
	n  int // 1-based connection number
	ws *websocket.Conn
	mu sync.Mutex
}

func newFakeGW(t testing.TB) *fakeGW {
	gw := &fakeGW{t: t, closeCodes: make(chan int, 64)}
	up := websocket.Upgrader{}
	gw.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		s := &fakeSess{gw: gw, n: int(gw.conns.Add(1)), ws: ws}
		gw.serve(s)
	}))
	gw.url = "ws://" + strings.TrimPrefix(gw.srv.URL, "http://")
	t.Cleanup(gw.srv.Close)
	return gw
}

func (gw *fakeGW) serve(s *fakeSess) {
	var ch map[string]any
	if gw.beforeChallenge != nil && !gw.beforeChallenge(s) {
		for { // drain until the client answers the close
			if _, _, err := s.ws.ReadMessage(); err != nil {
				return
			}
		}
	}
	if gw.skipChallenge == nil || !gw.skipChallenge(s.n) {
		var payload any = map[string]any{"nonce": uuid.NewString(), "ts": time.Now().UnixMilli(), "capabilities": []string{"model-catalog-snapshot"}}
		if gw.challenge != nil {
			payload = gw.challenge(s.n)
		}
		b, _ := json.Marshal(payload)
		json.Unmarshal(b, &ch)
		s.send(map[string]any{"type": "event", "event": "connect.challenge", "payload": payload})
	}
	_, data, err := s.ws.ReadMessage()
	if err != nil {
		gw.noteClose(err)
		return
	}
	req, err := protocol.DecodeRequest(data)
	if err != nil || req.Method != "connect" {
		s.close(protocol.ClosePolicyViolation, "invalid handshake: first request must be connect")
		return
	}
	var hello any = defaultHello()
	var rej *protocol.ErrorShape
	var code int
	var reason string
	if gw.onConnect != nil {
		hello, rej, code, reason = gw.onConnect(s, req, ch)
	}
	if rej != nil {
		s.send(map[string]any{"type": "res", "id": req.ID, "ok": false, "error": rej})
		s.close(code, reason)
		return
	}
	s.send(map[string]any{"type": "res", "id": req.ID, "ok": true, "payload": hello})
	if gw.afterHello != nil {
		gw.afterHello(s)
	}
	for {
		_, data, err := s.ws.ReadMessage()
		if err != nil {
			gw.noteClose(err)
			return
		}
		req, err := protocol.DecodeRequest(data)
		if err != nil {
			continue
		}
		h := gw.handle
		if h == nil {
			h = defaultHandle
		}
		go h(s, req)
	}
}

func (gw *fakeGW) noteClose(err error) {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		select {
		case gw.closeCodes <- ce.Code:
		default:
		}
	}
}

func defaultHandle(s *fakeSess, req *protocol.Request) {
	switch req.Method {
	case "health":
		s.reply(req.ID, map[string]any{"ok": true, "ts": 1})
	case "echo":
		s.reply(req.ID, req.Params)
	default:
		s.fail(req.ID, protocol.ErrorShape{Code: protocol.ErrInvalidRequest, Message: "unknown method: " + req.Method})
	}
}

// defaultHello is a hello-ok with a few fields protocol.HelloOK does not
// model, to prove they are tolerated.
func defaultHello() map[string]any {
	return map[string]any{
		"type": "hello-ok", "protocol": 4,
		"server":       map[string]any{"version": "test", "connId": uuid.NewString(), "controlUiBuildSource": "bundled"},
		"features":     map[string]any{"methods": []string{"health", "echo"}, "events": []string{"tick"}, "capabilities": []string{}},
		"snapshot":     map[string]any{"presence": []any{}, "health": map[string]any{}, "stateVersion": map[string]any{"presence": 1, "health": 1}, "uptimeMs": 5, "suspension": map[string]any{"phase": "accepting"}},
		"auth":         map[string]any{"method": "token", "role": "operator", "scopes": []string{"operator.admin"}},
		"policy":       map[string]any{"maxPayload": protocol.MaxPayload, "maxBufferedBytes": protocol.MaxBufferedBytes, "tickIntervalMs": 30000, "attachments": map[string]any{"maxBytes": 1}},
		"controlUiUrl": "http://127.0.0.1/",
	}
}

func (s *fakeSess) send(v any) {
	b, _ := json.Marshal(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ws.WriteMessage(websocket.TextMessage, b)
}

func (s *fakeSess) reply(id string, payload any) {
	s.send(map[string]any{"type": "res", "id": id, "ok": true, "payload": payload})
}

func (s *fakeSess) fail(id string, e protocol.ErrorShape) {
	s.send(map[string]any{"type": "res", "id": id, "ok": false, "error": e})
}

func (s *fakeSess) event(name string, seq uint64, payload any) {
	s.send(map[string]any{"type": "event", "event": name, "seq": seq, "payload": payload})
}

// close sends a close frame and drops the socket shortly after.
func (s *fakeSess) close(code int, reason string) {
	s.mu.Lock()
	s.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	s.mu.Unlock()
	time.AfterFunc(200*time.Millisecond, func() { s.ws.Close() })
}
