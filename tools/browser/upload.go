package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// uploadRoots are the only directories files may be uploaded from (the
// original's rule): /tmp/openclaw/uploads and $TMPDIR/openclaw/uploads. A
// page must never be handed an arbitrary file of the host, so anything
// else, and any symlink or hard link, is refused.
func uploadRoots() []string {
	roots := []string{filepath.Join("/tmp", "openclaw", "uploads")}
	if t := filepath.Join(os.TempDir(), "openclaw", "uploads"); t != roots[0] {
		roots = append(roots, t)
	}
	return roots
}

// checkUpload resolves each path (relative to the workspace) and refuses
// one outside the roots, through a symlink, or hard-linked elsewhere.
func checkUpload(env *tools.Env, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, tools.Errorf(tools.CodeInvalidParams, "upload needs paths (files under %s)", uploadRoots()[0])
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(env.WorkspaceDir(), abs)
		}
		abs = filepath.Clean(abs)
		if !underRoot(abs) {
			return nil, tools.Errorf(tools.CodeDenied, "upload: %s is outside the uploads root %s (copy the file there first)", p, uploadRoots()[0])
		}
		fi, err := os.Lstat(abs)
		if err != nil {
			return nil, tools.Errorf(tools.CodeNotFound, "upload: %v", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, tools.Errorf(tools.CodeDenied, "upload: %s is not a regular file (symlinks are refused)", p)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			return nil, tools.Errorf(tools.CodeDenied, "upload: %s has other hard links (refused)", p)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil || !underRoot(real) || filepath.Base(real) != filepath.Base(abs) {
			return nil, tools.Errorf(tools.CodeDenied, "upload: %s goes through a symlink out of the uploads root", p)
		}
		out = append(out, abs)
	}
	return out, nil
}

// underRoot: path lies inside one of the roots, as written or with the
// roots' own symlinks (e.g. /tmp) resolved, and no directory component
// below the root is a symlink.
func underRoot(path string) bool {
	for _, root := range uploadRoots() {
		for _, r := range []string{root, realOr(root)} {
			rel, err := filepath.Rel(r, path)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			dir := r
			ok := true
			for _, part := range strings.Split(filepath.Dir(rel), string(filepath.Separator)) {
				if part == "." {
					continue
				}
				dir = filepath.Join(dir, part)
				if fi, err := os.Lstat(dir); err != nil || fi.Mode()&os.ModeSymlink != 0 {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

func realOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// upload sets files on a file input: directly on --input-ref or
// --element, or through the file chooser a click on --ref opens (the
// atomic form of the original's arm-then-click; a ref that is itself a
// file input is set directly). With none of them it arms the tab's next
// file chooser (armUpload).
func upload(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
	checked, err := checkUpload(env, p.Paths)
	if err != nil {
		return nil, err
	}
	files, err := stageUploads(ctx, s.p.Dir, checked)
	if err != nil {
		return nil, err
	}
	if p.InputRef == "" && p.Element == "" && p.Ref == "" {
		return armUpload(ctx, s, p, files)
	}
	pg, err := s.page(p.TargetID)
	if err != nil {
		return nil, err
	}
	if p.InputRef == "" && p.Element == "" {
		// The atomic form replaces an armed upload, which would otherwise
		// answer the same chooser too.
		disarmUpload(ctx, s, pg.TargetID)
	}
	d := timeout(p.TimeoutMs, 8000, 500, 60000)
	uctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	pg = pg.Context(uctx)
	if err := front(pg); err != nil {
		return nil, err
	}
	var el *rod.Element
	switch {
	case p.InputRef != "":
		el, err = element(pg, p.InputRef)
	case p.Element != "":
		el, err = pg.Element(p.Element)
		if err != nil {
			err = tools.Errorf(tools.CodeNotFound, "upload: no element matches %q", p.Element)
		}
	case p.Ref != "":
		el, err = element(pg, p.Ref)
	}
	if err != nil {
		return nil, err
	}
	res, err := el.Eval(`function(){return this.tagName==="INPUT"&&this.type==="file"}`)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "upload: %v", err)
	}
	if res.Value.Bool() {
		if err := el.SetFiles(files); err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "upload: %v", err)
		}
	} else {
		if p.InputRef != "" || p.Element != "" {
			return nil, tools.Errorf(tools.CodeInvalidParams, "upload: the element is not an <input type=file>; pass what opens the chooser as --ref")
		}
		if err := chooseFiles(uctx, pg, el, p.Ref, files, d); err != nil {
			return nil, err
		}
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	return tools.JSONResult(map[string]any{"ok": true, "targetId": string(pg.TargetID), "files": names})
}

// chooseFiles clicks el with the file chooser intercepted and answers the
// chooser with files.
func chooseFiles(ctx context.Context, pg *rod.Page, el *rod.Element, ref string, files []string, d time.Duration) error {
	if err := (proto.PageSetInterceptFileChooserDialog{Enabled: true}).Call(pg); err != nil {
		return tools.Errorf(tools.CodeFailed, "upload: %v", err)
	}
	defer func() { _ = proto.PageSetInterceptFileChooserDialog{Enabled: false}.Call(pg) }()
	got := make(chan proto.DOMBackendNodeID, 1)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go pg.Context(wctx).EachEvent(func(e *proto.PageFileChooserOpened) bool {
		got <- e.BackendNodeID
		return true
	})()
	if err := actionable(ctx, el, normRef(ref), d, true); err != nil {
		return err
	}
	if err := el.Context(ctx).Click(proto.InputMouseButtonLeft, 1); err != nil {
		return tools.Errorf(tools.CodeFailed, "upload: click %s: %v", normRef(ref), err)
	}
	select {
	case id := <-got:
		if err := (proto.DOMSetFileInputFiles{Files: files, BackendNodeID: id}).Call(pg); err != nil {
			return tools.Errorf(tools.CodeFailed, "upload: %v", err)
		}
		return nil
	case <-ctx.Done():
		return tools.Errorf(tools.CodeTimeout, "upload: clicking %s opened no file chooser within %d ms", normRef(ref), d.Milliseconds())
	}
}

// armUpload hands the files to the recorder for the tab's next file
// chooser, for timeoutMs (default 2 minutes, as the original's).
func armUpload(ctx context.Context, s *session, p params, files []string) (any, error) {
	id, err := s.target(p.TargetID)
	if err != nil {
		return nil, err
	}
	rec, err := s.needRecorder(ctx, "upload without --ref (arming the next file chooser)")
	if err != nil {
		return nil, err
	}
	d := timeout(p.TimeoutMs, 120000, 1000, 600000)
	var out map[string]any
	if err := rec.call(ctx, recRequest{Op: "armUpload", TargetID: string(id), Paths: files, TimeoutMs: int(d.Milliseconds())}, &out); err != nil {
		return nil, tools.AsError(err)
	}
	out["targetId"] = string(id)
	out["files"] = baseNames(files)
	out["hint"] = "now click what opens the file chooser (e.g. `openclaw browser click e12`)"
	return tools.JSONResult(out)
}

// disarmUpload drops the tab's armed upload, if a recorder runs.
func disarmUpload(ctx context.Context, s *session, id proto.TargetTargetID) {
	var v map[string]any
	_ = (&recClient{sock: s.p.recSock()}).call(ctx, recRequest{Op: "armUpload", TargetID: string(id)}, &v)
}
