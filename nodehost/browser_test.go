package nodehost

import (
	"bytes"
	"encoding/base64"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/browser/chromiumtest"
)

// The browser's recorder is a helper process started from this binary
// (`__browser-recorder`): the test binary runs entrypoints as the real one.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		if main, ok := tools.LookupEntrypoint(os.Args[1]); ok {
			os.Exit(main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		}
	}
	os.Exit(m.Run())
}

// needChromium stops the test without a Chromium (chromiumtest: fails under CI=true).
func needChromium(t *testing.T) { chromiumtest.Path(t) }

// browserOptions: a node whose config lets Chromium run as root and
// reach the test pages on loopback.
func browserOptions(t *testing.T, gw *testGW) Options {
	o := hostOptions(t, gw)
	o.Config = &config.Config{Doc: map[string]any{"browser": map[string]any{"noSandbox": os.Geteuid() == 0,
		"ssrfPolicy": map[string]any{"allowedHostnames": []any{"127.0.0.1"}}}}}
	o.Media = media.New(o.StateDir)
	return o
}

func TestBrowserProxyRunsRoutesOnTheNode(t *testing.T) {
	needChromium(t)
	gw := newTestGW(t, "tok")
	gw.mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><title>Node page</title></head><body><button>Press me</button></body></html>`))
	})
	o := browserOptions(t, gw)
	h, _ := runHost(t, o)
	if caps, _ := h.Surface(); !strings.Contains(strings.Join(caps, ","), "browser") {
		t.Fatalf("no browser cap with a Chromium: %v", caps)
	}
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	t.Cleanup(func() {
		gw.invoke("browser.proxy", map[string]any{"method": "POST", "path": "/stop"}, 30000)
	})
	proxy := func(params map[string]any) gjson.Result {
		t.Helper()
		r := gw.invoke("browser.proxy", params, 60000)
		if !r.OK {
			t.Fatalf("browser.proxy %v: %s", params, r.raw)
		}
		return gjson.Parse(*r.PayloadJSON)
	}
	if st := proxy(map[string]any{"method": "POST", "path": "/start"}); !st.Get("result.running").Bool() {
		t.Fatalf("start: %s", st.Raw)
	}
	page := "http://" + gw.addr + "/page"
	if open := proxy(map[string]any{"method": "POST", "path": "/tabs/open", "body": map[string]any{"url": page}}); open.Get("result.url").String() != page {
		t.Errorf("open: %s", open.Raw)
	}
	if snap := proxy(map[string]any{"path": "/snapshot"}); !strings.Contains(snap.Raw, `button \"Press me\"`) {
		t.Errorf("snapshot: %s", snap.Raw)
	}
	shot := proxy(map[string]any{"method": "POST", "path": "/screenshot", "body": map[string]any{}})
	f := shot.Get("files.0")
	b, _ := base64.StdEncoding.DecodeString(f.Get("base64").String())
	if f.Get("mimeType").String() != "image/png" || f.Get("path").String() != shot.Get("result.path").String() {
		t.Errorf("screenshot files: %s", truncate(shot.Raw, 400))
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("screenshot bytes: %v", err)
	}
	if r := gw.invoke("browser.proxy", map[string]any{"method": "POST", "path": "/profiles/create", "body": map[string]any{"name": "x"}}, 10000); r.OK ||
		r.Error.Message != "INVALID_REQUEST: browser.proxy cannot mutate persistent browser profiles" {
		t.Errorf("profile mutation: %s", r.raw)
	}
	if r := gw.invoke("browser.proxy", map[string]any{"path": "/no-such-route"}, 10000); r.OK || !strings.HasPrefix(r.Error.Message, "404: ") {
		t.Errorf("unknown route: %s", r.raw)
	}
}

const a2uiTestPage = `<!doctype html><html><head><title>A2UI host</title></head><body><script>
sessionStorage.loads = String((+sessionStorage.loads || 0) + 1);
window.__applied = [];
window.__resets = 0;
setTimeout(() => {
  globalThis.openclawA2UI = {
    applyMessages(messages) {
      window.__applied.push(...messages);
      const ids = [...new Set(window.__applied.map((m) => (Object.values(m)[0] || {}).surfaceId).filter(Boolean))];
      return { ok: true, surfaces: ids };
    },
    reset() { window.__applied = []; window.__resets++; },
    getSurfaces() { return []; },
  };
}, 50);
</script></body></html>`

