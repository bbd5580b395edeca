package nodehost

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
)

// The canvas of a headless node is one page of a Chromium of its own (the
// browser profile openclaw-canvas, started on first use and stopped with
// the node host), driven with the browser family's actions through
// tools.Invoke. The page shows the gateway's canvas host
// (<canvasHostUrl>/__openclaw__/canvas/) or any URL it is given; A2UI
// messages are applied in the gateway's A2UI host page
// (<canvasHostUrl>/__openclaw__/a2ui/) by calling
// globalThis.openclawA2UI.applyMessages, never by reloading it (that would
// wipe the surfaces pushed so far).

const (
	canvasProfile   = "openclaw-canvas"
	canvasTab       = "canvas"
	a2uiPath        = "/__openclaw__/a2ui/"
	canvasPath      = "/__openclaw__/canvas/"
	a2uiWaitMs      = 10000
	canvasMaxImgPix = 8192
)

type canvasState struct {
	op      sync.Mutex // held by each canvas command
	mu      sync.Mutex
	started bool // this node host started the canvas browser
	env     *tools.Env
}

// canvasEnv is the node's env with the canvas profile configured and the
// gateway's host allowed for the canvas browser's navigation guard (the
// canvas host is on the gateway, usually a loopback or private address).
func (h *Host) canvasEnv(req invokeRequest) (*tools.Env, error) {
	e := h.env(req)
	set := map[string]any{}
	if _, ok := h.cfg.Get("browser.profiles." + canvasProfile); !ok {
		set["browser.profiles."+canvasProfile] = map[string]any{"color": "#2E7D32"}
	}
	var allowed []string
	_ = h.cfg.Decode("browser.ssrfPolicy.allowedHostnames", &allowed)
	for _, base := range []string{h.canvasOrigin(), httpBase(h.url)} {
		if u, err := url.Parse(base); err == nil && u.Hostname() != "" && !contains(allowed, u.Hostname()) {
			allowed = append(allowed, u.Hostname())
		}
	}
	set["browser.ssrfPolicy.allowedHostnames"] = allowed
	cfg, err := withSettings(h.cfg, set)
	if err != nil {
		return nil, err
	}
	e.Config = cfg
	return e, nil
}

func (h *Host) canvasOrigin() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.canvasBase != "" {
		return h.canvasBase
	}
	return httpBase(h.url)
}

// browser runs one browser action on the canvas profile.
func browserAction(ctx context.Context, env *tools.Env, verb string, args map[string]any) (gjson.Result, error) {
	if args == nil {
		args = map[string]any{}
	}
	args["profile"] = canvasProfile
	out, err := invokeTool(ctx, env, "browser", verb, args)
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.GetBytes(out, "details"), nil
}

// canvasPage makes sure the canvas browser runs and its page shows target
// (navigating only when it shows something else, unless force).
func (h *Host) canvasPage(ctx context.Context, env *tools.Env, target string) error {
	st := h.canvas
	if _, err := browserAction(ctx, env, "start", nil); err != nil {
		return canvasUnavailable(err)
	}
	st.mu.Lock()
	if !st.started {
		st.started, st.env = true, env
	}
	st.mu.Unlock()
	_, err := browserAction(ctx, env, "navigate", map[string]any{"targetUrl": target, "targetId": canvasTab})
	if err != nil && failure.AsError(err).Code == failure.CodeNotFound {
		_, err = browserAction(ctx, env, "open", map[string]any{"targetUrl": target, "label": canvasTab})
	}
	if err != nil {
		return canvasUnavailable(err)
	}
	return nil
}

func canvasUnavailable(err error) error {
	te := failure.AsError(err)
	if te.Code == failure.CodeInvalidParams || te.Code == failure.CodeDenied {
		return err
	}
	return nodeErrorf("UNAVAILABLE", "canvas unavailable: %s", te.Message)
}

