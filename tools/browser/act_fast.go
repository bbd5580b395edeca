package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// An act costs a handful of DevTools round trips: one evaluation finds
// the element by its ref, one checks that it can be acted on (scrolled
// into view, visible, enabled, not covered at the point the act aims at)
// and, for type, focuses it and replaces its text, and a click adds the
// mouse events (plus the point in the top page's coordinates when the
// element lies in a frame).

// actTarget is an element to act on: its session's page and its object.
type actTarget struct {
	pg  *rod.Page
	obj proto.RuntimeRemoteObjectID
	top bool // in the tab's own document: its coordinates are the mouse's
}

// locate finds the element a ref names. A ref of the tab's own document
// takes one evaluation; a ref inside a frame or a closed shadow root goes
// the longer way (resolveRef).
func locate(ctx context.Context, pg *rod.Page, ref string) (*actTarget, error) {
	ref = normRef(ref)
	m := refPath().FindStringSubmatch(ref)
	if m == nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid ref %q: use a ref like e12 or f3e12 from `openclaw browser snapshot`", ref)
	}
	if m[1] == "" && !pg.IsIframe() {
		res, err := proto.RuntimeEvaluate{Expression: "(" + findJS + ")(" + quote(m[2]) + ")"}.Call(pg.Context(ctx))
		if err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "ref %s: %v", ref, err)
		}
		if res.ExceptionDetails != nil {
			return nil, tools.Errorf(tools.CodeFailed, "ref %s: %s", ref, res.ExceptionDetails.Text)
		}
		if res.Result.Subtype == proto.RuntimeRemoteObjectSubtypeNode {
			return &actTarget{pg: pg, obj: res.Result.ObjectID, top: true}, nil
		}
		if n := res.Result.Value.Int(); n > 0 {
			return nil, tools.Errorf(tools.CodeFailed, "ref %q matched %d elements. Run a new snapshot and use a ref from that snapshot.", ref, n)
		}
	}
	el, err := resolveRef(pg.Context(ctx), ref)
	if err != nil {
		return nil, err
	}
	return &actTarget{pg: el.Page(), obj: el.Object.ObjectID, top: m[1] == "" && !el.Page().IsIframe()}, nil
}

// readyJS checks the element as an act needs it and says why not; mode
// "fill" then focuses it and replaces its text with text. It answers
// {ok, x, y (the point aimed at, in its document's viewport), download
// (a click there starts a download), inserted (fill: the text went in)}
// or {why}.
const readyJS = `function(needEnabled, mode, text) {
	const el = this;
	if (!el.isConnected) return {why: "not visible"};
	if (el.scrollIntoViewIfNeeded) el.scrollIntoViewIfNeeded(true); else el.scrollIntoView({block: "center", inline: "center"});
	const win = el.ownerDocument.defaultView;
	const st = win.getComputedStyle(el);
	const b = el.getBoundingClientRect();
	if (st.display === "none" || st.visibility === "hidden" || !(b.top || b.bottom || b.width || b.height)) return {why: "not visible"};
	if (needEnabled && el.disabled) return {why: "disabled"};
	if (st.pointerEvents === "none") return {why: "has pointer-events: none"};
	let r = null;
	for (const q of el.getClientRects()) if (q.width > 0 && q.height > 0) { r = q; break; }
	if (!r) return {why: "has no visible shape"};
	const x = r.left + r.width / 2, y = r.top + r.height / 2;
	let hit = el.getRootNode().elementFromPoint(x, y);
	for (let i = 0; hit && hit.shadowRoot && i < 50; i++) {
		const h = hit.shadowRoot.elementFromPoint(x, y);
		if (!h || h === hit) break;
		hit = h;
	}
	let inside = false;
	for (let e = hit, i = 0; e && i < 10000; i++) {
		if (e === el) { inside = true; break; }
		e = e.parentElement || (e.parentNode && e.parentNode.host) || null;
	}
	if (hit && !inside) {
		let s = hit.tagName.toLowerCase();
		if (hit.id) s += "#" + hit.id;
		if (typeof hit.className === "string" && hit.className.trim()) s += "." + hit.className.trim().split(/\s+/).join(".");
		const t = (hit.innerText || "").trim().slice(0, 40);
		return {why: "covered by " + (t ? s + ' "' + t + '"' : s)};
	}
	const out = {ok: true, x, y, download: !!el.closest("a[download]")};
	if (mode === "fill") {
		el.focus();
		if (typeof el.select === "function") el.select();
		else {
			const sel = win.getSelection(), range = el.ownerDocument.createRange();
			range.selectNodeContents(el);
			sel.removeAllRanges();
			sel.addRange(range);
		}
		out.inserted = text === "" ? el.ownerDocument.execCommand("delete") : el.ownerDocument.execCommand("insertText", false, text);
		if (out.inserted) {
			el.dispatchEvent(new Event("input", {bubbles: true}));
			el.dispatchEvent(new Event("change", {bubbles: true}));
		}
	}
	return out;
}`

