// Package canvas is the canvas family: the `canvas` agent tool, whose
// actions drive a node's canvas through node.invoke (present, hide,
// navigate, eval, snapshot, a2ui_push, a2ui_reset), and the canvas host the
// gateway serves (host.go, service.go). On the command line the tool is
// `openclaw nodes canvas ...`, as in the original.
package canvas

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/a2ui"
	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/tools"
)

// params are the tool's flat params (every action reads its own).
type params struct {
	Node         string   `json:"node"`
	TimeoutMs    *float64 `json:"timeoutMs"`
	Target       string   `json:"target"`
	URL          string   `json:"url"`
	X            *float64 `json:"x"`
	Y            *float64 `json:"y"`
	Width        *float64 `json:"width"`
	Height       *float64 `json:"height"`
	JavaScript   string   `json:"javaScript"`
	OutputFormat string   `json:"outputFormat"`
	MaxWidth     *float64 `json:"maxWidth"`
	Quality      *float64 `json:"quality"`
	DelayMs      *float64 `json:"delayMs"`
	JSONL        string   `json:"jsonl"`
	JSONLPath    string   `json:"jsonlPath"`
	Text         *string  `json:"text"`
}

const (
	propNode    = `"node":{"type":"string","description":"Node id, display name, IP or id prefix (6+ characters); default: the one connected node with the canvas capability"}`
	propTimeout = `"timeoutMs":{"type":"number","minimum":1,"maximum":600000,"description":"How long the node may take, in ms (default 30000)"}`
)

// The schemas are constant expressions: built at compile time, not at
// every process start.
const (
	schemaHead = `{"type":"object","properties":{` + propNode + "," + propTimeout
	schemaTail = `}}`
	schemaNone = schemaHead + schemaTail
)

// cliFlags are the original CLI's flag names where they differ from the
// params' (--invoke-timeout for timeoutMs).
var cliFlags = map[string]string{"timeoutMs": "invoke-timeout"}

