package gateway

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

// restartCooldown stops an agent from restarting the gateway in a loop.
const restartCooldown = 30 * time.Second

// loadConfig reads the config at paths (an empty path yields defaults).
func loadConfig(paths config.Paths, getenv func(string) string) (*config.Config, error) {
	if paths.ConfigPath == "" {
		return config.Empty(), nil
	}
	cfg, err := config.Load(paths.ConfigPath, getenv)
	if err != nil {
		return nil, fmt.Errorf("gateway config: %w", err)
	}
	if !cfg.Valid() {
		return nil, fmt.Errorf("gateway config: %s", config.FormatIssues(paths.ConfigPath, cfg.Issues()))
	}
	return cfg, nil
}

// reloadTimeout bounds a SIGUSR1 or scheduled reload; the watcher's
// reloads run under the server's loop context instead.
const reloadTimeout = 30 * time.Second

// Reload is the SIGUSR1 in-place restart: re-read the config from disk and
// apply it, keeping the listener and every connection. An unreadable or
// invalid file keeps the config in force and is reported.
func (s *Server) Reload() error {
	s.log.Infof("in-place restart: reloading config")
	ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
	defer cancel()
	_, err := s.reloadFromDisk(ctx, true)
	return err
}

// reloadFromDisk loads and validates the config file and applies it when
// its hash changed (or always with force). It reports whether it applied.
// It holds configMu from load to apply, so a config.set/patch/apply can
// neither land between them nor be undone by an older load. Without force,
// a file still in the state the running config was loaded from or written
// as is not loaded again: the watcher sees the gateway's own config writes
// (the poll can land between the write and its remember), and re-reading
// them, $includes and all, would only find the same hash.
func (s *Server) reloadFromDisk(ctx context.Context, force bool) (bool, error) {
	path := s.paths.ConfigPath
	if path == "" {
		return false, nil
	}
	s.configMu.Lock()
	defer s.configMu.Unlock()
	if !force && s.watch.inForce(path) {
		return false, nil
	}
	cfg, err := config.LoadContext(ctx, path, s.opts.Getenv)
	if hook := s.watch.afterLoad.Load(); hook != nil {
		(*hook)(cfg)
	}
	if err != nil {
		err = loadCause(err)
		s.log.Warnf("config reload skipped, keeping the last good config: %v", err)
		return false, fmt.Errorf("config reload: %w", err)
	}
	if !cfg.Valid() {
		msg := config.FormatIssues(path, cfg.Issues())
		s.log.Warnf("config reload skipped, keeping the last good config: %s", msg)
		return false, fmt.Errorf("config reload: %s", msg)
	}
	if !force && cfg.Hash == s.Config().Hash {
		s.watch.remember(cfg)
		return false, nil
	}
	if err := s.applyConfig(cfg); err != nil {
		s.log.Warnf("config reload skipped, keeping the last good config: %v", err)
		return false, err
	}
	s.log.Infof("config reloaded from %s (hash %s)", path, short(cfg.Hash))
	return true, nil
}

// applyConfig swaps in a validated config, re-resolves auth when it came
// from the file (sockets authorized by a rotated secret are closed 4001),
// and announces config.changed. The caller holds configMu.
//
// Auth never weakens here: a config that would leave the gateway with no
// secret (mode none, an empty or removed token or password, a deleted or
// emptied openclaw.json) keeps the auth in force, with a log line, until a
// restart; the rest of the config applies. Rotating a secret or switching
// between token and password is not weakening.
func (s *Server) applyConfig(cfg *config.Config) error {
	if !s.authFromOpts {
		old := s.auth.Load()
		next, kept, err := s.nextAuth(cfg)
		if err != nil {
			return err
		}
		if kept {
			s.log.Warnf("config reload: refusing to weaken gateway auth (to %s without a secret); keeping the previous auth (%s) until a restart (start with --auth none to run without auth)",
				weakMode(cfg, &s.opts), old.mode)
		}
		s.auth.Store(&next)
		if next != *old {
			s.log.Infof("gateway auth changed (mode %s): closing shared-secret sessions", next.mode)
			for _, c := range s.readyConns() {
				if m := c.sess.authMethod; m == AuthToken || m == AuthPassword {
					c.closeWith(4001, "gateway auth changed")
				}
			}
		}
	}
	s.cfg.Store(cfg)
	s.watch.remember(cfg)
	return s.broadcast(protocol.EventConfigChanged, protocol.ConfigChangedPayload{
		Path: s.paths.ConfigPath, Hash: cfg.Hash, TS: nowMs(),
	}, nil, false)
}

// nextAuth is the auth cfg brings when auth comes from the config file:
// the previous auth when cfg would weaken it (kept reports that), an
// error when cfg cannot run at all. It changes nothing, so config writes
// check it before writing.
func (s *Server) nextAuth(cfg *config.Config) (next authConfig, kept bool, err error) {
	old := s.auth.Load()
	if s.authFromOpts {
		return *old, false, nil
	}
	next, err = resolveAuth(&s.opts, cfg)
	if err != nil {
		return next, false, err
	}
	if old.secured() && !next.secured() {
		next, kept = *old, true
	}
	if !isLoopbackHost(s.host) && !next.secured() {
		return next, false, errors.New("config would leave a non-loopback gateway without auth")
	}
	if (next.mode == AuthToken && next.token == "") || (next.mode == AuthPassword && next.password == "") {
		return next, false, fmt.Errorf("gateway auth mode %s has no secret configured", next.mode)
	}
	return next, kept, nil
}

