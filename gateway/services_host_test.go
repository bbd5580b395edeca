package gateway

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// A throwaway family as the ones to come (nodes, canvas) use the gateway:
// test.zz.base is a dependency; test.aa.host requires it (its name sorts
// first, so only the declared dependency puts it second), owns a migration
// family and a typed repository, serves a route and a WebSocket upgrade
// behind the gateway's auth, and sends events to one connection by id.

// hostLog records, per gateway (its state dir), what the test services saw.
var hostLog = struct {
	sync.Mutex
	events map[string][]string
}{events: map[string][]string{}}

func logHost(dir, ev string) {
	hostLog.Lock()
	defer hostLog.Unlock()
	hostLog.events[dir] = append(hostLog.events[dir], ev)
}

func hostEvents(dir string) []string {
	hostLog.Lock()
	defer hostLog.Unlock()
	return append([]string(nil), hostLog.events[dir]...)
}

type baseSvc struct{ dir string }

func (b *baseSvc) Start(context.Context) error { logHost(b.dir, "start test.zz.base"); return nil }
func (b *baseSvc) Stop(context.Context) error  { logHost(b.dir, "stop test.zz.base"); return nil }

// Greeting is the base service's one feature its dependent uses.
func (b *baseSvc) Greeting() string { return "hello from base" }

// notesRepo is the family's typed repository over its own table.
type notesRepo struct{ db *sql.DB }

func (r notesRepo) put(ctx context.Context, name, text string) error {
	_, err := r.db.ExecContext(ctx, `INSERT INTO test_host_notes(name, text) VALUES(?, ?)
		ON CONFLICT(name) DO UPDATE SET text = excluded.text`, name, text)
	return err
}

func (r notesRepo) get(ctx context.Context, name string) (string, error) {
	var text string
	err := r.db.QueryRowContext(ctx, `SELECT text FROM test_host_notes WHERE name = ?`, name).Scan(&text)
	return text, err
}

type hostSvc struct {
	env   *tools.Env
	base  *baseSvc
	notes notesRepo
	mu    sync.Mutex
	gone  map[string]<-chan struct{} // connections sent to → their Closed channel
}

var (
	baseKey = tools.NewServiceKey[*baseSvc]("test.zz.base")
	hostKey = tools.NewServiceKey[*hostSvc]("test.aa.host")
)

func (h *hostSvc) Start(ctx context.Context) error {
	logHost(h.env.StateDir, "start test.aa.host")
	return h.notes.put(ctx, "greeting", h.base.Greeting())
}

func (h *hostSvc) Stop(context.Context) error {
	logHost(h.env.StateDir, "stop test.aa.host")
	return nil
}

func newHostSvc(env *tools.Env) (*hostSvc, error) {
	base, err := baseKey.From(env, "test.aa.host")
	if err != nil {
		return nil, err
	}
	var seen []string
	for name := range env.Services {
		seen = append(seen, name)
	}
	logHost(env.StateDir, fmt.Sprintf("new test.aa.host sees %v", seen))
	st, err := env.NeedStore("test.aa.host")
	if err != nil {
		return nil, err
	}
	h := &hostSvc{env: env, base: base, notes: notesRepo{st.DB()}, gone: map[string]<-chan struct{}{}}
	routes, err := env.NeedRoutes("test.aa.host")
	if err != nil {
		return nil, err
	}
	if err := routes.Handle("GET /__openclaw__/test-host/notes/{name}", protocol.ScopeRead, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		text, err := h.notes.get(r.Context(), r.PathValue("name"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"text": text})
	})); err != nil {
		return nil, err
	}
	up := websocket.Upgrader{}
	if err := routes.HandleUpgrade("/__openclaw__/test-host/live", protocol.ScopeRead, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		_ = ws.WriteMessage(websocket.TextMessage, []byte("live reload"))
	})); err != nil {
		return nil, err
	}
	// A second registration of the same pattern is an error, not a panic.
	if err := routes.Handle("GET /__openclaw__/test-host/notes/{name}", protocol.ScopeRead, http.NotFoundHandler()); err == nil {
		return nil, fmt.Errorf("duplicate route accepted")
	}
	return h, nil
}