func with(extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range cliFlags {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// command is the action's words on the command line.
func command(words ...string) []string { return append([]string{"nodes", "canvas"}, words...) }

func reg(a *tools.Action) {
	a.Tool = "canvas"
	a.Where = tools.Gateway
	hint(a)
	if a.Flags == nil {
		a.Flags = cliFlags
	}
	tools.Register(a)
}

func init() {
	reg(&tools.Action{Verb: "present", Summary: "Show the node's canvas (optionally at a URL or path, and where on screen)",
		Command: command("present"),
		Examples: []string{"openclaw nodes canvas present --node build-box --target http://127.0.0.1:18789/__openclaw__/canvas/",
			"openclaw nodes canvas present --node build-box --x 0 --y 0 --width 800 --height 600"},
		Schema: schemaHead + "," + `"target":{"type":"string","description":"URL or canvas path to show"}` +
			"," + `"url":{"type":"string","description":"Same as target"}` +
			"," + `"x":{"type":"number","description":"Window x position in pixels"}` +
			"," + `"y":{"type":"number","description":"Window y position in pixels"}` +
			"," + `"width":{"type":"number","description":"Window width in pixels"}` +
			"," + `"height":{"type":"number","description":"Window height in pixels"}` + schemaTail,
		Run: tools.Typed(present), Render: renderOK("present")})
	reg(&tools.Action{Verb: "hide", Summary: "Hide the node's canvas", Command: command("hide"),
		Examples: []string{"openclaw nodes canvas hide --node build-box"},
		Schema:   schemaNone, Run: tools.Typed(simple("canvas.hide")), Render: renderOK("hide")})
	reg(&tools.Action{Verb: "navigate", Summary: "Load a URL (or canvas path) in the node's canvas", Command: command("navigate"),
		Args:     []string{"url"},
		Examples: []string{"openclaw nodes canvas navigate http://127.0.0.1:18789/__openclaw__/a2ui/ --node build-box"},
		Schema: schemaHead + "," + `"url":{"type":"string","description":"URL or canvas path to load"}` +
			"," + `"target":{"type":"string","description":"Same as url"}` + schemaTail,
		Run: tools.Typed(navigate), Render: renderOK("navigate")})
	reg(&tools.Action{Verb: "eval", Summary: "Run JavaScript in the node's canvas page and print its result", Command: command("eval"),
		Args: []string{"javaScript"}, Flags: with(map[string]string{"javaScript": "js"}),
		Examples: []string{"openclaw nodes canvas eval 'document.title' --node build-box", "openclaw nodes canvas eval --js 'location.href' --node build-box"},
		Schema:   schemaHead + "," + `"javaScript":{"type":"string","description":"JavaScript to evaluate in the canvas page"}` + schemaTail,
		Run:      tools.Typed(evalJS), Render: renderEval})
	reg(&tools.Action{Verb: "snapshot", Summary: "Capture the node's canvas as an image, stored as media (MEDIA:<path>)", Command: command("snapshot"),
		Media: true, Flags: with(map[string]string{"outputFormat": "format"}),
		Examples: []string{"openclaw nodes canvas snapshot --node build-box", "openclaw nodes canvas snapshot --node build-box --format jpg --max-width 800 --out shot.jpg"},
		Schema: schemaHead + "," + `"outputFormat":{"type":"string","enum":["png","jpg","jpeg"],"description":"Image format (default png)"}` +
			"," + `"maxWidth":{"type":"number","minimum":1,"description":"Largest width in pixels (aspect ratio kept)"}` +
			"," + `"quality":{"type":"number","minimum":0,"maximum":100,"description":"JPEG quality, 0-1 (or a percentage)"}` +
			"," + `"delayMs":{"type":"number","minimum":0,"maximum":60000,"description":"Wait this long before capturing (animations)"}` + schemaTail,
		Run: tools.Typed(snapshot), Render: renderSnapshot})
	reg(&tools.Action{Verb: "a2ui_push", Summary: "Render A2UI v0.8 JSONL in the node's canvas (checked line by line first)", Command: command("a2ui", "push"),
		StdinParam: "jsonl", FileParams: []string{"jsonl"},
		Description: "Give the JSONL inline (jsonl), as a file (jsonlPath; for agents it must be in the workspace, the media " +
			"directory or /tmp/openclaw), or generate a one-text surface with text. On the command line --jsonl names a file " +
			"(- for stdin), and JSONL piped on stdin is read when neither --jsonl nor --text is given. A2UI v0.9 " +
			"(createSurface) is refused: this canvas renders v0.8.",
		Examples: []string{"openclaw nodes canvas a2ui push --node build-box --text 'Hello'",
			"openclaw nodes canvas a2ui push --node build-box --jsonl ui.jsonl", "openclaw nodes canvas a2ui push --node build-box < ui.jsonl"},
		Schema: schemaHead + "," + `"jsonl":{"type":"string","description":"A2UI v0.8 JSONL: one message per line (surfaceUpdate, dataModelUpdate, beginRendering, deleteSurface)"}` +
			"," + `"jsonlPath":{"type":"string","description":"A file holding the JSONL (instead of jsonl)"}` +
			"," + `"text":{"type":"string","description":"Render this text as a one-text surface (instead of jsonl)"}` + schemaTail,
		Run: tools.Typed(push), Render: renderPush})
	reg(&tools.Action{Verb: "a2ui_reset", Summary: "Drop every A2UI surface from the node's canvas", Command: command("a2ui", "reset"),
		Examples: []string{"openclaw nodes canvas a2ui reset --node build-box"},
		Schema:   schemaNone, Run: tools.Typed(simple("canvas.a2ui.reset")), Render: renderOK("a2ui reset")})
}

// invoke sends one command to the node through node.invoke (the gateway
// method, reached through tools.Invoke with the caller's identity) and
// returns the node's payload.
func invoke(ctx context.Context, env *tools.Env, nodeID, cmd string, cmdParams any, p params) (json.RawMessage, error) {
	envelope := map[string]any{"nodeId": nodeID, "command": cmd, "idempotencyKey": uuid.NewString()}
	if cmdParams != nil {
		envelope["params"] = cmdParams
	}
	if p.TimeoutMs != nil {
		envelope["timeoutMs"] = int64(*p.TimeoutMs)
	}
	b, err := json.Marshal(envelope)
	if err != nil {
		return nil, err
	}
	raw, err := tools.Invoke(ctx, env, tools.Call{Method: "node.invoke", Args: b})
	if err != nil {
		return nil, err
	}
	r := gjson.ParseBytes(raw)
	if r.Get("ok").Exists() && !r.Get("ok").Bool() {
		msg := r.Get("error.message").String()
		if msg == "" {
			msg = "the node refused " + cmd
		}
		e := tools.Errorf(tools.CodeFailed, "%s", msg)
		if c := r.Get("error.code").String(); c != "" {
			e = e.WithDetails(map[string]any{"nodeCode": c})
		}
		return nil, e
	}
	if pl := r.Get("payload"); pl.Exists() {
		return json.RawMessage(pl.Raw), nil
	}
	if pj := r.Get("payloadJSON"); pj.Type == gjson.String {
		if pj.Str == "" {
			return json.RawMessage(`null`), nil
		}
		if !json.Valid([]byte(pj.Str)) {
			return nil, tools.Errorf(tools.CodeFailed, "%s: the node's payloadJSON is not JSON", cmd)
		}
		return json.RawMessage(pj.Str), nil
	}
	return json.RawMessage(`null`), nil
}

func ok(nodeID string, extra map[string]any) (any, error) {
	out := map[string]any{"ok": true, "node": nodeID}
	for k, v := range extra {
		out[k] = v
	}
	return tools.JSONResult(out)
}

func simple(cmd string) func(context.Context, *tools.Env, params) (any, error) {
	return func(ctx context.Context, env *tools.Env, p params) (any, error) {
		id, err := resolveNode(ctx, env, p.Node)
		if err != nil {
			return nil, err
		}
		if _, err := invoke(ctx, env, id, cmd, nil, p); err != nil {
			return nil, err
		}
		return ok(id, nil)
	}
}

func present(ctx context.Context, env *tools.Env, p params) (any, error) {
	cmd := map[string]any{}
	if u := firstNonEmpty(p.Target, p.URL); u != "" {
		cmd["url"] = u
	}
	placement := map[string]any{}
	for k, v := range map[string]*float64{"x": p.X, "y": p.Y, "width": p.Width, "height": p.Height} {
		if v != nil && !math.IsInf(*v, 0) && !math.IsNaN(*v) {
			placement[k] = *v
		}
	}
	if len(placement) > 0 {
		cmd["placement"] = placement
	}
	id, err := resolveNode(ctx, env, p.Node)
	if err != nil {
		return nil, err
	}
	if _, err := invoke(ctx, env, id, "canvas.present", cmd, p); err != nil {
		return nil, err
	}
	return ok(id, nil)
}

func navigate(ctx context.Context, env *tools.Env, p params) (any, error) {
	u := firstNonEmpty(p.URL, p.Target)
	if u == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "url required")
	}
	id, err := resolveNode(ctx, env, p.Node)
	if err != nil {
		return nil, err
	}
	if _, err := invoke(ctx, env, id, "canvas.navigate", map[string]any{"url": u}, p); err != nil {
		return nil, err
	}
	return ok(id, nil)
}

