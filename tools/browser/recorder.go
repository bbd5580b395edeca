package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
)

// The recorder is what lets console, requests, dialogs and downloads
// survive between CLI calls. The browser outlives every `openclaw browser`
// process and CDP only reports events to a session that was listening when
// they happened (a console error during page load, the requests a click
// started, a dialog that opens, a finished download), so one small detached
// process per running browser listens all the time: `start` launches it (a
// re-exec of this binary as the hidden subcommand `openclaw
// __browser-recorder`, its spec on stdin: recproto.go), it attaches to every tab, keeps bounded
// rings in memory and answers the CLI over a Unix socket in the profile
// dir. It ends with the browser. The gateway's browser service was the
// other choice, but CLI calls do not go through a gateway, and both front
// doors must see the same capture; a process per browser serves both.
// Memory rather than a file or SQLite: the capture is only meaningful while
// the browser lives, and response bodies and pending dialogs can only be
// fetched or answered through the live CDP session that saw them.

const (
	consoleRing     = 500
	requestRing     = 1000
	eventRing       = 500
	consoleTextCap  = 2048
	recorderIOLimit = 8 << 20
)

func init() { tools.RegisterEntrypoint(recorderEntry, recorderMain) }

type consoleEntry struct {
	ID        int64          `json:"id"`
	seq       int64          `json:"-"`
	TargetID  string         `json:"targetId"`
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	Timestamp int64          `json:"timestamp"`
	Location  map[string]any `json:"location,omitempty"`
}

type requestEntry struct {
	ID         int64   `json:"id"`
	seq        int64   `json:"-"`
	TargetID   string  `json:"targetId"`
	Method     string  `json:"method"`
	URL        string  `json:"url"`
	Type       string  `json:"type,omitempty"`
	Status     int     `json:"status,omitempty"`
	StatusText string  `json:"statusText,omitempty"`
	MimeType   string  `json:"mimeType,omitempty"`
	StartedAt  int64   `json:"startedAt"`
	DurationMs float64 `json:"durationMs,omitempty"`
	Failed     string  `json:"failed,omitempty"`
	Done       bool    `json:"done"`
	started    float64 // CDP monotonic seconds
	requestID  proto.NetworkRequestID
	session    proto.TargetSessionID
	frameID    string
}

// event is a dialog, download, tab or navigation milestone.
type event struct {
	seq      int64
	Kind     string // dialog, download, tab, navRequested, navigated, load
	TargetID string
	Data     map[string]any
}

type dialogArm struct {
	Accept     bool
	PromptText string
}

type recorder struct {
	spec  recorderSpec
	b     *rod.Browser
	media tools.Media

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change
	seq      int64
	nextMsg  int64
	nextReq  int64
	console  []*consoleEntry
	requests []*requestEntry
	events   []*event
	reqs     map[string]*requestEntry // session/requestId → entry
	sessions map[proto.TargetSessionID]string
	targets  map[string]proto.TargetSessionID
	pending  map[string]*event // targetId → open dialog not answered
	armed    map[string]dialogArm
	closing  map[string]bool // targetId → being closed: its dialogs are dismissed
	cursors  map[string]int64
	loads    map[string]*event        // guid → download event
	syncs    map[string]chan struct{} // settle marker payload → closed when handled
	nextSync int64
	// early are the act markers (actSyncPrefix) handled before their
	// settle asked for them, with when they came (kept a few seconds).
	early   map[string]time.Time
	uploads map[string]uploadArm // targetId → files for its next file chooser
	nextArm int64

	guard        *netguard.Policy // nil: no request is refused (guard.go)
	guardMu      sync.Mutex       // serialises setGuard
	intercepting bool
}