func init() {
	tools.RegisterService(baseKey.Spec(func(env *tools.Env) (*baseSvc, error) { return &baseSvc{dir: env.StateDir}, nil }))
	spec := hostKey.Spec(newHostSvc)
	spec.Requires = []string{baseKey.Name()}
	spec.Migrations = []tools.Migration{{Version: 1, Name: "notes", Up: tools.ExecMigration(
		`CREATE TABLE test_host_notes (name TEXT PRIMARY KEY, text TEXT NOT NULL) STRICT`)}}
	tools.RegisterService(spec)

	// test.host.send {to, event}: a targeted event to one connection.
	tools.Register(&tools.Action{Method: "test.host.send", Scope: protocol.ScopeRead, Where: tools.Gateway,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			h, err := hostKey.From(env, "test.host.send")
			if err != nil {
				return nil, err
			}
			conns, err := env.NeedConns("test.host.send")
			if err != nil {
				return nil, err
			}
			to, event := gjson.GetBytes(params, "to").Str, gjson.GetBytes(params, "event").Str
			if to == "" {
				to = env.ConnID
			}
			if err := conns.Send(to, event, map[string]string{"from": env.ConnID}); err != nil {
				return nil, err
			}
			h.mu.Lock()
			h.gone[to] = conns.Closed(to)
			h.mu.Unlock()
			return map[string]any{"sent": to}, nil
		}})
	// test.host.closed {connId}: waits until that connection has closed.
	tools.Register(&tools.Action{Method: "test.host.closed", Scope: protocol.ScopeRead, Where: tools.Gateway,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			h, err := hostKey.From(env, "test.host.closed")
			if err != nil {
				return nil, err
			}
			h.mu.Lock()
			ch := h.gone[gjson.GetBytes(params, "connId").Str]
			h.mu.Unlock()
			if ch == nil {
				return nil, tools.Errorf(tools.CodeNotFound, "never sent to that connection")
			}
			select {
			case <-ch:
				return map[string]any{"closed": true}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
}

func connID(t *testing.T, c *tclient) string {
	t.Helper()
	id := gjson.GetBytes(c.hello, "server.connId").Str
	if id == "" {
		t.Fatalf("no connId in hello: %s", c.hello)
	}
	return id
}

// The done-when: a throwaway service with a dependency, a
// migration, a route and a targeted send is started in order, migrated,
// served behind auth, and delivers to one connection only.
func TestServiceHost(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := context.Background()

	// Started in dependency order; the constructor saw only its dependency.
	ev := hostEvents(ts.dir)
	if strings.Join(ev, "|") != "start test.zz.base|new test.aa.host sees [test.zz.base]|start test.aa.host" {
		t.Fatalf("start: %q", ev)
	}

	// Migrated under its own family, and its repository works.
	if v, err := ts.s.db.FamilyVersion(ctx, "test.aa.host"); err != nil || v != 1 {
		t.Fatalf("family version %d, %v", v, err)
	}

	// Its route is behind the gateway's auth.
	url := ts.http + "/__openclaw__/test-host/notes/greeting"
	if code, body := httpGet(t, http.MethodGet, url); code != http.StatusUnauthorized || !strings.Contains(body, "unauthorized") {
		t.Fatalf("without auth: %d %s", code, body)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	_ = json.NewDecoder(res.Body).Decode(&got)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || got["text"] != "hello from base" {
		t.Fatalf("with auth: %d %v", res.StatusCode, got)
	}

	// Its own WebSocket upgrade is not the gateway protocol, and needs auth too.
	live := strings.Replace(ts.url, "/", "", 0) + "__openclaw__/test-host/live"
	if _, resp, err := websocket.DefaultDialer.Dial(live, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("upgrade without auth: %v %v", resp, err)
	}
	ws, _, err := websocket.DefaultDialer.Dial(live, http.Header{"Authorization": {"Bearer " + testToken}})
	if err != nil {
		t.Fatal(err)
	}
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, msg, err := ws.ReadMessage(); err != nil || string(msg) != "live reload" {
		t.Fatalf("service socket: %q %v", msg, err)
	}
	ws.Close()

	// A targeted event reaches exactly one of two connected clients.
	a, b := dialConnected(t, ts.url), dialConnected(t, ts.url)
	if f := a.call("test.host.send", map[string]any{"to": connID(t, b), "event": "test.host.ping"}); !f.OK {
		t.Fatalf("send: %+v", f.Error)
	}
	got1 := b.nextEvent(t, "test.host.ping", 10*time.Second)
	if gjson.GetBytes(got1.Payload, "from").Str != connID(t, a) || got1.Seq != nil {
		t.Fatalf("b got %+v", got1)
	}
	// a sends itself a marker: had the ping gone to a too, it would come first.
	if f := a.call("test.host.send", map[string]any{"event": "test.host.marker"}); !f.OK {
		t.Fatalf("marker: %+v", f.Error)
	}
	for done := false; !done; {
		select {
		case raw := <-a.events:
			switch gjson.GetBytes(raw, "event").Str {
			case "test.host.ping":
				t.Fatalf("the targeted event reached the other client too: %s", raw)
			case "test.host.marker":
				done = true
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no marker")
		}
	}

	// The service learns when its target closes; sending to it then fails.
	bID := connID(t, b)
	b.close()
	if f := a.call("test.host.closed", map[string]any{"connId": bID}); !f.OK {
		t.Fatalf("closed: %+v", f.Error)
	}
	if f := a.call("test.host.send", map[string]any{"to": bID, "event": "test.host.ping"}); f.OK || !strings.Contains(f.Error.Message, "no connected client") {
		t.Fatalf("send to a closed connection: %+v", f)
	}

	// Stopped in reverse order.
	ts.stop()
	ev = hostEvents(ts.dir)
	if tail := strings.Join(ev[len(ev)-2:], "|"); tail != "stop test.aa.host|stop test.zz.base" {
		t.Fatalf("stop: %q", ev)
	}
}

// A cycle or a missing dependency stops the gateway at start, naming the
// services, before anything is started.
func TestServiceDependencyErrorsAtStart(t *testing.T) {
	noop := func(*tools.Env) (tools.Service, error) { return &baseSvc{}, nil }
	for _, tc := range []struct {
		specs []tools.ServiceSpec
		want  string
	}{
		{[]tools.ServiceSpec{{Name: "cron", Requires: []string{"nodes"}, New: noop}},
			"gateway services: cron requires nodes, which is not registered"},
		{[]tools.ServiceSpec{{Name: "a", Requires: []string{"b"}, New: noop}, {Name: "b", Requires: []string{"a"}, New: noop}},
			"gateway services: dependency cycle: a -> b -> a"},
	} {
		dir := t.TempDir()
		s, err := New(Options{Token: testToken, Version: "test", ConfigPollInterval: -1,
			Paths:  config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")},
			Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		s.specs = tc.specs
		if err := s.Serve(context.Background()); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
		s.closeState()
	}
}
