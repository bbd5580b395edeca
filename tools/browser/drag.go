package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// drag moves the mouse from one element to another with the button held.
// An HTML5 draggable source needs more: Chromium does not run a native
// drag session for synthetic mouse input, so the drag is intercepted
// (Input.setInterceptDrags) and its data replayed as dragenter, dragover
// and drop on the target, as Playwright does.
func drag(ctx context.Context, pg *rod.Page, r actReq, d time.Duration) error {
	from, err := element(pg, r.StartRef)
	if err != nil {
		return err
	}
	to, err := element(pg, r.EndRef)
	if err != nil {
		return err
	}
	if err := actionable(ctx, to, normRef(r.EndRef), d, false); err != nil {
		return err
	}
	if err := actionable(ctx, from, normRef(r.StartRef), d, true); err != nil {
		return err
	}
	fromPt, err := center(from.Context(ctx))
	if err != nil {
		return actFailed(r, err)
	}
	toPt, err := center(to.Context(ctx))
	if err != nil {
		return actFailed(r, err)
	}
	res, err := from.Context(ctx).Eval(`function(){return !!(this.draggable || this.closest('[draggable="true"]'))}`)
	if err != nil {
		return actFailed(r, err)
	}
	html5 := res.Value.Bool()
	m := pg.Context(ctx).Mouse
	if !html5 {
		if err := m.MoveTo(*fromPt); err != nil {
			return actFailed(r, err)
		}
		if err := m.Down(proto.InputMouseButtonLeft, 1); err != nil {
			return actFailed(r, err)
		}
		if err := m.MoveLinear(*toPt, 5); err != nil {
			return actFailed(r, err)
		}
		if err := m.Up(proto.InputMouseButtonLeft, 1); err != nil {
			return actFailed(r, err)
		}
		return nil
	}
	pg = pg.Context(ctx)
	if err := (proto.InputSetInterceptDrags{Enabled: true}).Call(pg); err != nil {
		return actFailed(r, err)
	}
	defer func() { _ = proto.InputSetInterceptDrags{Enabled: false}.Call(pg) }()
	got := make(chan *proto.InputDragData, 1)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go pg.Context(wctx).EachEvent(func(e *proto.InputDragIntercepted) bool {
		got <- e.Data
		return true
	})()
	if err := m.MoveTo(*fromPt); err != nil {
		return actFailed(r, err)
	}
	if err := m.Down(proto.InputMouseButtonLeft, 1); err != nil {
		return actFailed(r, err)
	}
	if err := m.MoveLinear(proto.Point{X: fromPt.X + 10, Y: fromPt.Y + 10}, 2); err != nil {
		return actFailed(r, err)
	}
	var data *proto.InputDragData
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case data = <-got:
	case <-timer.C:
		_ = m.Up(proto.InputMouseButtonLeft, 1)
		return tools.Errorf(tools.CodeTimeout, "act drag: %s did not start a drag", normRef(r.StartRef))
	case <-ctx.Done():
		return tools.AsError(ctx.Err())
	}
	for _, t := range []proto.InputDispatchDragEventType{proto.InputDispatchDragEventTypeDragEnter,
		proto.InputDispatchDragEventTypeDragOver, proto.InputDispatchDragEventTypeDrop} {
		if err := (proto.InputDispatchDragEvent{Type: t, X: toPt.X, Y: toPt.Y, Data: data}).Call(pg); err != nil {
			return actFailed(r, err)
		}
	}
	if err := m.MoveTo(*toPt); err != nil {
		return actFailed(r, err)
	}
	return m.Up(proto.InputMouseButtonLeft, 1)
}

// center is a point inside the element's first box (viewport CSS px).
func center(el *rod.Element) (*proto.Point, error) {
	shape, err := el.Shape()
	if err != nil {
		return nil, err
	}
	pt := shape.OnePointInside()
	if pt == nil {
		return nil, tools.Errorf(tools.CodeFailed, "element has no visible box")
	}
	return pt, nil
}