// recorderMain is `openclaw __browser-recorder`: it reads its spec (JSON)
// from stdin and records until the browser goes away or it is told to quit.
func recorderMain(_ []string, stdin io.Reader, _, stderr io.Writer) int {
	var spec recorderSpec
	if err := json.NewDecoder(io.LimitReader(stdin, 1<<20)).Decode(&spec); err != nil {
		fmt.Fprintln(stderr, "browser recorder: spec on stdin:", err)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := recordBrowser(ctx, cancel, spec); err != nil {
		fmt.Fprintln(stderr, "browser recorder:", err)
		return 1
	}
	return 0
}

func recordBrowser(ctx context.Context, cancel context.CancelFunc, spec recorderSpec) error {
	// One recorder per browser: a live socket means another one runs.
	if c, err := net.DialTimeout("unix", spec.Sock, 200*time.Millisecond); err == nil {
		c.Close()
		return nil
	}
	_ = os.Remove(spec.Sock)
	l, err := net.Listen("unix", spec.Sock)
	if err != nil {
		return err
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	mine, err := os.Stat(spec.Sock)
	if err != nil {
		return err
	}
	// Remove the socket on the way out only while it is still ours (a
	// newer recorder may have replaced it).
	defer func() {
		if fi, err := os.Stat(spec.Sock); err == nil && os.SameFile(fi, mine) {
			_ = os.Remove(spec.Sock)
		}
	}()
	defer l.Close()
	b, err := connect(ctx, spec.WS)
	if err != nil {
		return err
	}
	r := &recorder{spec: spec, b: b, media: media.New(spec.StateDir), changed: make(chan struct{}),
		reqs: map[string]*requestEntry{}, sessions: map[proto.TargetSessionID]string{}, targets: map[string]proto.TargetSessionID{},
		pending: map[string]*event{}, armed: map[string]dialogArm{}, closing: map[string]bool{}, cursors: map[string]int64{}, loads: map[string]*event{},
		uploads: map[string]uploadArm{}}
	events := b.Event()
	dl := filepath.Join(spec.Dir, "downloads")
	if err := os.MkdirAll(dl, 0o700); err != nil {
		return err
	}
	if err := (proto.BrowserSetDownloadBehavior{Behavior: proto.BrowserSetDownloadBehaviorBehaviorAllowAndName,
		DownloadPath: dl, EventsEnabled: true}).Call(b); err != nil {
		return fmt.Errorf("downloads: %w", err)
	}
	// The guard first: nothing a tab loads may go out unchecked.
	if err := r.setGuard(ctx, spec.Guard); err != nil {
		return fmt.Errorf("request guard: %w", err)
	}
	if err := (proto.TargetSetAutoAttach{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: true}).Call(b); err != nil {
		return fmt.Errorf("auto-attach: %w", err)
	}
	go r.serve(ctx, l, cancel)
	// The browser going away ends the recorder.
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if fi, err := os.Stat(spec.Sock); err != nil || !os.SameFile(fi, mine) {
				fmt.Fprintln(os.Stderr, "browser recorder: socket replaced; exiting")
				cancel()
				return
			}
			pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
			_, err := proto.BrowserGetVersion{}.Call(b.Context(pctx))
			pcancel()
			if err != nil {
				fmt.Fprintln(os.Stderr, "browser recorder: browser gone:", err)
				cancel()
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-events:
			if !ok {
				fmt.Fprintln(os.Stderr, "browser recorder: CDP event stream ended")
				return nil
			}
			r.handle(ctx, m)
		}
	}
}

// bump records a change and wakes the waiters. Callers hold mu.
func (r *recorder) bump() int64 {
	r.seq++
	close(r.changed)
	r.changed = make(chan struct{})
	return r.seq
}

func (r *recorder) addEvent(kind, target string, data map[string]any) *event {
	e := &event{seq: r.bump(), Kind: kind, TargetID: target, Data: data}
	r.events = append(r.events, e)
	if len(r.events) > eventRing {
		r.events = r.events[len(r.events)-eventRing:]
	}
	return e
}

func (r *recorder) handle(ctx context.Context, m *rod.Message) {
	r.mu.Lock()
	target := r.sessions[m.SessionID]
	r.mu.Unlock()
	switch m.Method {
	case "Fetch.requestPaused":
		var e proto.FetchRequestPaused
		if m.SessionID == "" && m.Load(&e) {
			go r.vet(ctx, e)
		}
	case "Target.attachedToTarget":
		var e proto.TargetAttachedToTarget
		if m.Load(&e) {
			r.attached(ctx, e)
		}
	case "Target.detachedFromTarget":
		var e proto.TargetDetachedFromTarget
		if m.Load(&e) {
			r.mu.Lock()
			if t, ok := r.sessions[e.SessionID]; ok {
				delete(r.sessions, e.SessionID)
				if r.targets[t] == e.SessionID {
					delete(r.targets, t)
				}
				delete(r.pending, t)
				delete(r.closing, t)
				r.bump()
			}
			r.mu.Unlock()
		}
	case "Target.targetInfoChanged":
		var e proto.TargetTargetInfoChanged
		if m.Load(&e) && e.TargetInfo != nil {
			r.mu.Lock()
			for i := len(r.events) - 1; i >= 0; i-- {
				if ev := r.events[i]; ev.Kind == "tab" && ev.TargetID == string(e.TargetInfo.TargetID) {
					if ev.Data["url"] != e.TargetInfo.URL {
						ev.Data["url"] = e.TargetInfo.URL
						r.bump()
					}
					break
				}
			}
			r.mu.Unlock()
		}
	case "Runtime.bindingCalled":
		var e proto.RuntimeBindingCalled
		if m.Load(&e) && e.Name == syncBinding {
			r.mu.Lock()
			if ch, ok := r.syncs[e.Payload]; ok {
				close(ch)
				delete(r.syncs, e.Payload)
			} else if strings.HasPrefix(e.Payload, actSyncPrefix) {
				r.noteEarly(e.Payload)
			}
			r.mu.Unlock()
		}
	case "Runtime.consoleAPICalled":
		var e proto.RuntimeConsoleAPICalled
		if m.Load(&e) && target != "" {
			parts := make([]string, 0, len(e.Args))
			for _, a := range e.Args {
				parts = append(parts, remoteText(a))
			}
			typ := string(e.Type)
			if typ == "warning" {
				typ = "warn"
			}
			var loc map[string]any
			if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
				f := e.StackTrace.CallFrames[0]
				loc = map[string]any{"url": f.URL, "lineNumber": f.LineNumber, "columnNumber": f.ColumnNumber}
			}
			r.addConsole(target, typ, strings.Join(parts, " "), loc)
		}
	case "Runtime.exceptionThrown":
		var e proto.RuntimeExceptionThrown
		if m.Load(&e) && target != "" && e.ExceptionDetails != nil {
			d := e.ExceptionDetails
			text := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				text = d.Exception.Description
			}
			r.addConsole(target, "error", text, map[string]any{"url": d.URL, "lineNumber": d.LineNumber, "columnNumber": d.ColumnNumber})
		}
	case "Network.requestWillBeSent":
		var e proto.NetworkRequestWillBeSent
		if m.Load(&e) && target != "" {
			r.mu.Lock()
			key := string(m.SessionID) + "/" + string(e.RequestID)
			if old := r.reqs[key]; old != nil && e.RedirectResponse != nil {
				old.Status, old.StatusText, old.Done = e.RedirectResponse.Status, e.RedirectResponse.StatusText, true
				old.DurationMs = ms(float64(e.Timestamp) - old.started)
			}
			r.nextReq++
			q := &requestEntry{ID: r.nextReq, seq: r.bump(), TargetID: target, Method: e.Request.Method, URL: e.Request.URL,
				Type: string(e.Type), StartedAt: int64(float64(e.WallTime) * 1000), started: float64(e.Timestamp),
				requestID: e.RequestID, session: m.SessionID, frameID: string(e.FrameID)}
			r.reqs[key] = q
			r.requests = append(r.requests, q)
			if len(r.requests) > requestRing {
				drop := r.requests[0]
				delete(r.reqs, string(drop.session)+"/"+string(drop.requestID))
				r.requests = r.requests[1:]
			}
			r.mu.Unlock()
		}
	case "Network.responseReceived":
		var e proto.NetworkResponseReceived
		if m.Load(&e) {
			r.mu.Lock()
			if q := r.reqs[string(m.SessionID)+"/"+string(e.RequestID)]; q != nil && e.Response != nil {
				q.Status, q.StatusText, q.MimeType = e.Response.Status, e.Response.StatusText, e.Response.MIMEType
				if q.Type == "" {
					q.Type = string(e.Type)
				}
				r.bump()
			}
			r.mu.Unlock()
		}
	case "Network.loadingFinished":
		var e proto.NetworkLoadingFinished
		if m.Load(&e) {
			r.finish(m.SessionID, e.RequestID, float64(e.Timestamp), "")
		}
	case "Network.loadingFailed":
		var e proto.NetworkLoadingFailed
		if m.Load(&e) {
			r.finish(m.SessionID, e.RequestID, float64(e.Timestamp), firstNonEmpty(e.ErrorText, "failed"))
		}
	case "Page.frameRequestedNavigation":
		var e proto.PageFrameRequestedNavigation
		if m.Load(&e) && target != "" && string(e.FrameID) == target {
			r.mu.Lock()
			r.addEvent("navRequested", target, map[string]any{"url": e.URL})
			r.mu.Unlock()
		}
	case "Page.frameNavigated":
		var e proto.PageFrameNavigated
		if m.Load(&e) && target != "" && e.Frame != nil && e.Frame.ParentID == "" {
			r.mu.Lock()
			r.addEvent("navigated", target, map[string]any{"url": e.Frame.URL})
			r.mu.Unlock()
		}
	case "Page.navigatedWithinDocument":
		var e proto.PageNavigatedWithinDocument
		if m.Load(&e) && target != "" && string(e.FrameID) == target {
			r.mu.Lock()
			r.addEvent("sameDocument", target, map[string]any{"url": e.URL})
			r.mu.Unlock()
		}
	case "Page.loadEventFired":
		if target != "" {
			r.mu.Lock()
			r.addEvent("load", target, nil)
			r.mu.Unlock()
		}
	case "Page.javascriptDialogOpening":
		var e proto.PageJavascriptDialogOpening
		if m.Load(&e) && target != "" {
			r.dialogOpened(ctx, m.SessionID, target, e)
		}
	case "Page.fileChooserOpened":
		var e proto.PageFileChooserOpened
		if m.Load(&e) && target != "" {
			r.chooserOpened(ctx, m.SessionID, target, e)
		}
	case "Page.javascriptDialogClosed":
		var e proto.PageJavascriptDialogClosed
		if m.Load(&e) && target != "" {
			r.mu.Lock()
			if d := r.pending[target]; d != nil {
				d.Data["handled"] = map[bool]string{true: "accepted", false: "dismissed"}[e.Result]
				delete(r.pending, target)
			}
			r.bump()
			r.mu.Unlock()
		}
	case "Browser.downloadWillBegin":
		var e proto.BrowserDownloadWillBegin
		if m.Load(&e) {
			r.mu.Lock()
			d := r.addEvent("download", string(e.FrameID), map[string]any{"url": e.URL, "suggestedFilename": e.SuggestedFilename, "state": "inProgress"})
			r.loads[e.GUID] = d
			r.mu.Unlock()
		}
	case "Browser.downloadProgress":
		var e proto.BrowserDownloadProgress
		if m.Load(&e) {
			r.downloadProgress(ctx, e)
		}
	}
}

