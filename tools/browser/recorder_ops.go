package browser

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// What the recorder answers over its socket: marks and settles for act
// results, the console and request lists with --since-last cursors,
// response bodies, and dialog answers.

// settle waits (bounded) until what an act started is over: a main-frame
// navigation has loaded (or turned into a download), the tab's requests
// begun since the mark have finished, downloads begun since have ended.
// A round trip through the tab's own session first makes sure every event
// the page emitted before the act returned has arrived.
func (r *recorder) settle(ctx context.Context, req recRequest) any {
	r.mu.Lock()
	sess, ok := r.targets[req.TargetID]
	_, blocked := r.pending[req.TargetID]
	r.mu.Unlock()
	if ok && !blocked && req.TimeoutMs > 0 {
		sctx, cancel := context.WithTimeout(ctx, time.Duration(min(req.TimeoutMs, 3000))*time.Millisecond)
		if strings.HasPrefix(req.SyncToken, actSyncPrefix) {
			r.awaitMarker(sctx, req.SyncToken)
		} else {
			r.syncWith(sctx, sess)
		}
		cancel()
	}
	deadline := time.NewTimer(time.Duration(req.TimeoutMs) * time.Millisecond)
	defer deadline.Stop()
	busy := ""
wait:
	for {
		r.mu.Lock()
		busy = r.busy(req.TargetID, req.Seq, req.ExpectDownload)
		ch := r.changed
		r.mu.Unlock()
		if busy == "" || req.TimeoutMs <= 0 {
			break
		}
		select {
		case <-ch:
		case <-deadline.C:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.summary(req.TargetID, req.Seq)
	if ok {
		// The tab's URL as its navigations since the mark left it ("": as
		// it was), for the caller to answer without asking the browser.
		last := ""
		for _, e := range r.events {
			if e.seq > req.Seq && e.TargetID == req.TargetID && (e.Kind == "navigated" || e.Kind == "sameDocument") {
				last, _ = e.Data["url"].(string)
			}
		}
		out[settleURLKey] = map[string]any{"url": last}
	}
	if busy != "" && req.TimeoutMs > 0 {
		out["settled"] = false
		out["waitingFor"] = busy
	}
	return out
}

// busy names what the act started that is still going. Callers hold mu.
func (r *recorder) busy(target string, since int64, expectDownload bool) string {
	if _, blocked := r.pending[target]; blocked {
		return "" // the page waits for the dialog; nothing else will move
	}
	var nav int64
	for _, e := range r.events {
		if e.seq <= since {
			continue
		}
		switch {
		case e.Kind == "navRequested" && e.TargetID == target:
			nav = e.seq
		case (e.Kind == "load" || e.Kind == "sameDocument") && e.TargetID == target,
			e.Kind == "download" && nav > 0:
			nav = 0
		}
	}
	if nav > 0 {
		return "navigation"
	}
	for _, q := range r.requests {
		if q.seq > since && q.TargetID == target && !q.Done && q.Type != "EventSource" && q.Type != "WebSocket" {
			return "requests"
		}
	}
	for _, e := range r.events {
		if e.seq > since && e.Kind == "tab" && e.TargetID != target && e.Data["url"] == "" {
			return "new tab" // its first URL is not known yet
		}
	}
	began := false
	for _, e := range r.events {
		if e.seq > since && e.Kind == "download" {
			began = true
			if e.Data["state"] == "inProgress" {
				return "download"
			}
		}
	}
	if expectDownload && !began {
		return "download"
	}
	return ""
}

// summary is what happened on target since the mark. Callers hold mu.
func (r *recorder) summary(target string, since int64) map[string]any {
	out := map[string]any{}
	var dialogs, downloads, tabs, uploads, blocked []map[string]any
	for _, e := range r.events {
		if e.seq <= since {
			continue
		}
		switch e.Kind {
		case "navigated":
			if e.TargetID == target {
				out["navigated"] = map[string]any{"url": e.Data["url"]}
			}
		case "dialog":
			if e.TargetID == target {
				dialogs = append(dialogs, copyMap(e.Data))
			}
		case "download":
			downloads = append(downloads, copyMap(e.Data))
		case "blocked":
			if len(blocked) < 20 {
				blocked = append(blocked, copyMap(e.Data))
			}
		case "upload":
			if e.TargetID == target {
				uploads = append(uploads, copyMap(e.Data))
			}
		case "tab":
			if e.TargetID != target {
				tabs = append(tabs, copyMap(e.Data))
			}
		}
	}
	n := 0
	for _, q := range r.requests {
		if q.seq <= since || q.TargetID != target {
			continue
		}
		n++
		if nav, ok := out["navigated"].(map[string]any); ok && q.Type == "Document" && q.frameID == target && q.Status > 0 {
			nav["status"] = q.Status
		}
	}
	var errs []map[string]any
	warns := 0
	for _, c := range r.console {
		if c.seq <= since || c.TargetID != target {
			continue
		}
		switch c.Type {
		case "error", "assert":
			if len(errs) < 20 {
				errs = append(errs, map[string]any{"id": c.ID, "text": c.Text})
			}
		case "warn":
			warns++
		}
	}
	if n > 0 {
		out["requests"] = n
	}
	if len(errs) > 0 {
		out["consoleErrors"] = errs
	}
	if warns > 0 {
		out["consoleWarnings"] = warns
	}
	if len(dialogs) > 0 {
		out["dialogs"] = dialogs
	}
	if len(downloads) > 0 {
		out["downloads"] = downloads
	}
	if len(tabs) > 0 {
		out["tabsOpened"] = tabs
	}
	if len(uploads) > 0 {
		out["uploads"] = uploads
	}
	if len(blocked) > 0 {
		out["blockedRequests"] = blocked
	}
	return out
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// waitDialog answers when a dialog opened on target after the mark is
// left open (unarmed), or when the caller hangs up.
func (r *recorder) waitDialog(ctx context.Context, c net.Conn, req recRequest) any {
	gone := make(chan struct{})
	go func() {
		var b [1]byte
		_, _ = c.Read(b[:])
		close(gone)
	}()
	for {
		r.mu.Lock()
		d := r.pending[req.TargetID]
		ch := r.changed
		r.mu.Unlock()
		if d != nil && d.seq > req.Seq {
			return map[string]any{"dialog": copyMap(d.Data)}
		}
		select {
		case <-ch:
		case <-gone:
			return map[string]any{}
		case <-ctx.Done():
			return map[string]any{}
		}
	}
}

var levelRank = sync.OnceValue(func() map[string]int {
	return map[string]int{"error": 3, "assert": 3, "warn": 2, "warning": 2, "info": 1, "log": 1, "debug": 0, "verbose": 0}
}) // built on first use, not in every process's init

func rank(level string) int {
	if n, ok := levelRank()[level]; ok {
		return n
	}
	return 1
}

// consoleList is the console action: messages of the tab at or above
// level; sinceLast returns only those after the previous sinceLast read.
func (r *recorder) consoleList(req recRequest) any {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := "console/" + req.TargetID
	from := int64(0)
	if req.SinceLast {
		from = r.cursors[key]
	}
	min := -1
	if req.Level != "" {
		min = rank(req.Level)
	}
	msgs := []*consoleEntry{}
	for _, c := range r.console {
		if c.seq > from && (req.TargetID == "" || c.TargetID == req.TargetID) && rank(c.Type) >= min {
			msgs = append(msgs, c)
		}
	}
	if req.Limit > 0 && len(msgs) > req.Limit {
		msgs = msgs[len(msgs)-req.Limit:]
	}
	if req.SinceLast {
		r.cursors[key] = r.seq
	}
	if req.Clear {
		keep := r.console[:0]
		for _, c := range r.console {
			if req.TargetID != "" && c.TargetID != req.TargetID {
				keep = append(keep, c)
			}
		}
		r.console = keep
	}
	return map[string]any{"targetId": req.TargetID, "messages": msgs}
}

// requestList is the requests action: numbered requests of the tab with
// method, URL, status and timing; filter keeps URLs containing it.
func (r *recorder) requestList(req recRequest) any {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := "requests/" + req.TargetID
	from := int64(0)
	if req.SinceLast {
		from = r.cursors[key]
	}
	out := []requestEntry{}
	for _, q := range r.requests {
		if q.seq > from && (req.TargetID == "" || q.TargetID == req.TargetID) && (req.Filter == "" || strings.Contains(q.URL, req.Filter)) {
			out = append(out, *q)
		}
	}
	limit := req.Limit
	if limit <= 0 && !req.SinceLast {
		limit = 50
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	if req.SinceLast {
		r.cursors[key] = r.seq
	}
	if req.Clear {
		keep := r.requests[:0]
		for _, q := range r.requests {
			if req.TargetID != "" && q.TargetID != req.TargetID {
				keep = append(keep, q)
			} else {
				delete(r.reqs, string(q.session)+"/"+string(q.requestID))
			}
		}
		r.requests = keep
	}
	return map[string]any{"targetId": req.TargetID, "requests": out}
}

// body fetches a recorded request's response body through the session
// that saw it (CDP keeps bodies only for the listening session).
func (r *recorder) body(ctx context.Context, req recRequest) any {
	r.mu.Lock()
	var q *requestEntry
	for _, x := range r.requests {
		if x.ID == req.ID {
			c := *x
			q = &c
		}
	}
	r.mu.Unlock()
	if q == nil {
		return map[string]any{"error": "request not found (see `openclaw browser requests`)", "code": "NOT_FOUND"}
	}
	if !q.Done {
		return map[string]any{"error": "the request is still loading", "code": "FAILED"}
	}
	bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := proto.NetworkGetResponseBody{RequestID: q.requestID}.Call(r.on(bctx, q.session))
	if err != nil {
		return map[string]any{"error": "response body: " + err.Error(), "code": "FAILED"}
	}
	body, truncated := res.Body, false
	max := req.MaxChars
	if max <= 0 {
		max = 200000
	}
	if len(body) > max {
		body, truncated = body[:max], true
	}
	return map[string]any{"id": q.ID, "url": q.URL, "status": q.Status, "mimeType": q.MimeType,
		"body": body, "base64Encoded": res.Base64Encoded, "truncated": truncated}
}

// dialog answers the tab's open dialog, or arms the answer for its next one.
func (r *recorder) dialog(ctx context.Context, req recRequest) any {
	r.mu.Lock()
	d := r.pending[req.TargetID]
	sess := r.targets[req.TargetID]
	if d == nil {
		r.armed[req.TargetID] = dialogArm{Accept: req.Accept, PromptText: req.PromptText}
		r.mu.Unlock()
		return map[string]any{"ok": true, "armed": true}
	}
	r.mu.Unlock()
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := proto.PageHandleJavaScriptDialog{Accept: req.Accept, PromptText: req.PromptText}.Call(r.on(dctx, sess))
	if err != nil {
		return map[string]any{"error": "dialog: " + err.Error(), "code": "FAILED"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d.Data["handled"] = map[bool]string{true: "accepted", false: "dismissed"}[req.Accept]
	if req.PromptText != "" {
		d.Data["promptText"] = req.PromptText
	}
	delete(r.pending, req.TargetID)
	r.bump()
	return map[string]any{"ok": true, "answered": copyMap(d.Data)}
}

// downloadList is the downloads action: every download since the browser
// started (all tabs; the recorder stores each finished one as media).
func (r *recorder) downloadList(req recRequest) any {
	r.mu.Lock()
	defer r.mu.Unlock()
	from := int64(0)
	if req.SinceLast {
		from = r.cursors["downloads"]
	}
	out := []map[string]any{}
	for _, e := range r.events {
		if e.Kind == "download" && e.seq > from {
			out = append(out, copyMap(e.Data))
		}
	}
	if req.SinceLast {
		r.cursors["downloads"] = r.seq
	}
	return map[string]any{"downloads": out}
}

// syncBinding is the page binding settle calls so that its marker event
// (Runtime.bindingCalled) follows, on the same CDP stream, every event the
// act caused before it.
const syncBinding = "__openclawRecorderSync"

// syncWith returns once the recorder has handled every event the tab emitted
// before now. A CDP reply alone is not enough: rod hands events to the
// recorder's loop asynchronously, so under load an act's console message or
// request could still be queued when its summary is taken. The marker goes
// through the page (program order after the act's handlers) and back through
// the event loop. Without the binding (a tab attached before it existed) the
// reply's round trip is the fallback.
func (r *recorder) syncWith(ctx context.Context, sess proto.TargetSessionID) {
	r.mu.Lock()
	if r.syncs == nil {
		r.syncs = map[string]chan struct{}{}
	}
	r.nextSync++
	token := strconv.FormatInt(r.nextSync, 10)
	ch := make(chan struct{})
	r.syncs[token] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.syncs, token)
		r.mu.Unlock()
	}()
	res, err := proto.RuntimeEvaluate{ReturnByValue: true, Expression: "typeof " + syncBinding + ` === "function" ? (` +
		syncBinding + `("` + token + `"), true) : false`}.Call(r.on(ctx, sess))
	if err != nil || res == nil || res.Result == nil || !res.Result.Value.Bool() {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// settleURLKey carries the tab's URL in settle's answer (internal: the
// caller takes it out).
const settleURLKey = "_url"

// actSyncPrefix starts the markers an act's own evaluation sends through
// the sync binding after it changed the page (readyRefJS), sparing settle
// the evaluation syncWith makes: the marker follows, on the tab's stream,
// every event the act's handlers emitted.
const actSyncPrefix = "act-"

// noteEarly remembers a marker handled before its settle asked for it.
// Callers hold mu.
func (r *recorder) noteEarly(token string) {
	if r.early == nil {
		r.early = map[string]time.Time{}
	}
	now := time.Now()
	for t, at := range r.early {
		if now.Sub(at) > 10*time.Second {
			delete(r.early, t)
		}
	}
	if len(r.early) < 1024 {
		r.early[token] = now
	}
}

// awaitMarker returns once the act marker token has been handled (or ctx
// ends: a marker that never comes costs the wait syncWith would have).
func (r *recorder) awaitMarker(ctx context.Context, token string) {
	r.mu.Lock()
	if _, ok := r.early[token]; ok {
		delete(r.early, token)
		r.mu.Unlock()
		return
	}
	if r.syncs == nil {
		r.syncs = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	r.syncs[token] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.syncs, token)
		r.mu.Unlock()
	}()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// markClosing is the first step of closing a tab: from now on every dialog
// it opens is dismissed at once, and the one open now is dismissed, so an
// alert loop cannot keep the tab from closing (as a user closing a tab
// dismisses its dialogs).
func (r *recorder) markClosing(ctx context.Context, req recRequest) any {
	r.mu.Lock()
	r.closing[req.TargetID] = true
	d := r.pending[req.TargetID]
	sess, ok := r.targets[req.TargetID]
	r.mu.Unlock()
	if d != nil && ok {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = proto.PageHandleJavaScriptDialog{Accept: false}.Call(r.on(dctx, sess))
	}
	return map[string]any{"ok": true}
}
