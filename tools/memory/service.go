package memory

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// The gateway's memory service keeps each agent index it has searched open
// between calls, with a watcher on its notes and the ranking's cache, so a
// warm search neither reopens the database nor stats every note: when no
// event arrived since the last scan (and the index still holds the
// signature that scan stored), the notes are as indexed. A one-shot CLI
// process runs no service and checks every note, as before.
var serviceKey = tools.NewServiceKey[*service]("memory")

func init() { tools.RegisterService(serviceKey.Spec(newService)) }

// Bounds of the open indexes: at most maxOpenIndexes (the least recently
// used idle one is closed first), each closed after idleClose unused; the
// notes of each are scanned again every recheckEvery all the same, for
// what no inotify event reports (writes through a shared mapping, or
// through a second hard link made outside memory/).
var (
	maxOpenIndexes = 8
	idleClose      = 10 * time.Minute
	recheckEvery   = time.Minute
)

type service struct {
	mu     sync.Mutex
	open   map[string]*liveIndex
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newService(*tools.Env) (*service, error) {
	ctx, cancel := context.WithCancel(context.Background())
	return &service{open: map[string]*liveIndex{}, ctx: ctx, cancel: cancel}, nil
}

func (s *service) Start(context.Context) error {
	s.wg.Go(s.housekeep)
	return nil
}

// Stop closes every open index and its watcher.
func (s *service) Stop(context.Context) error {
	s.cancel()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, o := range s.open {
		o.close()
		delete(s.open, k)
	}
	return nil
}

// liveIndex is one index kept open, shared by the searches of its agent.
type liveIndex struct {
	ix *Index
	w  *watcher // nil: no change signal, every search scans
	// pinned is the ranking's connection (its temporary tables and cache).
	pinned *sql.Conn

	syncMu sync.Mutex // one sync decision at a time
	sig    string     // what the last scan stored in the index; "" none
	files  int
	scans  atomic.Int64 // full scans made (the tests count them)

	refs     int       // searches using it (under service.mu)
	lastUsed time.Time // under service.mu
	file     os.FileInfo
	gone     bool // replaced on disk: closed when the last search releases it
}

// sameFile: the database at path is still the file this index opened (a
// deleted or replaced index file is opened afresh, as a CLI process would).
func (o *liveIndex) sameFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && o.file != nil && os.SameFile(fi, o.file)
}

func (o *liveIndex) close() {
	o.w.close()
	if o.pinned != nil {
		o.pinned.Close()
	}
	o.ix.Close()
}

// acquire returns the open index for path and root, opening it if needed;
// release hands it back.
func (s *service) acquire(ctx context.Context, path, root string) (*liveIndex, func(), error) {
	key := path + "\x00" + root
	s.mu.Lock()
	o := s.open[key]
	if o != nil && !o.sameFile(path) {
		delete(s.open, key)
		o.gone = true
		if o.refs == 0 {
			o.close()
		}
		o = nil
	}
	if o != nil {
		o.refs++
		o.lastUsed = time.Now()
		s.mu.Unlock()
		return o, s.releaser(o), nil
	}
	s.mu.Unlock()
	ix, err := Open(ctx, path, root)
	if err != nil {
		return nil, nil, err
	}
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		ix.Close()
		return nil, nil, fmt.Errorf("memory index %s: %w", path, err)
	}
	ix.ranker = &rankConn{conn: conn, cache: &rankCache{version: -1}}
	fi, err := os.Stat(path)
	if err != nil {
		conn.Close()
		ix.Close()
		return nil, nil, fmt.Errorf("memory index %s: %w", path, err)
	}
	o = &liveIndex{ix: ix, w: newWatcher(root), pinned: conn, refs: 1, lastUsed: time.Now(), file: fi}
	s.mu.Lock()
	if cur := s.open[key]; cur != nil { // opened meanwhile by another search
		cur.refs++
		cur.lastUsed = time.Now()
		s.mu.Unlock()
		o.close()
		return cur, s.releaser(cur), nil
	}
	s.open[key] = o
	s.evictLocked()
	s.mu.Unlock()
	return o, s.releaser(o), nil
}

func (s *service) releaser(o *liveIndex) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			o.refs--
			if o.gone && o.refs == 0 {
				o.close()
			}
			s.mu.Unlock()
		})
	}
}

// evictLocked closes idle indexes beyond maxOpenIndexes, least recent first.
func (s *service) evictLocked() {
	for len(s.open) > maxOpenIndexes {
		var oldKey string
		var old *liveIndex
		for k, o := range s.open {
			if o.refs == 0 && (old == nil || o.lastUsed.Before(old.lastUsed)) {
				oldKey, old = k, o
			}
		}
		if old == nil {
			return // all in use
		}
		delete(s.open, oldKey)
		old.close()
	}
}

// housekeep closes indexes idle for idleClose and re-scans the others'
// notes every recheckEvery, off the search path.
func (s *service) housekeep() {
	t := time.NewTicker(recheckEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		var check []*liveIndex
		for k, o := range s.open {
			if o.refs == 0 && time.Since(o.lastUsed) > idleClose {
				delete(s.open, k)
				o.close()
				continue
			}
			check = append(check, o)
		}
		s.mu.Unlock()
		for _, o := range check {
			o.recheck()
		}
	}
}

// recheck scans the notes without the watcher and marks them dirty when
// their signature is not the one the last scan stored.
func (o *liveIndex) recheck() {
	if o.w == nil {
		return
	}
	o.syncMu.Lock()
	sig := o.sig
	o.syncMu.Unlock()
	if sig == "" {
		return
	}
	notes, err := scanNotes(o.ix.root)
	if err != nil || signature(notes) != sig {
		o.syncMu.Lock()
		if o.sig == sig {
			o.w.markDirty()
		}
		o.syncMu.Unlock()
	}
}

// sync brings the index up to date: nothing to do when the watcher saw no
// change since the last scan and the index still holds that scan's
// signature (no other process synced or rebuilt it meanwhile); else the
// scan and sync of Index.Sync, watching each directory as it goes.
func (o *liveIndex) sync(ctx context.Context) (SyncStats, error) {
	o.syncMu.Lock()
	defer o.syncMu.Unlock()
	if o.w != nil && o.sig != "" && o.w.clean() {
		var stored string
		err := o.ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='scan'`).Scan(&stored)
		if err != nil && err != sql.ErrNoRows {
			return SyncStats{}, fmt.Errorf("memory index: %w", err)
		}
		if stored == o.sig {
			return SyncStats{Files: o.files, Unchanged: o.files}, nil
		}
	}
	scan := func() ([]scanned, error) {
		o.scans.Add(1)
		if o.w != nil {
			return o.w.scan(o.ix.root)
		}
		return scanNotes(o.ix.root)
	}
	st, sig, err := o.ix.syncScan(ctx, scan)
	if err != nil {
		o.sig = ""
		return st, err
	}
	o.sig, o.files = sig, st.Files
	return st, nil
}

// indexFor is the calling agent's index: the service's open one in the
// gateway (release when done), or one opened for this call.
func indexFor(ctx context.Context, env *tools.Env, path, root string) (ix *Index, sync func(context.Context) (SyncStats, error), release func(), err error) {
	if svc, serr := serviceKey.From(env, "memory"); serr == nil {
		o, rel, err := svc.acquire(ctx, path, root)
		if err != nil {
			return nil, nil, nil, err
		}
		return o.ix, o.sync, rel, nil
	}
	ix, err = Open(ctx, path, root)
	if err != nil {
		return nil, nil, nil, err
	}
	return ix, ix.Sync, func() { ix.Close() }, nil
}
