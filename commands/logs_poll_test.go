package commands

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
)

// pollOnlyGateway is a real WebSocket gateway that, like the original,
// serves logs.tail but not logs.follow: a log of lines with the line index
// as cursor.
type pollOnlyGateway struct {
	url   string
	mu    sync.Mutex
	lines []string
	polls int
}

func (g *pollOnlyGateway) add(line string) {
	g.mu.Lock()
	g.lines = append(g.lines, line)
	g.mu.Unlock()
}

func (g *pollOnlyGateway) pollCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.polls
}

func startPollOnlyGateway(t *testing.T) *pollOnlyGateway {
	g := &pollOnlyGateway{lines: []string{"first line"}}
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		var wmu sync.Mutex
		send := func(v any) {
			b, _ := json.Marshal(v)
			wmu.Lock()
			defer wmu.Unlock()
			_ = ws.WriteMessage(websocket.TextMessage, b)
		}
		send(map[string]any{"type": "event", "event": "connect.challenge", "payload": map[string]any{"nonce": "n", "ts": time.Now().UnixMilli()}})
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			req := gjson.ParseBytes(data)
			id := req.Get("id").Str
			switch req.Get("method").Str {
			case "connect":
				send(map[string]any{"type": "res", "id": id, "ok": true, "payload": map[string]any{
					"type": "hello-ok", "protocol": 4,
					"server":   map[string]any{"version": "2026.9.6", "connId": "c1"},
					"features": map[string]any{"methods": []string{"health", "logs.tail"}, "events": []string{"tick"}, "capabilities": []string{}},
					"snapshot": map[string]any{"presence": []any{}, "health": map[string]any{}, "stateVersion": map[string]any{"presence": 1, "health": 1}, "uptimeMs": 1},
					"auth":     map[string]any{"method": "token", "role": "operator", "scopes": []string{protocol.ScopeRead}},
					"policy":   map[string]any{"maxPayload": protocol.MaxPayload, "maxBufferedBytes": protocol.MaxBufferedBytes, "tickIntervalMs": 30000},
				}})
			case "logs.tail":
				g.mu.Lock()
				g.polls++
				from := 0
				if c := req.Get("params.cursor"); c.Exists() {
					from = int(c.Int())
				}
				from = min(from, len(g.lines))
				out := append([]string{}, g.lines[from:]...)
				cursor := len(g.lines)
				g.mu.Unlock()
				send(map[string]any{"type": "res", "id": id, "ok": true, "payload": map[string]any{
					"file": "/tmp/gw.log", "cursor": cursor, "size": cursor, "lines": out}})
			default:
				send(map[string]any{"type": "res", "id": id, "ok": false, "error": map[string]any{
					"code": "INVALID_REQUEST", "message": "unknown method: " + req.Get("method").Str}})
			}
		}
	}))
	t.Cleanup(srv.Close)
	g.url = "ws://" + strings.TrimPrefix(srv.URL, "http://")
	return g
}

// Against a gateway without logs.follow (the original), --follow polls
// logs.tail from the cursor it got: a line added later is printed once,
// nothing is printed twice, and Ctrl-C exits 130.
func TestLogsFollowPollsWithoutStream(t *testing.T) {
	g := startPollOnlyGateway(t)
	cmd := followCmd(t, "--interval", "20ms", "--url", g.url, "--token", "x")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(out)
	lines.waitLine(t, "first line", 10*time.Second)
	g.add("second line")
	lines.waitLine(t, "second line", 10*time.Second)
	// Two more polls after the new line: any re-print would show up.
	n := g.pollCount()
	deadline := time.Now().Add(10 * time.Second)
	for g.pollCount() < n+2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := procExitCode(t, cmd); code != 130 {
		t.Errorf("Ctrl-C: exit %d, want 130", code)
	}
	for l := range lines.lines {
		lines.seen.WriteString(l + "\n")
	}
	if got := lines.seen.String(); strings.Count(got, "first line") != 1 || strings.Count(got, "second line") != 1 {
		t.Errorf("each line once, got:\n%s", got)
	}
}
