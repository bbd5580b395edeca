package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// expectDownloadKey marks an act result whose settle must wait for a download.
const expectDownloadKey = "_expectDownload"

// syncMarkerKey carries the marker an act's evaluation sent through the
// recorder's sync binding (readyRefJS) to its settle.
const syncMarkerKey = "_syncMarker"

// normRef accepts the spellings the original's parsers accept: e12, @e12,
// ref=e12 and a bare number.
func normRef(r string) string {
	r = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(r), "ref="), "@")
	if r != "" && r[0] >= '0' && r[0] <= '9' {
		r = "e" + r
	}
	return r
}

// element resolves a ref to its element through the page's ref attribute
// (in frames and open shadow roots too, see resolveRef). A ref whose
// element is gone fails with the advice to snapshot again.
func element(pg *rod.Page, ref string) (*rod.Element, error) {
	return resolveRef(pg, normRef(ref))
}

// actionable scrolls el into view and waits until it is visible, enabled
// and not covered, up to d. On timeout the error names the condition that
// last failed (and the covering element).
func actionable(ctx context.Context, el *rod.Element, ref string, d time.Duration, needEnabled bool) error {
	t := &actTarget{pg: el.Page(), obj: el.Object.ObjectID}
	_, err := t.ready(ctx, ref, d, needEnabled, "check", "")
	return err
}

// actReq is the act request: the kind plus its fields (A.4).
type actReq struct {
	Kind        string     `json:"kind"`
	Ref         string     `json:"ref"`
	Text        string     `json:"text"`
	Submit      bool       `json:"submit"`
	Slowly      bool       `json:"slowly"`
	Key         string     `json:"key"`
	Values      []string   `json:"values"`
	Fields      fillFields `json:"fields"`
	DoubleClick bool       `json:"doubleClick"`
	Double      bool       `json:"double"` // the CLI's --double
	Button      string     `json:"button"`
	Modifiers   []string   `json:"modifiers"`
	Fn          string     `json:"fn"`
	TimeMs      int        `json:"timeMs"`
	TextGone    string     `json:"textGone"`
	Selector    string     `json:"selector"`
	URL         string     `json:"url"`
	TimeoutMs   int        `json:"timeoutMs"`
	Width       int        `json:"width"`
	Height      int        `json:"height"`
	StartRef    string     `json:"startRef"`
	EndRef      string     `json:"endRef"`
	// resize sets the viewport through a session that outlives the call
	// (the recorder's); nil sets it on this call's own session.
	resize func(w, h int) error
	// syncMarker (set by actAction when a recorder runs) is the marker a
	// type may send through the recorder's sync binding (readyRefJS).
	syncMarker string
}

// fillFields accepts the fields array, also nested one level: the CLI's
// `--fields '[{...},{...}]'` arrives as an array holding that array.
type fillFields []fillField

func (f *fillFields) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for _, r := range raw {
		if t := bytes.TrimSpace(r); len(t) > 0 && t[0] == '[' {
			var inner fillFields
			if err := json.Unmarshal(t, &inner); err != nil {
				return err
			}
			*f = append(*f, inner...)
			continue
		}
		var one fillField
		if err := json.Unmarshal(r, &one); err != nil {
			return err
		}
		*f = append(*f, one)
	}
	return nil
}