func evalJS(ctx context.Context, env *tools.Env, p params) (any, error) {
	if strings.TrimSpace(p.JavaScript) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "javaScript required")
	}
	id, err := resolveNode(ctx, env, p.Node)
	if err != nil {
		return nil, err
	}
	payload, err := invoke(ctx, env, id, "canvas.eval", map[string]any{"javaScript": p.JavaScript}, p)
	if err != nil {
		return nil, err
	}
	res := gjson.GetBytes(payload, "result")
	text := res.Str
	if res.Exists() && res.Type != gjson.String && res.Type != gjson.Null {
		text = res.Raw // a node that sends a JSON value: shown as JSON
	}
	if text == "" {
		return ok(id, nil)
	}
	return &tools.Result{Content: []tools.Block{tools.TextBlock(text)}, Details: map[string]any{"result": text, "node": id}}, nil
}

// maxSnapshot caps a snapshot's decoded bytes.
const maxSnapshot = 32 << 20

func snapshot(ctx context.Context, env *tools.Env, p params) (any, error) {
	media, err := env.NeedMedia("canvas snapshots")
	if err != nil {
		return nil, err
	}
	format := "png"
	if f := strings.ToLower(p.OutputFormat); f == "jpg" || f == "jpeg" {
		format = "jpeg"
	}
	cmd := map[string]any{"format": format}
	if p.MaxWidth != nil {
		cmd["maxWidth"] = int64(*p.MaxWidth)
	}
	if p.Quality != nil {
		q := *p.Quality
		if q > 1 {
			q /= 100 // a percentage
		}
		cmd["quality"] = q
	}
	if p.DelayMs != nil {
		cmd["delayMs"] = int64(*p.DelayMs)
	}
	id, err := resolveNode(ctx, env, p.Node)
	if err != nil {
		return nil, err
	}
	payload, err := invoke(ctx, env, id, "canvas.snapshot", cmd, p)
	if err != nil {
		return nil, err
	}
	got := strings.ToLower(gjson.GetBytes(payload, "format").String())
	b64 := gjson.GetBytes(payload, "base64").String()
	if b64 == "" {
		return nil, tools.Errorf(tools.CodeFailed, "canvas.snapshot: the node sent no image (payload %s)", clip(payload))
	}
	if base64.StdEncoding.DecodedLen(len(b64)) > maxSnapshot {
		return nil, tools.Errorf(tools.CodeFailed, "canvas.snapshot: the image is larger than %d MiB", maxSnapshot>>20)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "canvas.snapshot: the image is not base64: %v", err)
	}
	mime, ext := "image/png", "png"
	if got == "jpeg" || got == "jpg" {
		got, mime, ext = "jpeg", "image/jpeg", "jpg"
	} else if got == "" {
		got = format
		if format == "jpeg" {
			mime, ext = "image/jpeg", "jpg"
		}
	}
	ref, err := media.Save(ctx, bytes.NewReader(data), mime, "canvas-snapshot."+ext)
	if err != nil {
		return nil, tools.AsError(err)
	}
	return &tools.Result{
		Content: []tools.Block{tools.TextBlock("MEDIA:" + ref.Path), tools.ImageBlock(data, mime)},
		Details: map[string]any{"format": got, "path": ref.Path, "media": ref, "node": id},
	}, nil
}

