package canvas

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"github.com/openclaw-go/openclaw/a2ui"
	"github.com/openclaw-go/openclaw/tools/browser/chromiumtest"
)

// chromium is the system Chromium (chromiumtest: fails under CI=true when missing).
func chromium(t *testing.T) string { return chromiumtest.Path(t) }

// browser launches a headless Chromium for one test (never downloaded).
func browser(t *testing.T) *rod.Browser {
	t.Helper()
	l := launcher.New().Bin(chromium(t)).Headless(true).NoSandbox(os.Geteuid() == 0).Leakless(false).
		UserDataDir(filepath.Join(t.TempDir(), "profile")).Set("disable-gpu")
	u, err := l.Launch()
	if err != nil {
		t.Fatal(err)
	}
	b := rod.New().ControlURL(u).Timeout(60 * time.Second)
	if err := b.Connect(); err != nil {
		l.Kill()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = b.Close()
		l.Kill()
		l.Cleanup()
	})
	return b
}

// actions installs the native handler a node host gives the page (a CDP
// binding named openclawCanvasA2UIAction) and delivers what it receives.
func actions(t *testing.T, p *rod.Page) <-chan string {
	t.Helper()
	if err := (proto.RuntimeAddBinding{Name: "openclawCanvasA2UIAction"}).Call(p); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 16)
	go p.EachEvent(func(e *proto.RuntimeBindingCalled) {
		if e.Name == "openclawCanvasA2UIAction" {
			ch <- e.Payload
		}
	})()
	return ch
}

func evalJSON(t *testing.T, p *rod.Page, js string, args ...any) json.RawMessage {
	t.Helper()
	res, err := p.Eval(js, args...)
	if err != nil {
		t.Fatalf("eval %s: %v", js, err)
	}
	b, _ := json.Marshal(res.Value.Val())
	return b
}

func waitJS(t *testing.T, p *rod.Page, js string) {
	t.Helper()
	if err := p.Timeout(30 * time.Second).Wait(rod.Eval(js)); err != nil {
		t.Fatalf("waiting for %s: %v", js, err)
	}
}

func openA2UI(t *testing.T, b *rod.Browser, hs *hostServer) (*rod.Page, <-chan string) {
	t.Helper()
	p, err := b.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	p = p.Timeout(60 * time.Second)
	acts := actions(t, p)
	if err := p.Navigate(hs.srv.URL + A2UIPath); err != nil {
		t.Fatal(err)
	}
	// What a node host does before a push: wait for the renderer.
	waitJS(t, p, `() => typeof globalThis.openclawA2UI?.applyMessages === "function"`)
	return p, acts
}

func lines(msgs ...string) []any {
	out := make([]any, 0, len(msgs))
	for _, m := range msgs {
		var v any
		if err := json.Unmarshal([]byte(m), &v); err != nil {
			panic(m)
		}
		out = append(out, v)
	}
	return out
}

func TestRendererTextPush(t *testing.T) {
	hs := newHostServer(t, t.TempDir(), true)
	b := browser(t)
	p, _ := openA2UI(t, b, hs)
	if got := string(evalJSON(t, p, `() => document.getElementById("openclaw-a2ui-empty").hidden`)); got != "false" {
		t.Fatalf("empty note hidden before any push: %s", got)
	}
	// The --text quick path as the node host applies it: split into lines.
	res, err := a2ui.ValidateSupported(a2ui.TextJSONL("Hello"))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []any
	for _, m := range res.Messages {
		var v any
		_ = json.Unmarshal(m, &v)
		msgs = append(msgs, v)
	}
	got := evalJSON(t, p, `(m) => globalThis.openclawA2UI.applyMessages(m)`, msgs)
	if string(got) != `{"ok":true,"surfaces":["main"]}` {
		t.Fatalf("applyMessages: %s", got)
	}
	if txt := string(evalJSON(t, p, `() => { const e = document.querySelector('[data-surface-id="main"] p.a2ui-text.a2ui-body'); return e && e.textContent }`)); txt != `"Hello"` {
		t.Fatalf("text: %s", txt)
	}
	if got := string(evalJSON(t, p, `() => document.getElementById("openclaw-a2ui-empty").hidden`)); got != "true" {
		t.Fatalf("empty note still shown: %s", got)
	}
	if got := string(evalJSON(t, p, `() => globalThis.openclawA2UI.getSurfaces()`)); got != `["main"]` {
		t.Fatalf("getSurfaces: %s", got)
	}
	// A second push replaces the text in place; no reload wiped the surface.
	evalJSON(t, p, `() => { globalThis.__kept = 1 }`)
	evalJSON(t, p, `(m) => globalThis.openclawA2UI.applyMessages(m)`,
		lines(`{"surfaceUpdate":{"surfaceId":"main","components":[{"id":"text","component":{"Text":{"text":{"literalString":"Again"},"usageHint":"h2"}}}]}}`))
	if got := string(evalJSON(t, p, `() => [globalThis.__kept, document.querySelector('[data-surface-id="main"] h2').textContent]`)); got != `[1,"Again"]` {
		t.Fatalf("second push: %s", got)
	}
	// reset drops everything.
	if got := string(evalJSON(t, p, `() => globalThis.openclawA2UI.reset()`)); got != `{"ok":true,"surfaces":[]}` {
		t.Fatalf("reset: %s", got)
	}
	if got := string(evalJSON(t, p, `() => [document.querySelectorAll(".a2ui-surface").length, document.getElementById("openclaw-a2ui-empty").hidden]`)); got != `[0,false]` {
		t.Fatalf("after reset: %s", got)
	}
}

