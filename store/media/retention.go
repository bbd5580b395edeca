package media

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

// Every result file (each image `read` returns, each screenshot) is a copy
// under <state>/media, so the dir is swept: files older than MaxAge go,
// then the oldest until the total fits MaxTotalBytes. A file younger than
// Grace is never removed, whatever the limits say: a response may just
// have returned its path, and the caller fetches it next (a Save of the
// same bytes renews the file's time). The gateway sweeps at start and
// every SweepInterval (Sweeper); the CLI sweeps when it saves a file, at
// most once per SweepInterval (SweepOnSave).
//
// The original keeps `attachments.ttlHours` (1-168, no sweep when unset)
// and sweeps hourly; here the same key applies, with a default of 24 h,
// and attachments.maxTotalMb adds the size cap.
const (
	DefaultMaxAge              = 24 * time.Hour
	DefaultMaxTotalBytes int64 = 1 << 30
	Grace                      = 10 * time.Minute
	SweepInterval              = time.Hour

	// One CLI sweep looks at no more than sweepOnSaveScan entries and
	// removes no more than sweepOnSaveRemove files (measured 0.3-0.7 s on a
	// loaded machine whose unlinks are slow, once an hour at most); a
	// backlog goes over the next sweeps (or the gateway's).
	sweepOnSaveScan   = 10000
	sweepOnSaveRemove = 200
	removeBatch       = 64 // removals per hold of the dir's lock
	markerName        = ".swept"
	lockName          = ".lock"
	tempBase          = "save"       // atomicfile names its temps ".save.tmp-*"
	tempPrefix        = ".save.tmp-" // a Save's temp file
	legacyTempPrefix  = ".tmp-"      // what earlier binaries left
	maxTTLHours       = 168          // the original's bound
	maxTotalMb        = 1 << 30      // 1 PiB: beyond any disk, and no overflow
)

// Retention bounds what the media dir keeps.
type Retention struct {
	MaxAge        time.Duration
	MaxTotalBytes int64
}

// RetentionFrom reads attachments.ttlHours and attachments.maxTotalMb,
// falling back to the defaults for missing or out-of-range values.
func RetentionFrom(cfg *config.Config) Retention {
	r := Retention{MaxAge: DefaultMaxAge, MaxTotalBytes: DefaultMaxTotalBytes}
	if cfg == nil {
		return r
	}
	if h := cfg.Int("attachments.ttlHours", 0); h >= 1 && h <= maxTTLHours {
		r.MaxAge = time.Duration(h) * time.Hour
	}
	if mb := cfg.Int("attachments.maxTotalMb", 0); mb >= 1 && mb <= maxTotalMb {
		r.MaxTotalBytes = int64(mb) << 20
	}
	return r
}

// Limits bound one sweep's work; zero fields mean no bound.
type Limits struct {
	Scan   int // directory entries looked at
	Remove int // files removed
}

// SweepStats says what a sweep did.
type SweepStats struct {
	Scanned      int   // entries looked at
	Removed      int   // files removed
	RemovedBytes int64 // their size
	KeptBytes    int64 // size of the media files left
}

type entry struct {
	name  string
	size  int64
	mtime time.Time
}