// resolveCanvasURL: an http(s) URL as it is; "" or "/" the canvas host's
// root; any other path a file under the canvas host.
func (h *Host) resolveCanvasURL(target string) (string, error) {
	t := strings.TrimSpace(target)
	base := h.canvasOrigin()
	switch {
	case t == "" || t == "/":
		return base + canvasPath, nil
	case strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://"):
		if _, err := url.Parse(t); err != nil {
			return "", failure.Errorf(failure.CodeInvalidParams, "invalid url %q", t)
		}
		return t, nil
	case strings.Contains(t, "://"):
		return "", failure.Errorf(failure.CodeInvalidParams, "canvas URLs are http(s) or canvas host paths, got %q", t)
	}
	p := strings.TrimPrefix(t, "/")
	if strings.HasPrefix("/"+p, canvasPath) || strings.HasPrefix("/"+p, a2uiPath) {
		return base + "/" + p, nil
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", failure.Errorf(failure.CodeInvalidParams, "canvas path %q leaves the canvas root", t)
		}
	}
	return base + canvasPath + p, nil
}

type presentParams struct {
	URL       string         `json:"url"`
	Target    string         `json:"target"`
	Placement map[string]any `json:"placement"`
}

func (h *Host) canvasPresent(ctx context.Context, _ *tools.Env, p presentParams) (any, error) {
	env, err := h.canvasEnv(invocationOf(ctx).req)
	if err != nil {
		return nil, err
	}
	target := p.URL
	if target == "" {
		target = p.Target
	}
	u, err := h.resolveCanvasURL(target)
	if err != nil {
		return nil, err
	}
	if err := h.canvasPage(ctx, env, u); err != nil {
		return nil, err
	}
	w, hh := gjson.Get(mustJSONString(p.Placement), "width").Int(), gjson.Get(mustJSONString(p.Placement), "height").Int()
	if w > 0 && hh > 0 {
		if _, err := browserAction(ctx, env, "resize", map[string]any{"width": min(w, canvasMaxImgPix), "height": min(hh, canvasMaxImgPix), "targetId": canvasTab}); err != nil {
			return nil, canvasUnavailable(err)
		}
	}
	return map[string]any{"ok": true, "url": u}, nil
}

func mustJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (h *Host) canvasNavigate(ctx context.Context, env *tools.Env, p presentParams) (any, error) {
	if p.URL == "" && p.Target == "" {
		return nil, failure.Errorf(failure.CodeInvalidParams, "url required")
	}
	return h.canvasPresent(ctx, env, presentParams{URL: p.URL, Target: p.Target})
}

// canvasHide closes the canvas page (the browser keeps running).
func (h *Host) canvasHide(ctx context.Context, _ *tools.Env, _ json.RawMessage) (any, error) {
	env, err := h.canvasEnv(invocationOf(ctx).req)
	if err != nil {
		return nil, err
	}
	if !h.canvasRunning(ctx, env) {
		return map[string]any{"ok": true}, nil
	}
	if _, err := browserAction(ctx, env, "close", map[string]any{"targetId": canvasTab}); err != nil && failure.AsError(err).Code != failure.CodeNotFound {
		return nil, canvasUnavailable(err)
	}
	return map[string]any{"ok": true}, nil
}

func (h *Host) canvasRunning(ctx context.Context, env *tools.Env) bool {
	d, err := browserAction(ctx, env, "status", nil)
	return err == nil && d.Get("running").Bool()
}

// canvasShown reports whether the canvas page exists, and its URL.
func (h *Host) canvasShown(ctx context.Context, env *tools.Env) (string, bool) {
	if !h.canvasRunning(ctx, env) {
		return "", false
	}
	d, err := browserAction(ctx, env, "tabs", nil)
	if err != nil {
		return "", false
	}
	for _, t := range d.Get("tabs").Array() {
		if t.Get("label").String() == canvasTab {
			return t.Get("url").String(), true
		}
	}
	return "", false
}

type evalParams struct {
	JavaScript string `json:"javaScript"`
}