// A form: layout, text hints, an image, a list template over the data
// model, a text field and a checkbox bound both ways, and a button whose
// action reaches the node's handler with its context resolved.
func TestRendererForm(t *testing.T) {
	hs := newHostServer(t, t.TempDir(), true)
	b := browser(t)
	p, acts := openA2UI(t, b, hs)
	img := "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	msgs := lines(
		`{"surfaceUpdate":{"surfaceId":"form","components":[
			{"id":"root","component":{"Column":{"children":{"explicitList":["title","card","divider","items","row"]},"alignment":"stretch"}}},
			{"id":"title","component":{"Text":{"text":{"literalString":"Booking"},"usageHint":"h1"}}},
			{"id":"card","component":{"Card":{"child":"cardcol"}}},
			{"id":"cardcol","component":{"Column":{"children":{"explicitList":["name","agree","greeting","logo"]}}}},
			{"id":"name","component":{"TextField":{"label":{"literalString":"Name"},"text":{"path":"/form/name"},"textFieldType":"shortText"}}},
			{"id":"agree","component":{"CheckBox":{"label":{"literalString":"I agree"},"value":{"path":"/form/agree"}}}},
			{"id":"greeting","component":{"Text":{"text":{"path":"/form/name"},"usageHint":"caption"}}},
			{"id":"logo","component":{"Image":{"url":{"literalString":"`+img+`"},"fit":"contain"}}},
			{"id":"divider","component":{"Divider":{}}},
			{"id":"items","component":{"List":{"direction":"vertical","children":{"template":{"componentId":"item","dataBinding":"/items"}}}}},
			{"id":"item","component":{"Text":{"text":{"path":"label"}}}},
			{"id":"row","component":{"Row":{"children":{"explicitList":["send","bogus"]},"distribution":"spaceBetween"}}},
			{"id":"send","component":{"Button":{"child":"sendlabel","primary":true,"action":{"name":"book","context":[
				{"key":"name","value":{"path":"/form/name"}},{"key":"agree","value":{"path":"/form/agree"}},{"key":"seats","value":{"literalNumber":2}}]}}}},
			{"id":"sendlabel","component":{"Text":{"text":{"literalString":"Book"}}}},
			{"id":"bogus","component":{"Hologram":{}}}
		]}}`,
		`{"dataModelUpdate":{"surfaceId":"form","contents":[
			{"key":"form","valueMap":[{"key":"name","valueString":"Ada"},{"key":"agree","valueBoolean":false}]},
			{"key":"items","valueMap":[{"key":"a","valueMap":[{"key":"label","valueString":"First"}]},{"key":"b","valueMap":[{"key":"label","valueString":"Second"}]}]}
		]}}`,
		`{"beginRendering":{"surfaceId":"form","root":"root","styles":{"primaryColor":"#ff0000"}}}`)
	if got := string(evalJSON(t, p, `(m) => globalThis.openclawA2UI.applyMessages(m)`, msgs)); got != `{"ok":true,"surfaces":["form"]}` {
		t.Fatalf("applyMessages: %s", got)
	}
	dom := string(evalJSON(t, p, `() => {
		const s = document.querySelector('[data-surface-id="form"]');
		const q = (sel) => s.querySelector(sel);
		return {
			h1: q("h1").textContent,
			card: !!q(".a2ui-card input.a2ui-input"),
			name: q("input.a2ui-input").value,
			label: q("label .a2ui-label").textContent,
			agree: q("input[type=checkbox]").checked,
			caption: q("small.a2ui-caption").textContent,
			img: q("img.a2ui-image").src.startsWith("data:image/png"),
			items: Array.from(s.querySelectorAll('[role=list] [role=listitem]')).map((e) => e.textContent),
			hr: !!q("hr.a2ui-divider"),
			button: q("button.a2ui-button.a2ui-primary").textContent,
			justify: q(".a2ui-row").style.justifyContent,
			unknown: q(".a2ui-missing").textContent,
			primary: s.style.getPropertyValue("--a2ui-primary"),
		};
	}`))
	want := `{"agree":false,"button":"Book","caption":"Ada","card":true,"h1":"Booking","hr":true,"img":true,"items":["First","Second"],` +
		`"justify":"space-between","label":"Name","name":"Ada","primary":"#ff0000","unknown":"Unsupported component: Hologram"}`
	if dom != want {
		t.Fatalf("DOM:\n%s\nwant\n%s", dom, want)
	}
	// Typing writes the data model and updates what is bound to it.
	in, err := p.Element(`[data-surface-id="form"] input.a2ui-input`)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.SelectAllText(); err != nil {
		t.Fatal(err)
	}
	if err := in.Input("Grace"); err != nil {
		t.Fatal(err)
	}
	cb, err := p.Element(`[data-surface-id="form"] input[type=checkbox]`)
	if err != nil {
		t.Fatal(err)
	}
	if err := cb.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if got := string(evalJSON(t, p, `() => [globalThis.openclawA2UI.getSurface("form").dataModel.form, document.querySelector("small.a2ui-caption").textContent]`)); got != `[{"agree":true,"name":"Grace"},"Grace"]` {
		t.Fatalf("after typing: %s", got)
	}
	btn, err := p.Element(`[data-surface-id="form"] button.a2ui-primary`)
	if err != nil {
		t.Fatal(err)
	}
	if err := btn.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	var got struct {
		UserAction struct {
			ID, Name, SurfaceID, SourceComponentID, Timestamp string
			Context                                           map[string]any
		} `json:"userAction"`
	}
	select {
	case raw := <-acts:
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no user action reached the node's handler")
	}
	u := got.UserAction
	if u.Name != "book" || u.SurfaceID != "form" || u.SourceComponentID != "send" || len(u.ID) < 16 || u.Timestamp == "" ||
		u.Context["name"] != "Grace" || u.Context["agree"] != true || u.Context["seats"] != float64(2) {
		t.Fatalf("userAction: %+v", u)
	}
	// The button waits for the node's answer, then settles.
	if busy := string(evalJSON(t, p, `() => document.querySelector("button.a2ui-primary").getAttribute("aria-busy")`)); busy != `"true"` {
		t.Fatalf("busy while pending: %s", busy)
	}
	evalJSON(t, p, `(id) => globalThis.dispatchEvent(new CustomEvent("openclaw:a2ui-action-status", {detail: {id, ok: false, error: "node offline"}}))`, u.ID)
	if got := string(evalJSON(t, p, `() => [document.querySelector("button.a2ui-primary").getAttribute("aria-busy"), document.getElementById("openclaw-a2ui-toast").textContent]`)); got != `[null,"Action failed: node offline"]` {
		t.Fatalf("after status: %s", got)
	}
	// deleteSurface removes it; an unknown surface to delete is harmless.
	if got := string(evalJSON(t, p, `(m) => globalThis.openclawA2UI.applyMessages(m)`, lines(`{"deleteSurface":{"surfaceId":"form"}}`, `{"deleteSurface":{"surfaceId":"never"}}`))); got != `{"ok":true,"surfaces":[]}` {
		t.Fatalf("delete: %s", got)
	}
	if n := string(evalJSON(t, p, `() => document.querySelectorAll(".a2ui-surface").length`)); n != "0" {
		t.Fatalf("surfaces left: %s", n)
	}
}