// Sweep applies r to the media dir as of now, within lim. Leftover temp files of interrupted saves older
// than Grace go too. Symlinks, directories and names Save never makes
// are left alone. It removes under the dir's lock, re-checking each file,
// so a Save renewing the same name at that moment is never undone.
func (d *Dir) Sweep(ctx context.Context, r Retention, now time.Time, lim Limits) (SweepStats, error) {
	var st SweepStats
	dir, err := os.Open(d.root)
	if err != nil {
		if os.IsNotExist(err) {
			return st, nil
		}
		return st, fmt.Errorf("media sweep: %w", err)
	}
	var media, stale []entry
	for lim.Scan == 0 || st.Scanned < lim.Scan {
		if err := ctx.Err(); err != nil {
			dir.Close()
			return st, err
		}
		names, rerr := dir.Readdirnames(256)
		for _, name := range names {
			st.Scanned++
			isTemp := isTempName(name)
			if !isTemp && !validName(name) {
				continue
			}
			fi, err := os.Lstat(filepath.Join(d.root, name))
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			e := entry{name, fi.Size(), fi.ModTime()}
			switch {
			case isTemp && now.Sub(e.mtime) > Grace:
				stale = append(stale, e)
			case !isTemp:
				media = append(media, e)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil { // checked before the empty batch: a dir that cannot be read is an error, not an empty dir
			dir.Close()
			return st, fmt.Errorf("media sweep: %w", rerr)
		}
		if len(names) == 0 {
			break // no error and no names: no progress to wait for
		}
	}
	dir.Close()

	// Oldest first: expired ones, then as many as the size cap needs.
	sort.Slice(media, func(i, j int) bool {
		if !media[i].mtime.Equal(media[j].mtime) {
			return media[i].mtime.Before(media[j].mtime)
		}
		return media[i].name < media[j].name
	})
	var total int64
	for _, e := range media {
		total += e.size
	}
	doomed := stale
	for _, e := range media {
		age := now.Sub(e.mtime)
		if age <= Grace {
			break // sorted: every later file is younger still
		}
		if age > r.MaxAge || (r.MaxTotalBytes > 0 && total > r.MaxTotalBytes) {
			doomed = append(doomed, e)
			total -= e.size
		}
	}
	if len(doomed) == 0 {
		st.KeptBytes = total
		return st, nil
	}
	keep := func(es []entry) {
		for _, e := range es {
			if !isTempName(e.name) {
				total += e.size
			}
		}
	}
	// The lock is taken per batch, so a Save waiting on it (a request
	// under way) waits for at most one batch, not a whole backlog.
	for len(doomed) > 0 {
		if err := ctx.Err(); err != nil {
			keep(doomed)
			st.KeptBytes = total
			return st, err
		}
		if lim.Remove > 0 && st.Removed >= lim.Remove {
			keep(doomed)
			break
		}
		n := min(len(doomed), removeBatch)
		if lim.Remove > 0 {
			n = min(n, lim.Remove-st.Removed)
		}
		batch := doomed[:n]
		doomed = doomed[n:]
		unlock, err := lockDir(d.root, true)
		if err != nil {
			keep(batch)
			keep(doomed)
			st.KeptBytes = total
			return st, fmt.Errorf("media sweep: %w", err)
		}
		for _, e := range batch {
			p := filepath.Join(d.root, e.name)
			// Under the lock no Save renames; a file renewed since the
			// scan has a new time and stays.
			fi, err := os.Lstat(p)
			if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Equal(e.mtime) || fi.Size() != e.size || os.Remove(p) != nil {
				keep([]entry{e})
				continue
			}
			st.Removed++
			st.RemovedBytes += e.size
		}
		unlock()
	}
	st.KeptBytes = total
	return st, nil
}

// SweepOnSave makes Save sweep the dir with cfg's retention after it has
// stored a file, at most once per SweepInterval (a marker file's time
// says when the last sweep ran) and looking at a bounded number of
// entries, so a command that stores media pays little and one that does
// not pays nothing. The CLI uses it; the gateway runs a Sweeper instead.
func (d *Dir) SweepOnSave(cfg *config.Config) *Dir {
	d.sweepCfg, d.sweepOnSave = cfg, true
	return d
}

// maybeSweep is the after-Save sweep (best effort: errors are dropped,
// the saved file is what the caller asked for).
func (d *Dir) maybeSweep(ctx context.Context, now time.Time) {
	marker := filepath.Join(d.root, markerName)
	if fi, err := os.Lstat(marker); err == nil && now.Sub(fi.ModTime()) < SweepInterval && fi.ModTime().Before(now.Add(time.Minute)) {
		return
	}
	// Claim the sweep first, so concurrent savers do not all sweep.
	f, err := os.OpenFile(marker, os.O_WRONLY|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return
	}
	f.Close()
	if err := os.Chtimes(marker, now, now); err != nil {
		return
	}
	_, _ = d.Sweep(ctx, RetentionFrom(d.sweepCfg), now, Limits{Scan: sweepOnSaveScan, Remove: sweepOnSaveRemove})
}

// Sweeper sweeps a media dir at start and every SweepInterval with the
// retention its config function returns at that moment (so a reload
// applies at the next sweep). Start and Stop give it the gateway's
// lifecycle.
type Sweeper struct {
	dir    *Dir
	cfg    func() *config.Config
	warn   func(format string, args ...any)
	every  time.Duration
	cancel context.CancelFunc
	done   chan struct{}
	kick   chan struct{}

	afterSweep func(SweepStats) // test hook
}

// NewSweeper returns a stopped sweeper for d; warn reports failed sweeps.
func NewSweeper(d *Dir, cfg func() *config.Config, warn func(format string, args ...any)) *Sweeper {
	return &Sweeper{dir: d, cfg: cfg, warn: warn, every: SweepInterval, kick: make(chan struct{}, 1)}
}

// Start begins sweeping in the background: once now, then every interval,
// until ctx ends or Stop is called. It never blocks the caller.
func (s *Sweeper) Start(ctx context.Context) error {
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go s.loop(ctx)
	return nil
}

// Stop ends the loop and waits for a sweep under way (bounded by ctx).
func (s *Sweeper) Stop(ctx context.Context) error {
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("media sweeper: %w", ctx.Err())
	}
}

// Kick asks for a sweep now (after the one under way, if any).
func (s *Sweeper) Kick() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Sweeper) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		var cfg *config.Config
		if s.cfg != nil {
			cfg = s.cfg()
		}
		st, err := s.dir.Sweep(ctx, RetentionFrom(cfg), time.Now(), Limits{})
		if err != nil && ctx.Err() == nil && s.warn != nil {
			s.warn("%v", err)
		}
		if s.afterSweep != nil {
			s.afterSweep(st)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.kick:
		}
	}
}

// isTempName is a Save's temp file, this binary's or an earlier one's.
func isTempName(name string) bool {
	return strings.HasPrefix(name, tempPrefix) || strings.HasPrefix(name, legacyTempPrefix)
}