// canvasEval runs JavaScript in the canvas page: {result} is its value as
// text (a string as it is, anything else as JSON).
func (h *Host) canvasEval(ctx context.Context, _ *tools.Env, p evalParams) (any, error) {
	env, err := h.canvasEnv(invocationOf(ctx).req)
	if err != nil {
		return nil, err
	}
	if _, shown := h.canvasShown(ctx, env); !shown {
		if err := h.canvasPage(ctx, env, h.canvasOrigin()+canvasPath); err != nil {
			return nil, err
		}
	}
	d, err := browserAction(ctx, env, "evaluate", map[string]any{"fn": p.JavaScript, "targetId": canvasTab})
	if err != nil {
		return nil, err
	}
	r := d.Get("result")
	text := r.Raw
	switch r.Type {
	case gjson.String:
		text = r.String()
	case gjson.Null:
		text = "null"
	}
	if !r.Exists() {
		text = "undefined"
	}
	return map[string]any{"result": text}, nil
}

type snapshotParams struct {
	Format   string   `json:"format"`
	MaxWidth int      `json:"maxWidth"`
	Quality  *float64 `json:"quality"`
}

// canvasSnapshot captures the canvas page: {format, base64}, scaled down
// to maxWidth, JPEG at quality (0..1, default 0.9).
func (h *Host) canvasSnapshot(ctx context.Context, _ *tools.Env, p snapshotParams) (any, error) {
	env, err := h.canvasEnv(invocationOf(ctx).req)
	if err != nil {
		return nil, err
	}
	if _, shown := h.canvasShown(ctx, env); !shown {
		if err := h.canvasPage(ctx, env, h.canvasOrigin()+canvasPath); err != nil {
			return nil, err
		}
	}
	format := p.Format
	switch format {
	case "", "png":
		format = "png"
	case "jpg", "jpeg":
		format = "jpeg"
	}
	d, err := browserAction(ctx, env, "screenshot", map[string]any{"targetId": canvasTab, "type": "png"})
	if err != nil {
		return nil, canvasUnavailable(err)
	}
	path := d.Get("path").String()
	if path == "" {
		path = d.Get("media.path").String()
	}
	raw, err := atomicfile.ReadCapped(path, 64<<20)
	if err != nil {
		return nil, nodeErrorf("UNAVAILABLE", "canvas snapshot: %v", err)
	}
	out, err := encodeSnapshot(raw, format, p.MaxWidth, p.Quality)
	if err != nil {
		return nil, nodeErrorf("UNAVAILABLE", "canvas snapshot: %v", err)
	}
	return map[string]any{"format": format, "base64": base64.StdEncoding.EncodeToString(out)}, nil
}

// encodeSnapshot re-encodes a PNG screenshot: scaled to maxWidth (box
// filter) and as PNG or JPEG.
func encodeSnapshot(pngBytes []byte, format string, maxWidth int, quality *float64) ([]byte, error) {
	if format == "png" && maxWidth <= 0 {
		return pngBytes, nil
	}
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return nil, err
	}
	if maxWidth > 0 && img.Bounds().Dx() > maxWidth {
		img = scaleDown(img, maxWidth)
	}
	var buf bytes.Buffer
	if format == "png" {
		err = png.Encode(&buf, img)
	} else {
		q := 0.9
		if quality != nil {
			q = *quality
		}
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: min(max(int(q*100), 1), 100)})
	}
	return buf.Bytes(), err
}

// scaleDown resizes img to width w (height in proportion) by averaging
// the source pixels each target pixel covers.
func scaleDown(src image.Image, w int) image.Image {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	h := max(sh*w/sw, 1)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := 0; x < w; x++ {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var r, g, bl, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := src.At(b.Min.X+sx, b.Min.Y+sy).RGBA()
					r, g, bl, a, n = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca), n+1
				}
			}
			i := dst.PixOffset(x, y)
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = uint8(r/n>>8), uint8(g/n>>8), uint8(bl/n>>8), uint8(a/n>>8)
		}
	}
	return dst
}

// a2uiReady shows the A2UI host page (navigating only when the page is
// elsewhere: a reload would wipe the pushed surfaces) and waits until its
// openclawA2UI.applyMessages exists.
func (h *Host) a2uiReady(ctx context.Context, env *tools.Env) error {
	host := h.canvasOrigin() + a2uiPath
	cur, shown := h.canvasShown(ctx, env)
	if !shown || !strings.HasPrefix(cur, host) {
		if err := h.canvasPage(ctx, env, host); err != nil {
			return err
		}
	}
	_, err := browserAction(ctx, env, "wait", map[string]any{"targetId": canvasTab, "timeoutMs": a2uiWaitMs,
		"fn": `() => typeof globalThis.openclawA2UI?.applyMessages === "function"`})
	if err != nil {
		return nodeErrorf("A2UI_HOST_UNAVAILABLE", "A2UI_HOST_UNAVAILABLE: A2UI host not reachable (%s)", failure.AsError(err).Message)
	}
	return nil
}