// A bad message applies nothing; v0.9 is refused; JSONL text is taken.
func TestRendererRefusals(t *testing.T) {
	hs := newHostServer(t, t.TempDir(), true)
	b := browser(t)
	p, _ := openA2UI(t, b, hs)
	for _, c := range []struct {
		in   any
		want string
	}{
		{lines(`{"surfaceUpdate":{"surfaceId":"a","components":[]}}`, `{"beginRendering":{"surfaceId":"a"}}`),
			`{"error":"message 2: beginRendering.root is required","ok":false}`},
		{lines(`{"createSurface":{"surfaceId":"a","catalogId":"x"}}`),
			`{"error":"message 1: A2UI v0.9 messages are not supported (this renderer speaks v0.8)","ok":false}`},
		{lines(`{"surfaceUpdate":{"surfaceId":"a","components":[]},"deleteSurface":{"surfaceId":"a"}}`),
			`{"error":"message 1: expected exactly one of surfaceUpdate, dataModelUpdate, beginRendering, deleteSurface","ok":false}`},
		{"not json", `{"error":"line 1: `}, // then V8's JSON.parse message
	} {
		got := string(evalJSON(t, p, `(m) => globalThis.openclawA2UI.applyMessages(m)`, c.in))
		if got != c.want && !(strings.HasSuffix(c.want, ": ") && strings.HasPrefix(got, c.want) && strings.HasSuffix(got, `","ok":false}`)) {
			t.Errorf("got %s\nwant %s", got, c.want)
		}
	}
	if got := string(evalJSON(t, p, `() => globalThis.openclawA2UI.getSurfaces()`)); got != `[]` {
		t.Fatalf("a refused batch left surfaces: %s", got)
	}
	// JSONL text is split into messages by the renderer itself; a surface
	// without beginRendering is kept but not drawn.
	got := string(evalJSON(t, p, `(s) => globalThis.openclawA2UI.applyMessages(s)`, a2ui.TextJSONL("from text")+"\n"+
		`{"surfaceUpdate":{"surfaceId":"later","components":[{"id":"t","component":{"Text":{"text":{"literalString":"x"}}}}]}}`))
	if got != `{"ok":true,"surfaces":["main","later"]}` {
		t.Fatalf("jsonl text: %s", got)
	}
	if got := string(evalJSON(t, p, `() => [document.querySelectorAll(".a2ui-surface").length, globalThis.openclawA2UI.getSurface("later").rendering]`)); got != `[1,false]` {
		t.Fatalf("undrawn surface: %s", got)
	}
	// A component cycle is reported in place, not an endless loop.
	got = string(evalJSON(t, p, `(m) => globalThis.openclawA2UI.applyMessages(m)`, lines(
		`{"surfaceUpdate":{"surfaceId":"loop","components":[{"id":"a","component":{"Column":{"children":{"explicitList":["b"]}}}},{"id":"b","component":{"Card":{"child":"a"}}}]}}`,
		`{"beginRendering":{"surfaceId":"loop","root":"a"}}`)))
	if !strings.Contains(got, `"ok":true`) {
		t.Fatalf("cycle: %s", got)
	}
	if txt := string(evalJSON(t, p, `() => document.querySelector('[data-surface-id="loop"] .a2ui-missing').textContent`)); txt != `"Component cycle at: a"` {
		t.Fatalf("cycle note: %s", txt)
	}
}

