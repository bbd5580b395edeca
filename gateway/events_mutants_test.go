package gateway

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
)

// These pin events.go lines that a one-line mutation (`make mutate`) could
// change with the other tests still passing (issue 17, item 20).

// A scoped broadcast reaches only operators holding its scope; an unscoped
// one reaches everyone. The reader sees the unscoped event that followed
// the approval one, and the approval one not before it.
func TestBroadcastHonoursEventScope(t *testing.T) {
	ts := startServer(t, Options{})
	admin := dialConnected(t, ts.url)
	reader := dialConnected(t, ts.url, func(p map[string]any) { p["scopes"] = []string{protocol.ScopeRead} })
	if err := ts.s.broadcast("exec.approval.requested", map[string]any{"id": "a1"}, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := ts.s.broadcast("update.available", map[string]any{"version": "x"}, nil, false); err != nil {
		t.Fatal(err)
	}
	if f := admin.nextEvent(t, "exec.approval.requested", 30*time.Second); gjson.GetBytes(f.Payload, "id").Str != "a1" {
		t.Errorf("admin: %s", f.Payload)
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case raw := <-reader.events:
			switch gjson.GetBytes(raw, "event").Str {
			case "exec.approval.requested":
				t.Fatalf("an operator without %s got an approval event: %s", protocol.ScopeApprovals, raw)
			case "update.available":
				return
			}
		case <-deadline:
			t.Fatal("the reader never got the unscoped event")
		}
	}
}

// A closed connection is forgotten by id as well (no map entry per past
// connection left behind).
func TestForgetDropsTheConnectionID(t *testing.T) {
	ts := startServer(t, Options{})
	for i := 0; i < 3; i++ {
		dialConnected(t, ts.url).close()
	}
	waitFor(t, 30*time.Second, func() bool {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		return len(ts.s.conns) == 0
	})
	ts.s.mu.Lock()
	n := len(ts.s.byID)
	ts.s.mu.Unlock()
	if n != 0 {
		t.Errorf("%d closed connections still listed by id", n)
	}
}

// Presence lists the gateway first, then clients oldest connection first.
func TestPresenceOldestFirst(t *testing.T) {
	ts := startServer(t, Options{})
	var ids []string
	for i := 0; i < 3; i++ {
		id := []string{"inst-a", "inst-b", "inst-c"}[i]
		c := dialConnected(t, ts.url, func(p map[string]any) {
			p["client"].(map[string]any)["instanceId"] = id
			if i == 1 {
				p["client"].(map[string]any)["displayName"] = "Desk"
			}
		})
		defer c.close()
		ids = append(ids, id)
		time.Sleep(3 * time.Millisecond) // distinct connectedAt (ms)
	}
	// Three token clients (no device identity) are three rows, each named
	// by its display name, else its client id.
	var got, hosts []string
	for _, e := range ts.s.presence()[1:] {
		got, hosts = append(got, e.InstanceID), append(hosts, e.Host)
	}
	want, _ := json.Marshal(ids)
	if b, _ := json.Marshal(got); string(b) != string(want) {
		t.Errorf("presence order %s, want %s", b, want)
	}
	if b, _ := json.Marshal(hosts); string(b) != `["cli","Desk","cli"]` {
		t.Errorf("presence hosts %s, want the client id unless a display name is given", b)
	}
}

func TestContainsStr(t *testing.T) {
	if !containsStr([]string{"operator", "node"}, "node") || containsStr([]string{"operator"}, "node") || containsStr(nil, "") {
		t.Error("containsStr")
	}
}

// At most MaxPreAuthPerIP sockets from one address wait unauthenticated;
// the next upgrade is refused with 503 until one of them goes.
func TestPreauthPerIPLimitExact(t *testing.T) {
	ts := startServer(t, Options{MaxPreAuthPerIP: 2})
	a, b := dial(t, ts.url), dial(t, ts.url)
	_, resp, err := websocket.DefaultDialer.Dial(ts.url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third unauthenticated socket: %v %v, want 503", err, resp)
	}
	a.close()
	_ = b
	waitFor(t, 30*time.Second, func() bool {
		ws, _, err := websocket.DefaultDialer.Dial(ts.url, nil)
		if err != nil {
			return false
		}
		ws.Close()
		return true
	})
}
