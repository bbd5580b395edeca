package browser

import (
	"context"
	"path/filepath"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// An armed upload: `upload PATH…` with no ref gives the files to the tab's
// next file chooser (the original's arming form; the agent then clicks
// what opens it). The recorder holds it because only a session that lives
// past the CLI call can intercept the chooser: it turns interception on
// for the tab, answers the chooser with the files when it opens, and turns
// interception off again (also when the arm expires, so a later chooser
// opens normally). A newer arm replaces an older one.

type uploadArm struct {
	id    int64
	files []string
}

// armUpload arms (or, with no paths, disarms) the tab's next file chooser
// for req.TimeoutMs.
func (r *recorder) armUpload(ctx context.Context, req recRequest) any {
	r.mu.Lock()
	sess, ok := r.targets[req.TargetID]
	if !ok {
		r.mu.Unlock()
		return map[string]any{"error": "upload: tab not attached", "code": "FAILED"}
	}
	if len(req.Paths) == 0 {
		delete(r.uploads, req.TargetID)
		r.mu.Unlock()
		r.intercept(ctx, sess, false)
		return map[string]any{"ok": true, "armed": false}
	}
	r.nextArm++
	arm := uploadArm{id: r.nextArm, files: req.Paths}
	r.uploads[req.TargetID] = arm
	r.mu.Unlock()
	if err := r.intercept(ctx, sess, true); err != nil {
		r.mu.Lock()
		if r.uploads[req.TargetID].id == arm.id {
			delete(r.uploads, req.TargetID)
		}
		r.mu.Unlock()
		return map[string]any{"error": "upload: " + err.Error(), "code": "FAILED"}
	}
	// The arm expires: interception goes off unless the chooser came or a
	// newer arm took over.
	d := time.Duration(req.TimeoutMs) * time.Millisecond
	time.AfterFunc(d, func() {
		r.mu.Lock()
		cur, ok := r.uploads[req.TargetID]
		if ok && cur.id == arm.id {
			delete(r.uploads, req.TargetID)
		}
		r.mu.Unlock()
		if ok && cur.id == arm.id {
			r.intercept(context.Background(), sess, false)
		}
	})
	return map[string]any{"ok": true, "armed": true, "expiresInMs": d.Milliseconds()}
}

func (r *recorder) intercept(ctx context.Context, sess proto.TargetSessionID, on bool) error {
	ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return proto.PageSetInterceptFileChooserDialog{Enabled: on}.Call(r.on(ictx, sess))
}

// chooserOpened answers the tab's file chooser with its armed files and
// records it (an act's result lists it as uploads). A chooser nobody armed
// (another session intercepting it) is left to that session.
func (r *recorder) chooserOpened(ctx context.Context, sess proto.TargetSessionID, target string, e proto.PageFileChooserOpened) {
	r.mu.Lock()
	arm, ok := r.uploads[target]
	delete(r.uploads, target)
	r.mu.Unlock()
	if !ok || e.BackendNodeID == 0 {
		return
	}
	// Recorded now, in event order, so the act that opened the chooser
	// lists it; a failure to set the files is added to the record.
	r.mu.Lock()
	ev := r.addEvent("upload", target, map[string]any{"files": baseNames(arm.files)})
	r.mu.Unlock()
	go func() {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err := (proto.DOMSetFileInputFiles{Files: arm.files, BackendNodeID: e.BackendNodeID}).Call(r.on(cctx, sess))
		_ = r.intercept(ctx, sess, false)
		if err != nil {
			r.mu.Lock()
			ev.Data["error"] = err.Error()
			r.bump()
			r.mu.Unlock()
		}
	}()
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}