// maxJSONL caps the JSONL of one push (inline or from a file).
const maxJSONL = 4 << 20

func push(ctx context.Context, env *tools.Env, p params) (any, error) {
	jsonl, err := pushSource(env, p)
	if err != nil {
		return nil, err
	}
	res, err := a2ui.ValidateSupported(jsonl)
	if err != nil {
		e := tools.Errorf(tools.CodeInvalidParams, "%s", err.Error())
		var ve *a2ui.Error
		if errors.As(err, &ve) {
			e = e.WithDetails(map[string]any{"issues": ve.Issues, "example": a2ui.Example})
		}
		return nil, e
	}
	id, err := resolveNode(ctx, env, p.Node)
	if err != nil {
		return nil, err
	}
	if _, err := invoke(ctx, env, id, "canvas.a2ui.pushJSONL", map[string]any{"jsonl": jsonl}, p); err != nil {
		return nil, err
	}
	return ok(id, map[string]any{"version": res.Version, "messages": res.MessageCount})
}

// pushSource is the JSONL to push: exactly one of jsonl, jsonlPath and
// text (an empty jsonl counts as none: piped stdin may be empty).
func pushSource(env *tools.Env, p params) (string, error) {
	hasJSONL := strings.TrimSpace(p.JSONL) != ""
	hasPath := strings.TrimSpace(p.JSONLPath) != ""
	hasText := p.Text != nil
	n := 0
	for _, b := range []bool{hasJSONL, hasPath, hasText} {
		if b {
			n++
		}
	}
	switch {
	case n == 0:
		return "", tools.Errorf(tools.CodeInvalidParams, "jsonl or jsonlPath required")
	case hasText && n > 1:
		return "", tools.Errorf(tools.CodeInvalidParams, "provide exactly one of --jsonl or --text")
	case hasJSONL && hasPath:
		return "", tools.Errorf(tools.CodeInvalidParams, "provide exactly one of jsonl or jsonlPath")
	case hasText:
		return a2ui.TextJSONL(*p.Text), nil
	case hasJSONL:
		if len(p.JSONL) > maxJSONL {
			return "", tools.Errorf(tools.CodeInvalidParams, "jsonl is larger than %d MiB", maxJSONL>>20)
		}
		return p.JSONL, nil
	}
	return readJSONLPath(env, p.JSONLPath)
}