type readyAnswer struct {
	OK       bool    `json:"ok"`
	Why      string  `json:"why"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Download bool    `json:"download"`
	Inserted bool    `json:"inserted"`
	Synced   bool    `json:"synced"` // readyRefJS sent its marker
}

// ready waits up to d until t can be acted on (see readyJS), then, for
// mode "fill", replaces its text. On timeout the error names the condition
// that last failed (and the covering element).
func (t *actTarget) ready(ctx context.Context, ref string, d time.Duration, needEnabled bool, mode, text string) (*readyAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	why := "not checked yet"
	for {
		a, err := t.check(ctx, needEnabled, mode, text)
		if err == nil && a.OK {
			return a, nil
		}
		if ctx.Err() == nil { // a check cut short by the deadline says nothing
			if err != nil {
				why = err.Error()
			} else {
				why = a.Why
			}
		}
		select {
		case <-ctx.Done():
			return nil, tools.Errorf(tools.CodeTimeout, "Element %q not actionable after %d ms: %s. Try scrolling, closing overlays, or re-snapshotting.", ref, d.Milliseconds(), why)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (t *actTarget) check(ctx context.Context, needEnabled bool, mode, text string) (*readyAnswer, error) {
	args := []*proto.RuntimeCallArgument{{}, {}, {}}
	for i, v := range []any{needEnabled, mode, text} {
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, &args[i].Value); err != nil {
			return nil, err
		}
	}
	res, err := proto.RuntimeCallFunctionOn{ObjectID: t.obj, FunctionDeclaration: readyJS, Arguments: args,
		ReturnByValue: true}.Call(t.pg.Context(ctx))
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("%s", res.ExceptionDetails.Text)
	}
	var a readyAnswer
	if err := json.Unmarshal([]byte(res.Result.Value.JSON("", "")), &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// point is where the mouse goes for t, in the coordinates of t's session:
// the checked point for the tab's own document, else the centre of the
// element's first box as the DevTools protocol gives it.
func (t *actTarget) point(ctx context.Context, a *readyAnswer) (proto.Point, error) {
	if t.top {
		return proto.Point{X: a.X, Y: a.Y}, nil
	}
	q, err := proto.DOMGetContentQuads{ObjectID: t.obj}.Call(t.pg.Context(ctx))
	if err != nil {
		return proto.Point{}, err
	}
	for _, quad := range q.Quads {
		if len(quad) == 8 && quad.Area() > 0 {
			c := quad.Center()
			return c, nil
		}
	}
	return proto.Point{}, fmt.Errorf("the element has no visible shape")
}

// element wraps t for the rod calls the rarer acts make.
func (t *actTarget) element() (*rod.Element, error) {
	return t.pg.ElementFromObject(&proto.RuntimeRemoteObject{Type: proto.RuntimeRemoteObjectTypeObject,
		Subtype: proto.RuntimeRemoteObjectSubtypeNode, ObjectID: t.obj})
}

// finishFill types the text through the DevTools protocol when the page's
// editing command did not take it (an element it cannot edit that way),
// then fires input and change as the editing path does.
func (t *actTarget) finishFill(ctx context.Context, a *readyAnswer, text string) error {
	if a.Inserted {
		return nil
	}
	pg := t.pg.Context(ctx)
	if text != "" {
		if err := (proto.InputInsertText{Text: text}).Call(pg); err != nil {
			return err
		}
	}
	_, err := proto.RuntimeCallFunctionOn{ObjectID: t.obj, FunctionDeclaration: `function(){this.dispatchEvent(new Event("input",{bubbles:true}));this.dispatchEvent(new Event("change",{bubbles:true}))}`}.Call(pg)
	return err
}

// readyRefJS is locate and readyJS in one evaluation, for a ref of the
// tab's own document: it answers {behind} while the tab is not the
// visible, focused one (the caller brings it to the front and asks
// again), {count} when the ref does not name exactly one element of the
// document (the caller goes the longer way: locate), else readyJS's
// answer. With a marker, a fill whose text went in then sends it through
// the recorder's sync binding once the microtasks the act queued have run
// (synced: the act's settle waits for that marker instead of sending one).
const readyRefJS = `(ref, needEnabled, mode, text, checkFront, marker) => {
	if (checkFront && (document.visibilityState !== "visible" || !document.hasFocus())) return {behind: true};
	const found = document.querySelectorAll('[` + refAttr + `="' + ref + '"]');
	if (found.length !== 1) return {count: found.length};
	const a = (` + readyJS + `).call(found[0], needEnabled, mode, text);
	const sync = globalThis.` + syncBinding + `;
	if (marker && a.ok && a.inserted && typeof sync === "function") {
		Promise.resolve().then(() => sync(marker));
		a.synced = true;
	}
	return a;
}`

// readyRef finds the element a ref of the tab's own document names and
// waits up to d until it can be acted on, as locate and ready do, with one
// evaluation per try and no other round trip: the tab is brought to the
// front only when it is not there already. ok is false when the ref needs
// the longer way (a frame's or a shadow root's, or not found as one
// element): the caller then brings the tab to the front and uses locate
// and ready, which also give their errors.
func readyRef(ctx context.Context, pg *rod.Page, ref string, d time.Duration, needEnabled bool, mode, text, marker string) (t *actTarget, a *readyAnswer, ok bool, err error) {
	ref = normRef(ref)
	if !ownRef(ref) || pg.IsIframe() {
		return nil, nil, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	expr := func(checkFront bool) string {
		b, _ := json.Marshal([]any{ref, needEnabled, mode, text, checkFront, marker})
		return "(" + readyRefJS + ")(..." + string(b) + ")"
	}
	checkFront := true
	why := "not checked yet"
	for {
		var ans struct {
			readyAnswer
			Behind bool `json:"behind"`
			Count  *int `json:"count"`
		}
		err := evalValue(ctx, pg, expr(checkFront), &ans)
		switch {
		case err == nil && ans.Behind:
			if err := front(pg.Context(ctx)); err != nil {
				return nil, nil, false, err
			}
			checkFront = false
			continue
		case err == nil && ans.Count != nil:
			return nil, nil, false, nil
		case err == nil && ans.OK:
			return &actTarget{pg: pg, top: true}, &ans.readyAnswer, true, nil
		}
		if ctx.Err() == nil {
			if err != nil {
				why = err.Error()
			} else {
				why = ans.Why
			}
		}
		select {
		case <-ctx.Done():
			return nil, nil, true, tools.Errorf(tools.CodeTimeout, "Element %q not actionable after %d ms: %s. Try scrolling, closing overlays, or re-snapshotting.", ref, d.Milliseconds(), why)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// evalValue evaluates expr in pg's main world and decodes its value into
// out. It decodes only the answer's value, not the whole remote object as
// proto.RuntimeEvaluate does (whose decoding is a good part of a short
// call's CPU time).
func evalValue(ctx context.Context, pg *rod.Page, expr string, out any) error {
	raw, err := pg.Call(ctx, string(pg.SessionID), "Runtime.evaluate", struct {
		Expression    string `json:"expression"`
		ReturnByValue bool   `json:"returnByValue"`
	}{expr, true})
	if err != nil {
		return err
	}
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		if e.Exception != nil && e.Exception.Description != "" {
			return fmt.Errorf("%s", e.Exception.Description)
		}
		return fmt.Errorf("%s", e.Text)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// ownRef reports whether ref is an element ref of the tab's own document
// (e1 to e999999999, no frame prefix): refPath's second group alone,
// checked by hand so that an act compiles no regexp.
func ownRef(ref string) bool {
	if len(ref) < 2 || len(ref) > 10 || ref[0] != 'e' || ref[1] < '1' || ref[1] > '9' {
		return false
	}
	for i := 2; i < len(ref); i++ {
		if ref[i] < '0' || ref[i] > '9' {
			return false
		}
	}
	return true
}