func ms(seconds float64) float64 { return float64(int64(seconds*10000)) / 10 }

func (r *recorder) finish(sess proto.TargetSessionID, id proto.NetworkRequestID, ts float64, failed string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if q := r.reqs[string(sess)+"/"+string(id)]; q != nil && !q.Done {
		q.Done, q.Failed, q.DurationMs = true, failed, ms(ts-q.started)
		r.bump()
	}
}

func (r *recorder) addConsole(target, typ, text string, loc map[string]any) {
	if len(text) > consoleTextCap {
		text = text[:consoleTextCap]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextMsg++
	r.console = append(r.console, &consoleEntry{ID: r.nextMsg, seq: r.bump(), TargetID: target, Type: typ, Text: text,
		Timestamp: time.Now().UnixMilli(), Location: loc})
	if len(r.console) > consoleRing {
		r.console = r.console[len(r.console)-consoleRing:]
	}
}

// remoteText renders a console argument as the console shows it.
func remoteText(a *proto.RuntimeRemoteObject) string {
	switch {
	case a == nil:
		return ""
	case a.Type == proto.RuntimeRemoteObjectTypeString:
		return a.Value.Str()
	case a.UnserializableValue != "":
		return string(a.UnserializableValue)
	case a.Description != "":
		return a.Description
	case a.Type == proto.RuntimeRemoteObjectTypeUndefined:
		return "undefined"
	}
	return a.Value.JSON("", "")
}

// attached enables the domains the capture needs on a new tab, then lets
// it run (auto-attach holds new tabs until then, so their first requests
// are seen).
func (r *recorder) attached(ctx context.Context, e proto.TargetAttachedToTarget) {
	pg := r.on(ctx, e.SessionID)
	if e.TargetInfo == nil || e.TargetInfo.Type != proto.TargetTargetInfoTypePage {
		if e.WaitingForDebugger {
			go func() { _ = proto.RuntimeRunIfWaitingForDebugger{}.Call(pg) }()
		}
		return
	}
	target := string(e.TargetInfo.TargetID)
	r.mu.Lock()
	r.sessions[e.SessionID] = target
	r.targets[target] = e.SessionID
	r.addEvent("tab", target, map[string]any{"targetId": target, "url": e.TargetInfo.URL, "openerId": string(e.TargetInfo.OpenerID)})
	r.mu.Unlock()
	go func() {
		_ = proto.PageEnable{}.Call(pg)
		_ = proto.RuntimeEnable{}.Call(pg)
		_ = proto.RuntimeAddBinding{Name: syncBinding}.Call(pg)
		_ = proto.NetworkEnable{}.Call(pg)
		if e.WaitingForDebugger {
			_ = proto.RuntimeRunIfWaitingForDebugger{}.Call(pg)
		}
	}()
}

// dialogOpened answers an armed dialog at once; an unarmed one stays open
// (reported to the act that caused it) until `dialog` answers it.
func (r *recorder) dialogOpened(ctx context.Context, sess proto.TargetSessionID, target string, e proto.PageJavascriptDialogOpening) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data := map[string]any{"type": string(e.Type), "message": e.Message, "url": e.URL}
	if e.DefaultPrompt != "" {
		data["defaultPrompt"] = e.DefaultPrompt
	}
	arm, ok := r.armed[target]
	if !ok {
		arm, ok = r.armed[""]
	}
	if r.closing[target] { // a user closing a tab dismisses its dialogs
		arm, ok = dialogArm{}, true
	}
	if !ok {
		data["handled"] = "pending"
		r.pending[target] = r.addEvent("dialog", target, data)
		return
	}
	delete(r.armed, target)
	delete(r.armed, "")
	data["handled"] = map[bool]string{true: "accepted", false: "dismissed"}[arm.Accept]
	if arm.PromptText != "" {
		data["promptText"] = arm.PromptText
	}
	r.addEvent("dialog", target, data)
	go func() {
		_ = proto.PageHandleJavaScriptDialog{Accept: arm.Accept, PromptText: arm.PromptText}.Call(r.on(ctx, sess))
	}()
}

