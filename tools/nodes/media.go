package nodes

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

// Camera and screen actions: the node answers base64 media; the gateway
// stores it under media/ and the result names it, MEDIA:<path> for images
// (with the image inline, for models that see) and FILE:<path> for clips
// and recordings (spec C.2). details.media carries the references, so
// `--out FILE` copies them on the command line.

// maxMediaBytes bounds one decoded clip, snapshot or recording.
const maxMediaBytes = 64 << 20

func registerMedia() {
	reg(&tools.Action{Verb: "camera_snap", Summary: "Take a photo with a node's camera (camera.snap; facing both: one per camera)", Media: true,
		Schema: objReq([]string{"node"}, propNode, propInvokeTimeout,
			`"facing":{"type":"string","enum":["front","back","both"],"description":"Camera (default both)"}`,
			`"maxWidth":{"type":"integer","minimum":1,"description":"Scale the photo down to at most this width in pixels"}`, `"quality":{"type":"number","minimum":0,"maximum":1,"description":"JPEG quality from 0 to 1"}`,
			`"delayMs":{"type":"integer","minimum":0,"description":"Wait this long before taking the photo"}`, `"deviceId":{"type":"string","description":"Camera device id on the node (default: by facing)"}`),
		Examples: []string{"openclaw nodes camera snap --node phone --facing back --out shot.jpg"},
		Run:      runCameraSnap})
	reg(&tools.Action{Verb: "camera_clip", Summary: "Record a short clip with a node's camera (camera.clip)", Media: true,
		Schema: objReq([]string{"node"}, propNode, propInvokeTimeout,
			`"facing":{"type":"string","enum":["front","back"],"description":"Camera (default front)"}`,
			`"duration":{"type":"string","description":"3000, 10s or 1m (default 3 s, at most 60 s)"}`, `"durationMs":{"type":"integer","minimum":1,"description":"Length in milliseconds (instead of duration)"}`,
			`"includeAudio":{"type":"boolean","description":"Record sound (default true)"}`, `"deviceId":{"type":"string","description":"Camera device id on the node (default: by facing)"}`),
		Run: runCameraClip})
	reg(&tools.Action{Verb: "screen_record", Summary: "Record a node's screen (screen.record)", Media: true,
		Schema: objReq([]string{"node"}, propNode, propInvokeTimeout,
			`"duration":{"type":"string","description":"10000, 10s or 1m (default 10 s)"}`, `"durationMs":{"type":"integer","minimum":1,"description":"Length in milliseconds (instead of duration)"}`,
			`"fps":{"type":"number","minimum":1,"maximum":60,"description":"Frames per second (default 10)"}`, `"screenIndex":{"type":"integer","minimum":0,"description":"Which screen, 0 the first (default 0)"}`,
			`"includeAudio":{"type":"boolean","description":"Record sound (default true)"}`),
		Run: runScreenRecord})
}

// durationParam reads durationMs or duration (ms number, or 10s/1m).
func durationParam(p map[string]any, def int64) (int64, error) {
	if v, ok := p["durationMs"].(float64); ok && v > 0 {
		return int64(v), nil
	}
	if n, ok := p["durationMs"].(json.Number); ok {
		if v, err := n.Int64(); err == nil && v > 0 {
			return v, nil
		}
	}
	s := str(p["duration"])
	if s == "" {
		return def, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, tools.Errorf(tools.CodeInvalidParams, "duration %q: give milliseconds or a duration such as 10s or 1m", s)
	}
	return d.Milliseconds(), nil
}

func boolParam(p map[string]any, key string, def bool) bool {
	if v, ok := p[key].(bool); ok {
		return v
	}
	return def
}

// saveMedia decodes a node's base64 media and stores it.
func saveMedia(ctx context.Context, env *tools.Env, b64, mimeType, hint string) (tools.MediaRef, error) {
	m, err := env.NeedMedia("node media")
	if err != nil {
		return tools.MediaRef{}, err
	}
	if base64.StdEncoding.DecodedLen(len(b64)) > maxMediaBytes {
		return tools.MediaRef{}, tools.Errorf(tools.CodeFailed, "node media too large (more than %d MiB)", maxMediaBytes>>20)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return tools.MediaRef{}, tools.Errorf(tools.CodeFailed, "node media is not base64: %v", err)
	}
	ref, err := m.Save(ctx, bytes.NewReader(data), mimeType, hint)
	if err != nil {
		return tools.MediaRef{}, fmt.Errorf("store node media: %w", err)
	}
	return ref, nil
}