// weakMode names the auth mode a weakening config asked for.
func weakMode(cfg *config.Config, o *Options) string {
	if a, err := resolveAuth(o, cfg); err == nil {
		return a.mode
	}
	return "?"
}

// configWatch tracks the config file's mtime and size between polls.
type configWatch struct {
	mu sync.Mutex
	// seen is the file state the last poll (or load) saw: the debounce.
	seen fileStat
	// loaded is the state of the bytes the running config came from (a
	// load or the gateway's own write): a file still in it needs no reload.
	loaded  fileStat
	hash    string
	pending bool
	// afterLoad runs between a reload's load and its apply with what was
	// loaded (nil when the load failed); tests widen the race window with it.
	afterLoad atomic.Pointer[func(*config.Config)]
}

// fileStat is what the watcher compares: existence, mtime and size.
type fileStat struct {
	exists bool
	mod    time.Time
	size   int64
}

func statFile(path string) fileStat {
	st, err := os.Stat(path)
	if err != nil {
		return fileStat{}
	}
	return fileStat{exists: true, mod: st.ModTime(), size: st.Size()}
}

func (a fileStat) equal(b fileStat) bool {
	return a.exists == b.exists && a.mod.Equal(b.mod) && a.size == b.size
}

func (w *configWatch) init(cfg *config.Config) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hash = cfg.Hash
	if cfg.Path != "" {
		w.seen = statFile(cfg.Path)
		w.loaded = w.seen
	}
}

// remember records the file state a load or write saw: the stat of the
// very bytes loaded, never a fresh stat, so an edit made after the load is
// still noticed by the next poll.
func (w *configWatch) remember(cfg *config.Config) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hash = cfg.Hash
	w.seen = fileStat{exists: cfg.Exists, mod: cfg.ModTime, size: cfg.Size}
	w.loaded = w.seen
}

// inForce reports whether the file at path is still in the state the
// running config was loaded from or written as.
func (w *configWatch) inForce(path string) bool {
	now := statFile(path)
	w.mu.Lock()
	defer w.mu.Unlock()
	return now.equal(w.loaded)
}

// poll reports whether a change seen earlier has now settled (debounce:
// one quiet poll after the file's mtime, size or existence changed).
func (w *configWatch) poll(path string) (settled bool) {
	now := statFile(path)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !now.equal(w.seen) {
		w.seen = now
		w.pending = true
		return false
	}
	if w.pending {
		w.pending = false
		return true
	}
	return false
}

// watchConfigLoop removes temp files left by interrupted config writes,
// then polls the config file (mtime+size, every 500 ms) and hot reloads it
// once a change has settled. No fsnotify: polling works on every
// filesystem, editors' rename-writes included. Loads run under ctx, so
// shutdown never waits for a slow load.
func (s *Server) watchConfigLoop(ctx context.Context) {
	if s.paths.ConfigPath == "" {
		return
	}
	if removed, err := config.CleanTemp(ctx, s.paths.ConfigPath); err != nil {
		s.log.Warnf("config temp cleanup: %v", err)
	} else if len(removed) > 0 {
		s.log.Infof("removed %d temp file(s) left by interrupted config writes: %s", len(removed), strings.Join(removed, ", "))
	}
	if s.opts.ConfigPollInterval < 0 {
		return
	}
	every(ctx, s.opts.ConfigPollInterval, func() {
		if s.watch.poll(s.paths.ConfigPath) {
			_, _ = s.reloadFromDisk(ctx, false)
		}
	})
}

// ErrRestartPending means a restart is already scheduled; callers coalesce
// onto it.
var ErrRestartPending = errors.New("a gateway restart is already scheduled")

// restartState guards ScheduleRestart.
type restartState struct {
	mu    sync.Mutex
	timer *time.Timer
	last  time.Time
}

func (r *restartState) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
}

// ScheduleRestart is the gateway agent tool's restart: after delay, an
// in-place restart (Reload; no shutdown event, connections stay). It is
// refused when commands.restart is false, while one is pending, and within
// 30 s of the previous one.
func (s *Server) ScheduleRestart(delay time.Duration, reason string) error {
	if !s.Config().Bool("commands.restart", true) {
		return errors.New("gateway restart is disabled (commands.restart=false)")
	}
	if s.stopping.Load() {
		return errors.New("gateway is shutting down")
	}
	r := &s.restart
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		return ErrRestartPending
	}
	if since := time.Since(r.last); !r.last.IsZero() && since < restartCooldown {
		return fmt.Errorf("gateway restart cooldown: retry in %s", (restartCooldown - since).Round(time.Second))
	}
	if delay < 0 {
		delay = 0
	}
	r.last = time.Now()
	if reason == "" {
		reason = "requested"
	}
	s.log.Infof("restart scheduled in %s (%s)", delay, reason)
	r.timer = time.AfterFunc(delay, func() {
		r.mu.Lock()
		r.timer = nil
		r.last = time.Now()
		r.mu.Unlock()
		if err := s.Reload(); err != nil {
			s.log.Warnf("scheduled restart: %v", err)
		}
	})
	return nil
}