// downloadProgress stores a finished download as media and records where.
func (r *recorder) downloadProgress(ctx context.Context, e proto.BrowserDownloadProgress) {
	r.mu.Lock()
	d := r.loads[e.GUID]
	r.mu.Unlock()
	if d == nil {
		return
	}
	switch e.State {
	case proto.BrowserDownloadProgressStateCompleted:
		tmp := filepath.Join(r.spec.Dir, "downloads", e.GUID)
		name, _ := d.Data["suggestedFilename"].(string)
		upd := map[string]any{"state": "completed", "size": int64(e.ReceivedBytes)}
		if f, err := os.Open(tmp); err == nil {
			mt := mime.TypeByExtension(filepath.Ext(name))
			if mt == "" {
				mt = "application/octet-stream"
			}
			ref, err := r.media.Save(ctx, f, mt, name)
			f.Close()
			if err == nil {
				upd["path"], upd["mimeType"] = ref.Path, ref.MimeType
				_ = os.Remove(tmp)
			} else {
				upd["state"], upd["error"] = "failed", err.Error()
			}
		} else {
			upd["state"], upd["error"] = "failed", err.Error()
		}
		r.mu.Lock()
		for k, v := range upd {
			d.Data[k] = v
		}
		delete(r.loads, e.GUID)
		r.bump()
		r.mu.Unlock()
	case proto.BrowserDownloadProgressStateCanceled:
		r.mu.Lock()
		d.Data["state"] = "canceled"
		delete(r.loads, e.GUID)
		r.bump()
		r.mu.Unlock()
	}
}

