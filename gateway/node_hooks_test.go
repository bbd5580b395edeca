package gateway

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// A throwaway service as the nodes and canvas families use the node
// hooks: it watches connections (tools.ConnWatcher) and, when its gateway's
// state dir holds "canvas-on", serves the canvas host's route, which turns
// hello-ok.canvasHostUrl on for nodes.

type watchSvc struct {
	env  *tools.Env
	mu   sync.Mutex
	seen []tools.ConnInfo
}

var watchKey = tools.NewServiceKey[*watchSvc]("test.watch")

var watchers = struct {
	sync.Mutex
	byDir map[string]*watchSvc
}{byDir: map[string]*watchSvc{}}

func init() {
	tools.RegisterService(watchKey.Spec(func(env *tools.Env) (*watchSvc, error) {
		w := &watchSvc{env: env}
		watchers.Lock()
		watchers.byDir[env.StateDir] = w
		watchers.Unlock()
		return w, nil
	}))
}

func (w *watchSvc) Start(context.Context) error {
	if _, err := os.Stat(filepath.Join(w.env.StateDir, "canvas-on")); err != nil {
		return nil
	}
	return w.env.Routes.Handle("GET "+canvasRoute, protocol.ScopeRead, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = rw.Write([]byte("canvas"))
	}))
}

func (w *watchSvc) Stop(context.Context) error { return nil }

func (w *watchSvc) ConnReady(info tools.ConnInfo) {
	w.mu.Lock()
	w.seen = append(w.seen, info)
	w.mu.Unlock()
}

func (w *watchSvc) infos() []tools.ConnInfo {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]tools.ConnInfo(nil), w.seen...)
}

func TestNodeHelloAndConnWatch(t *testing.T) {
	for _, canvas := range []bool{false, true} {
		dir := t.TempDir()
		if canvas {
			writeFile(t, filepath.Join(dir, "canvas-on"), "1")
		} else {
			// The canvas family (linked through tools/all) serves the canvas
			// host unless the config turns it off.
			writeFile(t, filepath.Join(dir, "openclaw.json"), `{"canvasHost":{"enabled":false}}`)
		}
		ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}})
		key := newDeviceKey(t)
		c := dial(t, ts.url)
		p := connectParams(nodeParams)
		p["permissions"] = map[string]bool{"screenRecording": true}
		p["pathEnv"] = "/usr/bin:/bin"
		key.sign(p, c.challenge, true)
		f := c.connect(p)
		if !f.OK {
			t.Fatalf("node connect: %+v", f.Error)
		}
		h := decode[protocol.HelloOK](t, f.Payload)
		want := ""
		if canvas {
			want = "http://" + ts.s.Addr()
		}
		if h.CanvasHostURL != want {
			t.Errorf("canvas %v: canvasHostUrl = %q, want %q", canvas, h.CanvasHostURL, want)
		}
		// An operator never gets it.
		op := dialConnected(t, ts.url)
		if h := decode[protocol.HelloOK](t, op.hello); h.CanvasHostURL != "" {
			t.Errorf("operator got canvasHostUrl %q", h.CanvasHostURL)
		}
		watchers.Lock()
		w := watchers.byDir[dir]
		watchers.Unlock()
		// ConnReady runs right after hello-ok is queued, before the node's
		// first request: a request the node sends finds it done.
		if r := c.call("health", nil); !r.OK {
			t.Fatalf("health: %+v", r.Error)
		}
		var node *tools.ConnInfo
		for _, info := range w.infos() {
			if info.Role == protocol.RoleNode {
				node = &info
			}
		}
		if node == nil || node.DeviceID != key.id || node.ConnID != h.Server.ConnID || !node.Local || node.PathEnv != "/usr/bin:/bin" ||
			!node.Permissions["screenRecording"] || len(node.Commands) != 2 || node.Client.ID != "node-host" {
			t.Fatalf("ConnReady saw %+v", node)
		}
		c.close()
		op.close()
	}
}

// gateway.nodes.pairing.autoApproveLocal: false makes a loopback device
// wait for approval like a remote one.
func TestAutoApproveLocalOff(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfg, `{gateway: {nodes: {pairing: {autoApproveLocal: false}}}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfg}})
	key := newDeviceKey(t)
	c := dial(t, ts.url)
	p := connectParams(nodeParams)
	key.sign(p, c.challenge, true)
	f := c.connect(p)
	if f.OK || f.Error.Code != protocol.ErrNotPaired {
		t.Fatalf("loopback node with autoApproveLocal=false: %+v", f)
	}
}