// jsonlRoots are where jsonlPath may point (the original's media roots):
// the agent workspace, the state dir's media and /tmp/openclaw.
func jsonlRoots(env *tools.Env) []string {
	roots := []string{env.WorkspaceDir(), filepath.Join(env.StateDir, "media"), filepath.Join("/tmp", "openclaw")}
	if t := filepath.Join(os.TempDir(), "openclaw"); t != roots[2] {
		roots = append(roots, t)
	}
	return roots
}

func under(p, root string) bool {
	if root == "" {
		return false
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readJSONLPath reads jsonlPath (relative to the workspace) if its real
// path lies inside one of the roots; the file itself may not be a symlink.
func readJSONLPath(env *tools.Env, path string) (string, error) {
	abs := strings.TrimSpace(path)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(env.WorkspaceDir(), abs)
	}
	real, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", tools.Errorf(tools.CodeNotFound, "jsonlPath: %v", err)
	}
	real = filepath.Join(real, filepath.Base(abs))
	inside := false
	for _, r := range jsonlRoots(env) {
		if under(real, r) {
			inside = true
		}
	}
	if !inside {
		return "", tools.Errorf(tools.CodeDenied, "jsonlPath outside allowed roots (%s)", strings.Join(jsonlRoots(env), ", "))
	}
	b, err := atomicfile.ReadCapped(real, maxJSONL)
	if err != nil {
		if errors.Is(err, atomicfile.ErrNotRegular) {
			return "", tools.Errorf(tools.CodeDenied, "jsonlPath: %v", err)
		}
		if errors.Is(err, atomicfile.ErrTooLarge) {
			return "", tools.Errorf(tools.CodeInvalidParams, "jsonlPath: %v", err)
		}
		return "", tools.Errorf(tools.CodeNotFound, "jsonlPath: %v", err)
	}
	return string(b), nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if t := strings.TrimSpace(s); t != "" {
			return t
		}
	}
	return ""
}

// Renderers: the original CLI's lines.

func renderOK(what string) tools.Renderer {
	return func(w io.Writer, r gjson.Result) error {
		_, err := fmt.Fprintf(w, "canvas %s ok\n", what)
		return err
	}
}

func renderEval(w io.Writer, r gjson.Result) error {
	if res := r.Get("details.result"); res.Exists() {
		_, err := fmt.Fprintln(w, res.String())
		return err
	}
	_, err := fmt.Fprintln(w, "canvas eval ok")
	return err
}

func renderSnapshot(w io.Writer, r gjson.Result) error {
	_, err := fmt.Fprintf(w, "MEDIA:%s\n", r.Get("details.path").String())
	return err
}

func renderPush(w io.Writer, r gjson.Result) error {
	n := r.Get("details.messages").Int()
	s := "s"
	if n == 1 {
		s = ""
	}
	_, err := fmt.Fprintf(w, "canvas a2ui push ok (%s, %d message%s)\n", r.Get("details.version").String(), n, s)
	return err
}

// hint sets an action's behaviour hints (tools.Action.ReadOnly…): the
// canvas is on another device, so every action is open-world.
func hint(a *tools.Action) {
	a.OpenWorld = true
	switch a.Verb {
	case "snapshot":
		a.ReadOnly, a.Idempotent = true, true
	case "present", "hide", "navigate":
		a.Idempotent = true
	case "a2ui_reset":
		a.Destructive, a.Idempotent = true, true
	case "eval":
		a.Destructive = true
	}
}
