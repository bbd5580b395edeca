package gateway

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// DNS rebinding (issue 30 item 6): the canvas host and its live-reload
// socket answer loopback without auth, and a page whose name was
// re-pointed at 127.0.0.1 reaches them from the user's own browser with
// its own name as Host. Such a request needs the gateway's auth; a
// loopback Host (or one with the token) is served as before. Before, the
// forged Host was served: 200 with the canvas page, 101 on the socket.
func TestLoopbackOpenRoutesRefuseForeignHost(t *testing.T) {
	ts := startServer(t, Options{})
	port := strconv.Itoa(ts.s.Port())
	t.Run("page", func(t *testing.T) { pageHostCheck(t, ts, port) })
	t.Run("live-reload", func(t *testing.T) { liveReloadHostCheck(t, ts, port) })
}

func pageHostCheck(t *testing.T, ts *testServer, port string) {
	get := func(host, token string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", ts.http+"/__openclaw__/canvas/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(b)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "localhost"} {
		if code, body := get(host, ""); code != 200 || !strings.Contains(body, "OpenClaw Canvas") {
			t.Fatalf("Host %s: %d, want the canvas page open on loopback", host, code)
		}
	}
	for _, host := range []string{"attacker.example:" + port, "attacker.example", "127.0.0.1.nip.io:" + port} {
		code, body := get(host, "")
		if code != http.StatusUnauthorized || !strings.Contains(body, "not a loopback name") || strings.Contains(body, "OpenClaw Canvas") {
			t.Fatalf("forged Host %s: %d %s, want 401 naming the Host", host, code, body)
		}
	}
	if code, body := get("attacker.example:"+port, testToken); code != 200 || !strings.Contains(body, "OpenClaw Canvas") {
		t.Fatalf("foreign Host with the gateway token: %d, want the page", code)
	}
}

func liveReloadHostCheck(t *testing.T, ts *testServer, port string) {
	ws := strings.Replace(ts.http, "http", "ws", 1) + "/__openclaw__/ws"
	c, resp, err := websocket.DefaultDialer.Dial(ws, http.Header{"Host": {"attacker.example:" + port}})
	if err == nil {
		c.Close()
		t.Fatal("the live-reload socket upgraded for a forged Host")
	}
	if resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("live reload with a forged Host: %v %v, want 401", err, resp)
	}
	c, _, err = websocket.DefaultDialer.Dial(ws, nil)
	if err != nil {
		t.Fatalf("live reload from loopback: %v", err)
	}
	c.Close()
}
