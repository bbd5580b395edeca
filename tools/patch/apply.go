package patch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// file is one path's state while a patch is planned in memory.
type file struct {
	t       *fs.Target
	key     string // real path (for a delete of a symlink: the link itself)
	shown   string // display path
	loaded  bool
	existed bool
	link    bool // the path is a symlink (only ever deleted)
	info    os.FileInfo
	orig    []byte
	exists  bool
	content []byte
}

// plan is the whole patch applied in memory.
type plan struct {
	env   *tools.Env
	root  string
	only  bool
	files map[string]*file
	order []*file
	sum   Summary
	// listed is what sum's lists hold already, so adding to them stays
	// linear in the files a patch names.
	listed map[listed]bool
	stager fs.Stager
}

// listed is one entry of one of the summary's lists.
type listed struct {
	list *[]string
	name string
}

func apply(ctx context.Context, env *tools.Env, hunks []Hunk) (*Summary, error) {
	p := &plan{env: env, root: fs.WorkspaceRoot(env), files: map[string]*file{}, listed: map[listed]bool{},
		sum:  Summary{Added: []string{}, Modified: []string{}, Deleted: []string{}},
		only: env.Config.Bool("tools.exec.applyPatch.workspaceOnly", true)}
	// Resolve every path first, so the files can be locked in one order
	// before any is read.
	type op struct {
		h        Hunk
		src, dst *file
	}
	ops := make([]op, 0, len(hunks))
	for _, h := range hunks {
		src, err := p.file(h.Path, h.Kind == KindDelete)
		if err != nil {
			return nil, err
		}
		o := op{h: h, src: src}
		if h.Kind == KindUpdate && h.MovePath != "" {
			if o.dst, err = p.file(h.MovePath, false); err != nil {
				return nil, err
			}
		}
		ops = append(ops, o)
	}
	unlock, err := p.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, o := range ops {
		if err := p.load(o.src); err != nil {
			return nil, err
		}
		switch o.h.Kind {
		case KindAdd:
			o.src.exists, o.src.content = true, []byte(o.h.Contents)
			p.add(&p.sum.Added, o.src.shown)
		case KindDelete:
			if !o.src.exists {
				return nil, tools.Errorf(tools.CodeFailed, "Failed to delete file %s: no such file or directory", o.src.shown)
			}
			o.src.exists, o.src.content = false, nil
			p.add(&p.sum.Deleted, o.src.shown)
		case KindUpdate:
			if !o.src.exists || o.src.link {
				return nil, tools.Errorf(tools.CodeFailed, "Failed to read file to update %s: no such file or directory", o.src.shown)
			}
			updated, err := updateContent(o.src.content, o.h.Chunks, o.src.shown)
			if err != nil {
				return nil, tools.Errorf(tools.CodeFailed, "%s", err.Error())
			}
			if o.dst != nil && o.dst != o.src {
				if err := p.load(o.dst); err != nil {
					return nil, err
				}
				o.dst.exists, o.dst.content = true, updated
				o.src.exists, o.src.content = false, nil
				p.add(&p.sum.Modified, o.dst.shown)
			} else {
				o.src.content = updated
				p.add(&p.sum.Modified, o.src.shown)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := p.commit(ctx); err != nil {
		return nil, err
	}
	return &p.sum, nil
}

// add appends name to one of the summary's lists unless it is there.
func (p *plan) add(list *[]string, name string) {
	k := listed{list, name}
	if p.listed[k] {
		return
	}
	p.listed[k] = true
	*list = append(*list, name)
}

// updateContent applies chunks to a file's bytes keeping its BOM and its
// line ending (CRLF files are matched and written as CRLF).
func updateContent(data []byte, chunks []Chunk, shown string) ([]byte, error) {
	body := string(data)
	bom := ""
	if strings.HasPrefix(body, "\uFEFF") {
		bom, body = "\uFEFF", body[len("\uFEFF"):]
	}
	crlf := false
	if i := strings.IndexByte(body, '\n'); i > 0 && body[i-1] == '\r' {
		crlf = true
		body = strings.ReplaceAll(body, "\r\n", "\n")
	}
	out, err := applyChunks(body, chunks, shown)
	if err != nil {
		return nil, err
	}
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return []byte(bom + out), nil
}

// file resolves a patch path to its state, confined to the workspace when
// tools.exec.applyPatch.workspaceOnly (the default). For a delete the key
// is the path itself with only its directories resolved, so deleting a
// symlink removes the link, never its target.
func (p *plan) file(raw string, del bool) (*file, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "Invalid patch: a hunk has an empty path.")
	}
	t, err := fs.Resolve(p.env, raw)
	if err != nil {
		return nil, err
	}
	key := t.Real()
	if del {
		if fi, err := os.Lstat(t.Abs()); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			dir, err := fs.RealPath(filepath.Dir(t.Abs()))
			if err != nil {
				return nil, tools.AsError(err)
			}
			key = filepath.Join(dir, filepath.Base(t.Abs()))
		}
	}
	if p.only {
		root, err := fs.RealPath(p.root)
		if err != nil {
			root = p.root
		}
		if !fs.Within(root, key) || key == root {
			return nil, tools.Errorf(tools.CodeDenied,
				"apply_patch:path_guard: path escapes the workspace (%s): %s", p.root, raw).
				WithDetails(map[string]any{"guard": "apply_patch:path_guard", "path": raw})
		}
	}
	if err := fs.GuardGatewayFiles(p.env, t); err != nil {
		return nil, err
	}
	if f, ok := p.files[key]; ok {
		return f, nil
	}
	f := &file{t: t, key: key, shown: p.display(t.Abs())}
	p.files[key] = f
	p.order = append(p.order, f)
	return f, nil
}