func mediaMime(format, kind string) string {
	switch strings.ToLower(format) {
	case "png":
		return "image/png"
	case "jpg", "jpeg":
		return "image/jpeg"
	case "webm":
		return "video/webm"
	case "mov":
		return "video/quicktime"
	}
	if kind == "image" {
		return "image/jpeg"
	}
	return "video/mp4"
}

func runCameraSnap(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	p := map[string]any{}
	_ = json.Unmarshal(raw, &p)
	n, err := resolveNode(ctx, env, str(p["node"]))
	if err != nil {
		return nil, err
	}
	facings := []string{"front", "back"}
	if f := str(p["facing"]); f != "" && f != "both" {
		facings = []string{f}
	}
	res := &tools.Result{}
	var details, refs []any
	for _, facing := range facings {
		params := map[string]any{"facing": facing, "format": "jpg"}
		copyKeys(params, p, "maxWidth", "quality", "delayMs", "deviceId")
		out, err := invokeNode(ctx, env, n.NodeID, "camera.snap", params, timeoutOf(p, 20000))
		if err != nil {
			return nil, err
		}
		pl := out.Get("payload")
		b64 := pl.Get("base64").String()
		if b64 == "" {
			return nil, tools.Errorf(tools.CodeFailed, "camera.snap: the node sent no image (payload has no base64)")
		}
		mime := mediaMime(pl.Get("format").String(), "image")
		ref, err := saveMedia(ctx, env, b64, mime, "camera-"+facing)
		if err != nil {
			return nil, err
		}
		res.Content = append(res.Content, tools.TextBlock("MEDIA:"+ref.Path), tools.Block{Type: "image", Data: strings.TrimSpace(b64), MimeType: mime})
		details = append(details, map[string]any{"facing": facing, "path": ref.Path, "width": pl.Get("width").Int(), "height": pl.Get("height").Int()})
		refs = append(refs, ref)
	}
	res.Details = map[string]any{"images": details, "media": refs}
	return res, nil
}

func runCameraClip(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	p := map[string]any{}
	_ = json.Unmarshal(raw, &p)
	dur, err := durationParam(p, 3000)
	if err != nil {
		return nil, err
	}
	dur = min(dur, 60000)
	n, err := resolveNode(ctx, env, str(p["node"]))
	if err != nil {
		return nil, err
	}
	facing := first(str(p["facing"]), "front")
	params := map[string]any{"facing": facing, "durationMs": dur, "includeAudio": boolParam(p, "includeAudio", true), "format": "mp4"}
	copyKeys(params, p, "deviceId")
	out, err := invokeNode(ctx, env, n.NodeID, "camera.clip", params, timeoutOf(p, 90000))
	if err != nil {
		return nil, err
	}
	return fileResult(ctx, env, out.Get("payload"), "camera-clip", map[string]any{"facing": facing})
}

func runScreenRecord(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	p := map[string]any{}
	_ = json.Unmarshal(raw, &p)
	dur, err := durationParam(p, 10000)
	if err != nil {
		return nil, err
	}
	n, err := resolveNode(ctx, env, str(p["node"]))
	if err != nil {
		return nil, err
	}
	params := map[string]any{"durationMs": dur, "screenIndex": 0, "fps": 10, "format": "mp4", "includeAudio": boolParam(p, "includeAudio", true)}
	copyKeys(params, p, "screenIndex", "fps")
	out, err := invokeNode(ctx, env, n.NodeID, "screen.record", params, timeoutOf(p, 120000))
	if err != nil {
		return nil, err
	}
	return fileResult(ctx, env, out.Get("payload"), "screen-record", map[string]any{"fps": params["fps"], "screenIndex": params["screenIndex"]})
}

// fileResult stores a clip or recording: text FILE:<path>, details with the
// path, duration, audio and the caller's extras.
func fileResult(ctx context.Context, env *tools.Env, pl gjson.Result, hint string, extra map[string]any) (any, error) {
	b64 := pl.Get("base64").String()
	if b64 == "" {
		return nil, tools.Errorf(tools.CodeFailed, "%s: the node sent no media (payload has no base64)", hint)
	}
	ref, err := saveMedia(ctx, env, b64, mediaMime(pl.Get("format").String(), "video"), hint)
	if err != nil {
		return nil, err
	}
	details := map[string]any{"path": ref.Path, "durationMs": pl.Get("durationMs").Int(), "hasAudio": pl.Get("hasAudio").Bool(), "media": ref}
	for k, v := range extra {
		details[k] = v
	}
	return tools.TextResult("FILE:"+ref.Path, details), nil
}