func TestCanvasOnHeadlessChromium(t *testing.T) {
	needChromium(t)
	gw := newTestGW(t, "tok")
	serve := func(path, body string) {
		gw.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(body))
		})
	}
	serve("/__openclaw__/canvas/", `<html><head><title>Canvas Home</title></head><body style="background:#c81e1e">home</body></html>`)
	serve("/__openclaw__/canvas/other.html", `<html><head><title>Other</title></head><body>other</body></html>`)
	serve("/__openclaw__/a2ui/", a2uiTestPage)
	o := browserOptions(t, gw)
	h, stop := runHost(t, o)
	if caps, cmds := h.Surface(); !strings.Contains(strings.Join(caps, ","), "canvas") || !strings.Contains(strings.Join(cmds, ","), "canvas.a2ui.pushJSONL") {
		t.Fatalf("no canvas with a Chromium: %v %v", caps, cmds)
	}
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	ok := func(cmd string, params any) map[string]any {
		t.Helper()
		return gw.invoke(cmd, params, 60000).payload(t)
	}
	eval := func(js string) string {
		t.Helper()
		return ok("canvas.eval", map[string]any{"javaScript": js})["result"].(string)
	}
	if p := ok("canvas.present", map[string]any{}); p["url"] != "http://"+gw.addr+"/__openclaw__/canvas/" {
		t.Errorf("present: %v", p)
	}
	if got := eval("document.title"); got != "Canvas Home" {
		t.Errorf("title %q", got)
	}
	if got := eval("({a: 1})"); got != `{"a":1}` {
		t.Errorf("object result %q", got)
	}
	ok("canvas.navigate", map[string]any{"url": "other.html"})
	if got := eval("document.title"); got != "Other" {
		t.Errorf("after navigate: %q", got)
	}
	ok("canvas.present", map[string]any{"url": "/", "placement": map[string]any{"x": 0, "y": 0, "width": 640, "height": 360}})
	snap := ok("canvas.snapshot", map[string]any{"format": "jpg", "maxWidth": 320, "quality": 0.8})
	raw, _ := base64.StdEncoding.DecodeString(snap["base64"].(string))
	img, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil || snap["format"] != "jpeg" {
		t.Fatalf("snapshot: %v %v", err, snap["format"])
	}
	if img.Bounds().Dx() != 320 || img.Bounds().Dy() != 180 {
		t.Errorf("snapshot size %v (viewport 640x360 scaled to 320)", img.Bounds())
	}
	if r, _, _, _ := img.At(160, 90).RGBA(); r>>8 < 150 {
		t.Errorf("snapshot does not show the page (red %d)", r>>8)
	}

	jsonl := `{"surfaceUpdate":{"surfaceId":"main","components":[{"id":"root","component":{"Text":{"text":{"literalString":"Hello"}}}}]}}` + "\n\n" +
		`{"beginRendering":{"surfaceId":"main","root":"root"}}` + "\n"
	res := ok("canvas.a2ui.pushJSONL", map[string]any{"jsonl": jsonl})
	if res["ok"] != true || mustJSONString(res["surfaces"]) != `["main"]` {
		t.Errorf("push: %v", res)
	}
	ok("canvas.a2ui.push", map[string]any{"messages": []any{map[string]any{"deleteSurface": map[string]any{"surfaceId": "side"}}}})
	if got := eval("window.__applied.length + ':' + sessionStorage.loads"); got != "3:1" {
		t.Errorf("applied:loads = %s (a push must never reload the A2UI page)", got)
	}
	ok("canvas.a2ui.reset", map[string]any{})
	if got := eval("window.__resets + ':' + window.__applied.length"); got != "1:0" {
		t.Errorf("reset: %s", got)
	}
	if r := gw.invoke("canvas.a2ui.pushJSONL", map[string]any{"jsonl": "{\"beginRendering\":{}}\nnot json\n"}, 10000); r.OK ||
		r.Error.Code != "INVALID_REQUEST" || !strings.Contains(r.Error.Message, "line 2") {
		t.Errorf("bad jsonl: %s", r.raw)
	}
	ok("canvas.hide", map[string]any{})
	env, _ := h.canvasEnv(invokeRequest{})
	if _, shown := h.canvasShown(t.Context(), env); shown {
		t.Error("the canvas page is still open after hide")
	}
	if r := gw.invoke("canvas.navigate", map[string]any{"url": "file:///etc/passwd"}, 10000); r.OK {
		t.Errorf("file URL: %s", r.raw)
	}
	st, err := browserAction(t.Context(), env, "status", nil)
	if err != nil || !st.Get("running").Bool() {
		t.Fatalf("canvas browser status %v %s", err, st.Raw)
	}
	pid := st.Get("pid").Int()
	// The node host stops the canvas browser it started.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the canvas Chromium to exit", func() bool { return !processAlive(int(pid)) })
}

func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