type a2uiPushParams struct {
	Messages []json.RawMessage `json:"messages"`
}

func (h *Host) canvasA2UIPush(ctx context.Context, _ *tools.Env, p a2uiPushParams) (any, error) {
	return h.a2uiApply(ctx, p.Messages)
}

type a2uiJSONLParams struct {
	JSONL string `json:"jsonl"`
}

// canvasA2UIPushJSONL splits the JSONL into messages (blank lines
// skipped; every other line must be a JSON object) and applies them.
func (h *Host) canvasA2UIPushJSONL(ctx context.Context, _ *tools.Env, p a2uiJSONLParams) (any, error) {
	var msgs []json.RawMessage
	var errs []string
	for i, line := range strings.Split(p.JSONL, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !json.Valid([]byte(line)) || !gjson.Parse(line).IsObject() {
			errs = append(errs, fmt.Sprintf("- line %d: not a JSON object", i+1))
			continue
		}
		msgs = append(msgs, json.RawMessage(line))
	}
	if len(errs) > 0 {
		return nil, failure.Errorf(failure.CodeInvalidParams, "Invalid A2UI JSONL:\n%s", strings.Join(errs, "\n"))
	}
	if len(msgs) == 0 {
		return nil, failure.Errorf(failure.CodeInvalidParams, "Invalid A2UI JSONL: no messages")
	}
	return h.a2uiApply(ctx, msgs)
}

func (h *Host) a2uiApply(ctx context.Context, msgs []json.RawMessage) (any, error) {
	env, err := h.canvasEnv(invocationOf(ctx).req)
	if err != nil {
		return nil, err
	}
	if err := h.a2uiReady(ctx, env); err != nil {
		return nil, err
	}
	if msgs == nil {
		msgs = []json.RawMessage{}
	}
	arg, _ := json.Marshal(msgs)
	d, err := browserAction(ctx, env, "evaluate", map[string]any{"targetId": canvasTab,
		"fn": "async () => await globalThis.openclawA2UI.applyMessages(" + string(arg) + ")"})
	if err != nil {
		return nil, nodeErrorf("UNAVAILABLE", "A2UI apply failed: %s", failure.AsError(err).Message)
	}
	res := d.Get("result")
	if !res.IsObject() {
		return map[string]any{"ok": true}, nil
	}
	return json.RawMessage(res.Raw), nil
}

// canvasA2UIReset clears the surfaces (openclawA2UI.reset) when the A2UI
// page is shown; with nothing shown there is nothing to clear.
func (h *Host) canvasA2UIReset(ctx context.Context, _ *tools.Env, _ json.RawMessage) (any, error) {
	env, err := h.canvasEnv(invocationOf(ctx).req)
	if err != nil {
		return nil, err
	}
	cur, shown := h.canvasShown(ctx, env)
	if !shown || !strings.HasPrefix(cur, h.canvasOrigin()+a2uiPath) {
		return map[string]any{"ok": true}, nil
	}
	if err := h.a2uiReady(ctx, env); err != nil {
		return nil, err
	}
	if _, err := browserAction(ctx, env, "evaluate", map[string]any{"targetId": canvasTab,
		"fn": "async () => { await globalThis.openclawA2UI.reset?.(); return true }"}); err != nil {
		return nil, nodeErrorf("UNAVAILABLE", "A2UI reset failed: %s", failure.AsError(err).Message)
	}
	return map[string]any{"ok": true}, nil
}

// close stops the canvas browser this node host started.
func (s *canvasState) close(h *Host) {
	s.mu.Lock()
	started, env := s.started, s.env
	s.started = false
	s.mu.Unlock()
	if !started || env == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := browserAction(ctx, env, "stop", nil); err != nil {
		h.logf("node host: stopping the canvas browser: %v", err)
	}
}