// The starter page's buttons reach the node's handler through the bridge,
// and an edit under the root reloads the page over the live-reload socket.
func TestCanvasPageBridgeAndLiveReload(t *testing.T) {
	root := t.TempDir()
	hs := newHostServer(t, root, true)
	b := browser(t)
	p, err := b.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	p = p.Timeout(60 * time.Second)
	acts := actions(t, p)
	if err := p.Navigate(hs.srv.URL + CanvasPath); err != nil {
		t.Fatal(err)
	}
	waitJS(t, p, `() => globalThis.OpenClaw && globalThis.OpenClaw.liveReload === "connected"`)
	if got := string(evalJSON(t, p, `() => document.getElementById("bridge").textContent`)); got != `"Action bridge: ready"` {
		t.Fatalf("bridge: %s", got)
	}
	el, err := p.Element(`button[data-action="time"]`)
	if err != nil {
		t.Fatal(err)
	}
	if err := el.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case raw := <-acts:
		var m struct {
			UserAction map[string]any `json:"userAction"`
		}
		if json.Unmarshal([]byte(raw), &m) != nil || m.UserAction["name"] != "time" || m.UserAction["surfaceId"] != "main" ||
			m.UserAction["sourceComponentId"] != "starter.time" || m.UserAction["id"] == "" {
			t.Fatalf("action: %s", raw)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no action from the starter page")
	}
	if got := string(evalJSON(t, p, `() => document.getElementById("log").textContent`)); got != `"Sent action: time"` {
		t.Fatalf("log: %s", got)
	}
	evalJSON(t, p, `() => { globalThis.__before = 1 }`)
	write(t, filepath.Join(root, "index.html"), "<!doctype html><title>v2</title><body><h1 id=v2>edited</h1></body>")
	waitJS(t, p, `() => globalThis.__before === undefined && document.getElementById("v2") !== null`)
	if got := string(evalJSON(t, p, `() => typeof globalThis.openclawSendUserAction`)); got != `"function"` {
		t.Fatalf("the edited page lacks the bridge: %s", got)
	}
}