type fillField struct {
	Ref   string `json:"ref"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// front brings the tab to the front first: a tab behind another (a popup
// the page opened) gets no animation frames, and input waits for them.
func front(pg *rod.Page) error {
	if err := (proto.PageBringToFront{}).Call(pg); err != nil {
		return tools.Errorf(tools.CodeFailed, "bring the tab to the front: %v", err)
	}
	return nil
}

// act runs one act kind on pg and returns extra result fields.
func act(ctx context.Context, env *tools.Env, conf *browserConf, pg *rod.Page, r actReq) (map[string]any, error) {
	d := timeout(r.TimeoutMs, 8000, 500, 60000)
	pg = pg.Context(ctx)
	out := map[string]any{}
	// click, hover and type bring the tab to the front only when it is
	// not there already (readyRef); the other acts on a page always do.
	lazyFront := r.Kind == "click" || r.Kind == "hover" || (r.Kind == "type" && !r.Slowly)
	if r.Kind != "close" && r.Kind != "wait" && r.Kind != "evaluate" && !lazyFront {
		if err := front(pg); err != nil {
			return nil, err
		}
	}
	need := func(field, val string) error {
		if val == "" {
			return tools.Errorf(tools.CodeInvalidParams, "act %s needs %s", r.Kind, field)
		}
		return nil
	}
	target := func(enabled bool) (*rod.Element, error) {
		if err := need("ref", r.Ref); err != nil {
			return nil, err
		}
		el, err := element(pg, r.Ref)
		if err != nil {
			return nil, err
		}
		if err := actionable(ctx, el, normRef(r.Ref), d, enabled); err != nil {
			return nil, err
		}
		return el.Context(ctx), nil
	}
	// ready finds the ref's element and waits until it can be acted on
	// (mode fill: then replaces its text).
	ready := func(enabled bool, mode, text, marker string) (*actTarget, *readyAnswer, error) {
		if err := need("ref", r.Ref); err != nil {
			return nil, nil, err
		}
		if lazyFront {
			t, a, ok, err := readyRef(ctx, pg, r.Ref, d, enabled, mode, text, marker)
			if ok || err != nil {
				return t, a, err
			}
			if err := front(pg); err != nil {
				return nil, nil, err
			}
		}
		t, err := locate(ctx, pg, r.Ref)
		if err != nil {
			return nil, nil, err
		}
		a, err := t.ready(ctx, normRef(r.Ref), d, enabled, mode, text)
		return t, a, err
	}
	switch r.Kind {
	case "click":
		if _, err := clickModifiers(r.Modifiers); err != nil {
			return nil, err
		}
		t, a, err := ready(true, "check", "", "")
		if err != nil {
			return nil, err
		}
		if err := clickWith(ctx, t, a, r, out); err != nil {
			return nil, err
		}
	case "hover":
		t, a, err := ready(false, "check", "", "")
		if err != nil {
			return nil, err
		}
		pt, err := t.point(ctx, a)
		if err != nil {
			return nil, actFailed(r, err)
		}
		if err := t.pg.Context(ctx).Mouse.MoveTo(pt); err != nil {
			return nil, actFailed(r, err)
		}
	case "type":
		if r.Slowly {
			el, err := target(true)
			if err != nil {
				return nil, err
			}
			if err := typeInto(el, r.Text, true); err != nil {
				return nil, actFailed(r, err)
			}
			if r.Submit {
				if err := el.Type(input.Enter); err != nil {
					return nil, actFailed(r, err)
				}
			}
			break
		}
		marker := ""
		if !r.Submit && r.syncMarker != "" { // Enter's events would come after it
			marker = r.syncMarker
		}
		t, a, err := ready(true, "fill", r.Text, marker)
		if err != nil {
			return nil, err
		}
		if a.Synced {
			out[syncMarkerKey] = marker
		}
		if !a.Inserted && t.obj == "" { // readyRef found it by value: get the object
			if t, err = locate(ctx, pg, r.Ref); err != nil {
				return nil, err
			}
		}
		if err := t.finishFill(ctx, a, r.Text); err != nil {
			return nil, actFailed(r, err)
		}
		if r.Submit {
			if err := t.pg.Context(ctx).Keyboard.Type(input.Enter); err != nil {
				return nil, actFailed(r, err)
			}
		}
	case "fill":
		if len(r.Fields) == 0 {
			return nil, tools.Errorf(tools.CodeInvalidParams, "act fill needs fields: [{ref, type?, value}]")
		}
		for _, f := range r.Fields {
			t, err := locate(ctx, pg, f.Ref)
			if err != nil {
				return nil, err
			}
			switch f.Type {
			case "checkbox", "radio":
				if _, err := t.ready(ctx, normRef(f.Ref), d, true, "check", ""); err != nil {
					return nil, err
				}
				el, err := t.element()
				if err != nil {
					return nil, actFailed(r, err)
				}
				want := fmt.Sprint(f.Value) == "true" || fmt.Sprint(f.Value) == "1"
				if _, err := el.Context(ctx).Eval(`function(v){if(this.checked!==v){this.click()}}`, want); err != nil {
					return nil, actFailed(r, err)
				}
			default:
				v := ""
				if f.Value != nil {
					v = fmt.Sprint(f.Value)
				}
				a, err := t.ready(ctx, normRef(f.Ref), d, true, "fill", v)
				if err != nil {
					return nil, err
				}
				if err := t.finishFill(ctx, a, v); err != nil {
					return nil, actFailed(r, err)
				}
			}
		}
	case "select":
		el, err := target(true)
		if err != nil {
			return nil, err
		}
		if len(r.Values) == 0 {
			return nil, tools.Errorf(tools.CodeInvalidParams, "act select needs values")
		}
		res, err := el.Eval(`function(vals){if(this.tagName!=="SELECT")return "not a <select>";`+
			`let hit=0;for(const o of this.options){const m=vals.includes(o.value)||vals.includes(o.label)||vals.includes(o.text.trim());`+
			`if(m&&!this.multiple&&hit)continue;o.selected=m;if(m)hit++}`+
			`if(!hit)return "no option matches "+JSON.stringify(vals);`+
			`this.dispatchEvent(new Event("input",{bubbles:true}));this.dispatchEvent(new Event("change",{bubbles:true}));return ""}`, r.Values)
		if err != nil {
			return nil, actFailed(r, err)
		}
		if msg := res.Value.Str(); msg != "" {
			return nil, tools.Errorf(tools.CodeFailed, "act select on %s: %s", normRef(r.Ref), msg)
		}
	case "press":
		if err := need("key", r.Key); err != nil {
			return nil, err
		}
		if err := press(pg, r.Key); err != nil {
			return nil, err
		}
	case "resize":
		if r.Width < 1 || r.Height < 1 || r.Width > 8192 || r.Height > 8192 {
			return nil, tools.Errorf(tools.CodeInvalidParams, "act resize needs width and height in 1..8192")
		}
		if r.resize != nil {
			if err := r.resize(r.Width, r.Height); err != nil {
				return nil, actFailed(r, err)
			}
		} else if err := (proto.EmulationSetDeviceMetricsOverride{Width: r.Width, Height: r.Height, DeviceScaleFactor: 1}).Call(pg); err != nil {
			return nil, actFailed(r, err)
		}
	case "wait":
		if err := wait(ctx, conf, pg, r); err != nil {
			return nil, err
		}
	case "evaluate":
		if err := need("fn", r.Fn); err != nil {
			return nil, err
		}
		if conf.EvaluateEnabled != nil && !*conf.EvaluateEnabled {
			return nil, tools.Errorf(tools.CodeDenied, "evaluate is disabled (browser.evaluateEnabled=false)")
		}
		v, err := evaluate(ctx, pg, r.Ref, r.Fn, d)
		if err != nil {
			return nil, err
		}
		out["result"] = v
	case "drag":
		if err := need("startRef", r.StartRef); err != nil {
			return nil, err
		}
		if err := need("endRef", r.EndRef); err != nil {
			return nil, err
		}
		if err := drag(ctx, pg, r, d); err != nil {
			return nil, err
		}
	case "close":
		if err := pg.Close(); err != nil {
			return nil, actFailed(r, err)
		}
	case "":
		return nil, tools.Errorf(tools.CodeInvalidParams, "act needs kind")
	default:
		return nil, tools.Errorf(tools.CodeInvalidParams, "unknown act kind %q (click, type, press, hover, drag, select, fill, resize, wait, evaluate, close)", r.Kind)
	}
	return out, nil
}

func actFailed(r actReq, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return tools.Errorf(tools.CodeTimeout, "act %s timed out", r.Kind)
	}
	return tools.Errorf(tools.CodeFailed, "act %s: %v", r.Kind, err)
}

// typeInto replaces the field's value (fill), or clicks and types each key
// with a 75 ms pause when slowly.
func typeInto(el *rod.Element, text string, slowly bool) error {
	if !slowly {
		if err := el.SelectAllText(); err != nil {
			return err
		}
		return el.Input(text)
	}
	if err := el.Click(proto.InputMouseButtonLeft, 1); err != nil {
		return err
	}
	for _, r := range text {
		if err := el.Page().InsertText(string(r)); err != nil {
			return err
		}
		time.Sleep(75 * time.Millisecond) // the original's "slowly" pacing, not synchronisation
	}
	return nil
}

var keyNames = sync.OnceValue(func() map[string]input.Key {
	return map[string]input.Key{
		"enter": input.Enter, "return": input.Enter, "tab": input.Tab, "escape": input.Escape, "esc": input.Escape,
		"backspace": input.Backspace, "delete": input.Delete, "del": input.Delete, "space": input.Space, " ": input.Space,
		"arrowup": input.ArrowUp, "arrowdown": input.ArrowDown, "arrowleft": input.ArrowLeft, "arrowright": input.ArrowRight,
		"home": input.Home, "end": input.End, "pageup": input.PageUp, "pagedown": input.PageDown,
		"control": input.ControlLeft, "ctrl": input.ControlLeft, "shift": input.ShiftLeft, "alt": input.AltLeft,
		"meta": input.MetaLeft, "cmd": input.MetaLeft, "controlormeta": input.ControlLeft,
		"f1": input.F1, "f2": input.F2, "f3": input.F3, "f4": input.F4, "f5": input.F5, "f6": input.F6,
		"f7": input.F7, "f8": input.F8, "f9": input.F9, "f10": input.F10, "f11": input.F11, "f12": input.F12,
	}
}) // built on first use, not in every process's init

func lookupKey(name string) (k input.Key, ok bool) {
	if k, ok := keyNames()[strings.ToLower(name)]; ok {
		return k, true
	}
	if r := []rune(name); len(r) == 1 {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		k = input.Key(r[0])
		k.Info()
		return k, true
	}
	return 0, false
}

// press sends a key or a chord like Control+Shift+T to the focused element.
func press(pg *rod.Page, key string) error {
	parts := []string{key}
	if key != "+" && strings.Contains(key, "+") {
		parts = strings.Split(key, "+")
	}
	var keys []input.Key
	for _, p := range parts {
		k, ok := lookupKey(p)
		if !ok {
			return tools.Errorf(tools.CodeInvalidParams, "unknown key %q (e.g. Enter, Tab, Escape, ArrowDown, Control+A)", p)
		}
		keys = append(keys, k)
	}
	ka := pg.KeyActions()
	if len(keys) > 1 {
		ka = ka.Press(keys[:len(keys)-1]...)
	}
	if err := ka.Type(keys[len(keys)-1]).Do(); err != nil {
		return tools.Errorf(tools.CodeFailed, "press %s: %v", key, err)
	}
	return nil
}

// fnSource turns what --fn accepts (a function source, an expression, or
// a statement body with return) into a function source, so evaluate and
// wait --fn read it the same way.
func fnSource(fn string) string {
	src := strings.TrimSpace(fn)
	isFn := strings.HasPrefix(src, "function") || strings.HasPrefix(src, "async") || regexp.MustCompile(`^(\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>`).MatchString(src)
	if isFn {
		return src
	}
	if strings.Contains(src, "return ") || strings.Contains(src, ";") {
		return "async () => {" + src + "\n}"
	}
	return "() => (" + src + ")"
}

// evaluate runs fn in the page (or on the ref's element): a function
// source, an expression, or a statement body with return.
func evaluate(ctx context.Context, pg *rod.Page, ref, fn string, d time.Duration) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	src := fnSource(fn)
	var res *proto.RuntimeRemoteObject
	var err error
	if ref != "" {
		el, e := element(pg, ref)
		if e != nil {
			return nil, e
		}
		res, err = el.Context(ctx).Evaluate(rod.Eval(`function(){return (` + src + `)(this)}`).ByPromise())
	} else {
		res, err = pg.Context(ctx).Evaluate(rod.Eval(`() => (` + src + `)()`).ByPromise())
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, tools.Errorf(tools.CodeTimeout, "evaluate timed out after %d ms", d.Milliseconds())
		}
		return nil, tools.Errorf(tools.CodeFailed, "evaluate: %v", err)
	}
	var v any
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &v); err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "evaluate: result: %v", err)
	}
	return v, nil
}

// wait runs the wait conditions in the original's order: time, text,
// textGone, selector, url, fn; each polls until true or the budget ends.
func wait(ctx context.Context, conf *browserConf, pg *rod.Page, r actReq) error {
	d := timeout(r.TimeoutMs, 20000, 500, 120000)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if r.TimeMs > 0 {
		select {
		case <-time.After(time.Duration(min(r.TimeMs, 30000)) * time.Millisecond):
		case <-ctx.Done():
			return tools.Errorf(tools.CodeTimeout, "wait: timed out")
		}
	}
	type cond struct{ what, js string }
	var conds []cond
	if r.Text != "" {
		conds = append(conds, cond{"text " + quote(r.Text), fmt.Sprintf(`() => document.body && document.body.innerText.includes(%s)`, quote(r.Text))})
	}
	if r.TextGone != "" {
		conds = append(conds, cond{"text " + quote(r.TextGone) + " to go", fmt.Sprintf(`() => !document.body || !document.body.innerText.includes(%s)`, quote(r.TextGone))})
	}
	if r.Selector != "" {
		conds = append(conds, cond{"selector " + r.Selector, fmt.Sprintf(`() => { const e = document.querySelector(%s); return !!e && !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length) }`, quote(r.Selector))})
	}
	if r.URL != "" {
		re := "^" + strings.ReplaceAll(regexp.QuoteMeta(r.URL), `\*`, ".*") + "$"
		conds = append(conds, cond{"url " + r.URL, fmt.Sprintf(`() => new RegExp(%s).test(location.href)`, quote(re))})
	}
	if r.Fn != "" {
		if conf.EvaluateEnabled != nil && !*conf.EvaluateEnabled {
			return tools.Errorf(tools.CodeDenied, "wait --fn is disabled (browser.evaluateEnabled=false)")
		}
		conds = append(conds, cond{"fn", "async () => !!(await (" + fnSource(r.Fn) + ")())"})
	}
	if r.TimeMs <= 0 && len(conds) == 0 {
		return tools.Errorf(tools.CodeInvalidParams, "act wait needs one of timeMs, text, textGone, selector, url, fn")
	}
	for _, c := range conds {
		for {
			res, err := pg.Context(ctx).Evaluate(rod.Eval(c.js).ByPromise())
			if err == nil && res.Value.Bool() {
				break
			}
			select {
			case <-ctx.Done():
				return tools.Errorf(tools.CodeTimeout, "wait: %s not met after %d ms", c.what, d.Milliseconds())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}