// display is workspace-relative inside the workspace, absolute otherwise.
func (p *plan) display(abs string) string {
	if fs.Within(p.root, abs) {
		if rel, err := filepath.Rel(p.root, abs); err == nil && rel != "." {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// lock takes every file's lock in key order (no deadlock between patches).
func (p *plan) lock(ctx context.Context) (func(), error) {
	keys := make([]string, 0, len(p.files))
	for k := range p.files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var unlocks []func()
	release := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	for _, k := range keys {
		u, err := fs.LockFile(ctx, k)
		if err != nil {
			release()
			return nil, err
		}
		unlocks = append(unlocks, u)
	}
	return release, nil
}

// load reads a file's current state once.
func (p *plan) load(f *file) error {
	if f.loaded {
		return nil
	}
	f.loaded = true
	fi, err := os.Lstat(f.key)
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrInvalid):
		return nil
	case err != nil:
		return tools.Errorf(tools.CodeFailed, "%s: %v", f.shown, err)
	case fi.Mode()&os.ModeSymlink != 0:
		f.existed, f.exists, f.link, f.info = true, true, true, fi
		return nil
	}
	if p.only && hardLinked(fi) {
		return tools.Errorf(tools.CodeDenied,
			"apply_patch:path_guard: %s has other hard links; refusing to change a file that may live outside the workspace", f.shown)
	}
	data, info, err := fs.ReadRegularCapped(p.env, f.t)
	if err != nil {
		return err
	}
	f.existed, f.exists, f.info, f.orig, f.content = true, true, info, data, data
	return nil
}

// change is one file's commit step.
type change struct {
	f      *file
	staged *fs.Staged
	backup string // a deleted file, renamed aside until the end
	done   bool
}

// commit stages every new content (temp + fsync, the step that can run
// out of space), then renames them into place and deletes what the patch
// deletes. A failure before the renames leaves the tree untouched; a
// failure during them (rare: renames in one directory do not allocate)
// undoes the renames already done.
func (p *plan) commit(ctx context.Context) error {
	defer p.stager.SyncDirs()
	var changes []*change
	abort := func() {
		for _, c := range changes {
			c.staged.Abort()
		}
	}
	for _, f := range p.order {
		switch {
		case f.exists && (!f.existed || f.link || !bytes.Equal(f.content, f.orig)):
			var prev os.FileInfo
			if f.existed && !f.link {
				prev = f.info
			}
			s, err := p.stager.Stage(f.t, f.content, prev)
			if err != nil {
				abort()
				return err
			}
			changes = append(changes, &change{f: f, staged: s})
		case !f.exists && f.existed:
			changes = append(changes, &change{f: f})
		}
	}
	if err := ctx.Err(); err != nil {
		abort()
		return err
	}
	for i, c := range changes {
		if err := c.run(ctx); err != nil {
			abort()
			rollback(&p.stager, changes[:i])
			return err
		}
	}
	for _, c := range changes {
		if c.backup != "" {
			os.Remove(c.backup)
		}
	}
	return nil
}

func (c *change) run(ctx context.Context) error {
	f := c.f
	if c.staged == nil { // delete: set aside, removed once every step is done
		tmp, err := os.CreateTemp(filepath.Dir(f.key), "."+filepath.Base(f.key)+".*.deleted")
		if err != nil {
			return tools.Errorf(tools.CodeFailed, "Failed to delete file %s: %v; nothing was changed.", f.shown, unwrap(err))
		}
		tmp.Close()
		c.backup = tmp.Name()
		if err := os.Rename(f.key, c.backup); err != nil {
			os.Remove(c.backup)
			c.backup = ""
			return tools.Errorf(tools.CodeFailed, "Failed to delete file %s: %v; nothing was changed.", f.shown, unwrap(err))
		}
		c.done = true
		return nil
	}
	var check func() error
	if f.existed && !f.link {
		check = fs.Unchanged(f.t, f.info, f.orig)
	}
	if err := c.staged.Commit(ctx, check); err != nil {
		return err
	}
	c.done = true
	return nil
}

// rollback undoes committed steps, newest first, best effort.
func rollback(st *fs.Stager, done []*change) {
	for i := len(done) - 1; i >= 0; i-- {
		c := done[i]
		f := c.f
		switch {
		case c.backup != "":
			_ = os.Rename(c.backup, f.key)
		case f.existed && !f.link:
			if s, err := st.Stage(f.t, f.orig, f.info); err == nil {
				if s.Commit(context.Background(), nil) != nil {
					s.Abort()
				}
			}
		case !f.existed:
			_ = os.Remove(f.key)
		}
	}
}

func unwrap(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
