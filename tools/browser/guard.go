package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/netguard"
)

// The guard on every request a page makes. Checking the URL we navigate
// to is not enough: a page can set location a moment after load, embed an
// <iframe> or fetch a loopback address itself. So the recorder, the one
// session that lives as long as the browser, intercepts every request at
// the browser level (CDP Fetch on the browser target: every tab, popup,
// out-of-process frame and worker, before it is sent) and fails the ones
// netguard refuses, as web_fetch would, with ERR_BLOCKED_BY_CLIENT. Each
// refusal is an event, listed by the act or navigate that caused it.
//
// It fails closed: a call with the guard on first makes sure the recorder
// runs and enforces the current policy (session.enforceGuard), and refuses
// to act when it cannot. What it does not cover: WebSocket handshakes (CDP
// cannot intercept them), and a name whose DNS answer changes between our
// check and Chromium's own lookup.

// guardCheckTimeout bounds one request's check (a slow resolver).
const guardCheckTimeout = 5 * time.Second

// setGuard installs pol (nil: allow everything) and turns the browser's
// interception on or off to match.
func (r *recorder) setGuard(ctx context.Context, pol *netguard.Policy) error {
	r.guardMu.Lock()
	defer r.guardMu.Unlock()
	on := pol != nil && !pol.DangerouslyAllowPrivateNetwork
	r.mu.Lock()
	if on {
		r.guard = pol
	} else {
		r.guard = nil
	}
	r.mu.Unlock()
	if on == r.intercepting {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var err error
	if on {
		err = proto.FetchEnable{Patterns: []*proto.FetchRequestPattern{{URLPattern: "*"}}}.Call(r.b.Context(cctx))
	} else {
		err = proto.FetchDisable{}.Call(r.b.Context(cctx))
	}
	if err != nil {
		return err
	}
	r.intercepting = on
	return nil
}

// vet decides one paused request: continue it or fail it as blocked.
func (r *recorder) vet(ctx context.Context, e proto.FetchRequestPaused) {
	r.mu.Lock()
	pol := r.guard
	r.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, guardCheckTimeout)
	defer cancel()
	var err error
	if pol != nil {
		err = checkRequest(cctx, *pol, e.Request.URL)
	}
	b := r.b.Context(cctx)
	if err == nil {
		_ = proto.FetchContinueRequest{RequestID: e.RequestID}.Call(b)
		return
	}
	_ = proto.FetchFailRequest{RequestID: e.RequestID, ErrorReason: proto.NetworkErrorReasonBlockedByClient}.Call(b)
	r.mu.Lock()
	r.addEvent("blocked", string(e.FrameID), map[string]any{"url": e.Request.URL, "type": string(e.ResourceType), "reason": err.Error()})
	r.mu.Unlock()
}