func (r *recorder) serve(ctx context.Context, l net.Listener, quit context.CancelFunc) {
	go func() { <-ctx.Done(); l.Close() }()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			sc := bufio.NewScanner(c)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				var req recRequest
				var resp any
				if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
					resp = map[string]any{"error": err.Error()}
				} else if req.Op == "quit" {
					fmt.Fprintln(os.Stderr, "browser recorder: asked to quit")
					quit()
					resp = map[string]any{"ok": true}
				} else {
					resp = r.answer(ctx, c, req)
				}
				b, _ := json.Marshal(resp)
				if _, err := c.Write(append(b, '\n')); err != nil || req.Op == "waitDialog" {
					return // a waitDialog connection carries one answer
				}
			}
		}()
	}
}

func (r *recorder) answer(ctx context.Context, c net.Conn, req recRequest) any {
	switch req.Op {
	case "mark":
		r.mu.Lock()
		defer r.mu.Unlock()
		return map[string]any{"seq": r.seq}
	case "settle":
		return r.settle(ctx, req)
	case "pending":
		r.mu.Lock()
		defer r.mu.Unlock()
		if d := r.pending[req.TargetID]; d != nil {
			return map[string]any{"dialog": copyMap(d.Data)}
		}
		return map[string]any{}
	case "waitDialog":
		return r.waitDialog(ctx, c, req)
	case "console":
		return r.consoleList(req)
	case "downloads":
		return r.downloadList(req)
	case "resize":
		// An emulation override lasts as long as the session that set it:
		// the recorder's outlives the CLI call that asked.
		r.mu.Lock()
		sess, ok := r.targets[req.TargetID]
		r.mu.Unlock()
		if !ok {
			return map[string]any{"error": "tab not attached", "code": "FAILED"}
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := (proto.EmulationSetDeviceMetricsOverride{Width: req.Width, Height: req.Height, DeviceScaleFactor: 1}).Call(r.on(rctx, sess)); err != nil {
			return map[string]any{"error": "resize: " + err.Error(), "code": "FAILED"}
		}
		return map[string]any{"ok": true}
	case "requests":
		return r.requestList(req)
	case "body":
		return r.body(ctx, req)
	case "dialog":
		return r.dialog(ctx, req)
	case "closing":
		return r.markClosing(ctx, req)
	case "guard":
		if err := r.setGuard(ctx, req.Guard); err != nil {
			return map[string]any{"error": "request guard: " + err.Error(), "code": "FAILED"}
		}
		// The answer also carries the event log's position and the tabs'
		// unanswered dialogs, so a call learns what it would ask with mark
		// and pending in the same round trip (session.tellGuard).
		r.mu.Lock()
		defer r.mu.Unlock()
		pending := map[string]any{}
		for id, d := range r.pending {
			if d != nil {
				pending[id] = copyMap(d.Data)
			}
		}
		return map[string]any{"ok": true, "guarded": req.Guard != nil && !req.Guard.DangerouslyAllowPrivateNetwork,
			"seq": r.seq, "pending": pending}
	case "armUpload":
		return r.armUpload(ctx, req)
	}
	return map[string]any{"error": "unknown op " + req.Op}
}

// sess is a CDP client for one attached session with a context (rod's
// Page from PageFromSession is not fully initialised and cannot carry one).
type cdpSession struct {
	b   *rod.Browser
	id  proto.TargetSessionID
	ctx context.Context
}

func (s cdpSession) Call(ctx context.Context, _, method string, params any) ([]byte, error) {
	return s.b.Call(ctx, string(s.id), method, params)
}
func (s cdpSession) GetContext() context.Context { return s.ctx }

func (r *recorder) on(ctx context.Context, id proto.TargetSessionID) cdpSession {
	return cdpSession{b: r.b, id: id, ctx: ctx}
}
