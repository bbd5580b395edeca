package browser

import (
	"context"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

// A call's own CDP connection (session.go) goes through lazyClient, which
// spares the calls that need none of it the work rod does on every
// attach: Target.setDiscoverTargets on connect (a call lists the targets
// itself and follows none) and, while lazy is set, Page.enable on each
// attached session. A session whose Page.enable was put off gets it
// before its first call outside pageFree, so rod's page events work for
// whatever a lazy call goes on to do (frames, waits, uploads); only the
// acts and snapshots that read and act through the calls in pageFree
// (session.lazyPage) skip it.
type lazyClient struct {
	c *cdp.Client

	mu       sync.Mutex
	lazy     bool
	deferred map[string]bool // sessions whose Page.enable was put off
}

// pageFree are the methods that need no Page domain on their session.
var pageFree = map[string]bool{
	"Runtime.evaluate": true, "Runtime.callFunctionOn": true, "Runtime.releaseObject": true,
	"Runtime.releaseObjectGroup": true, "Input.dispatchMouseEvent": true, "Input.dispatchKeyEvent": true,
	"Input.insertText": true, "Page.bringToFront": true, "DOM.getContentQuads": true,
}

func (l *lazyClient) Event() <-chan *cdp.Event { return l.c.Event() }

func (l *lazyClient) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	switch {
	case method == "Target.setDiscoverTargets" && sessionID == "":
		return []byte("{}"), nil
	case method == "Page.enable" && sessionID != "":
		l.mu.Lock()
		lazy := l.lazy
		if lazy {
			l.deferred[sessionID] = true
		}
		l.mu.Unlock()
		if lazy {
			return []byte("{}"), nil
		}
	case sessionID != "" && !pageFree[method]:
		l.mu.Lock()
		put := l.deferred[sessionID]
		delete(l.deferred, sessionID)
		l.mu.Unlock()
		if put {
			if _, err := l.c.Call(ctx, sessionID, "Page.enable", proto.PageEnable{}); err != nil {
				return nil, err
			}
		}
	}
	return l.c.Call(ctx, sessionID, method, params)
}

func (l *lazyClient) isLazy() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lazy
}

// setLazy turns the putting off of Page.enable on or off for the
// sessions attached from now on.
func (l *lazyClient) setLazy(on bool) {
	l.mu.Lock()
	l.lazy = on
	l.mu.Unlock()
}

// connectCall opens a call's CDP connection to the browser at ws.
func connectCall(ctx context.Context, ws string) (*rod.Browser, *lazyClient, error) {
	c, err := cdp.StartWithURL(ctx, ws, nil)
	if err != nil {
		return nil, nil, err
	}
	l := &lazyClient{c: c, deferred: map[string]bool{}}
	b := rod.New().Client(l).Context(ctx).NoDefaultDevice()
	if err := b.Connect(); err != nil {
		return nil, nil, err
	}
	return b, l, nil
}