// The other components the README names: Icon, Slider (bound), Tabs, Modal,
// a vertical Divider.
func TestRendererMoreComponents(t *testing.T) {
	hs := newHostServer(t, t.TempDir(), true)
	b := browser(t)
	p, _ := openA2UI(t, b, hs)
	got := string(evalJSON(t, p, `(m) => globalThis.openclawA2UI.applyMessages(m)`, lines(
		`{"surfaceUpdate":{"surfaceId":"x","components":[
			{"id":"root","component":{"Row":{"children":{"explicitList":["icon","slider","vd","tabs","modal","level"]}}}},
			{"id":"icon","component":{"Icon":{"name":{"literalString":"star"}}}},
			{"id":"slider","component":{"Slider":{"value":{"path":"/level"},"minValue":0,"maxValue":10}}},
			{"id":"level","component":{"Text":{"text":{"path":"/level"}}}},
			{"id":"vd","component":{"Divider":{"axis":"vertical"}}},
			{"id":"tabs","component":{"Tabs":{"tabItems":[{"title":{"literalString":"One"},"child":"t1"},{"title":{"literalString":"Two"},"child":"t2"}]}}},
			{"id":"t1","component":{"Text":{"text":{"literalString":"first tab"}}}},
			{"id":"t2","component":{"Text":{"text":{"literalString":"second tab"}}}},
			{"id":"modal","component":{"Modal":{"entryPointChild":"open","contentChild":"inside"}}},
			{"id":"open","component":{"Text":{"text":{"literalString":"Open"}}}},
			{"id":"inside","component":{"Text":{"text":{"literalString":"Inside"}}}}]}}`,
		`{"dataModelUpdate":{"surfaceId":"x","contents":[{"key":"level","valueNumber":3}]}}`,
		`{"beginRendering":{"surfaceId":"x","root":"root"}}`)))
	if got != `{"ok":true,"surfaces":["x"]}` {
		t.Fatalf("apply: %s", got)
	}
	q := func(js string) string { return string(evalJSON(t, p, js)) }
	if got := q(`() => [document.querySelector(".a2ui-icon").textContent, document.querySelector("input.a2ui-slider").value,
		!!document.querySelector("hr.a2ui-divider.a2ui-vertical"), document.querySelector(".a2ui-tabs [role=tablist]").children.length,
		document.querySelector(".a2ui-tabs > div:last-child").textContent, document.querySelector("details.a2ui-modal summary").textContent]`); got != `["star","3",true,2,"first tab","Open"]` {
		t.Fatalf("components: %s", got)
	}
	tab, err := p.Element(`.a2ui-tabs [role=tab]:nth-child(2)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if got := q(`() => [document.querySelector(".a2ui-tabs > div:last-child").textContent, document.querySelector(".a2ui-tabs [role=tab]:nth-child(2)").getAttribute("aria-selected")]`); got != `["second tab","true"]` {
		t.Fatalf("tab switch: %s", got)
	}
	// The slider writes the model; the bound text follows.
	q(`() => { const s = document.querySelector("input.a2ui-slider"); s.value = "7"; s.dispatchEvent(new Event("input")); }`)
	if got := q(`() => [globalThis.openclawA2UI.getSurface("x").dataModel.level, document.querySelector('[data-component-id="level"]').textContent]`); got != `[7,"7"]` {
		t.Fatalf("slider: %s", got)
	}
}
