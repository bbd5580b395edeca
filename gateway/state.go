package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
)

// The media dir is the tools.Media handlers save through.
var _ tools.Media = (*media.Dir)(nil)

// openState opens the state database and the media dir once per gateway
// and hands them to handlers and services (Env.Store, Env.Media). Paired
// devices move into the database: the legacy devices/paired.json is
// imported once and kept as paired.json.migrated. Without a state dir
// (some tests) the gateway runs with neither and pairings stay in memory.
func (s *Server) openState() error {
	dir := s.paths.StateDir
	if dir == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := store.Open(ctx, dir, append(gatewayFamilies(), serviceFamilies(s.specs)...)...)
	if errors.Is(err, store.ErrUnusable) {
		return failure.Wrap(failure.CodeFailed, err.Error(), err) // a state error: exit 1, not usage
	}
	if err != nil {
		return failure.Errorf(failure.CodeFailed, "gateway state database: %w", err)
	}
	if n, err := st.ImportLegacyPairedDevices(ctx, dir); err != nil {
		s.log.Warnf("device pairing import: %v (the JSON file is left in place)", err)
	} else if n > 0 {
		s.log.Infof("imported %d paired device(s) from devices/paired.json into %s", n, st.FilePath())
	}
	if err := s.jobs.restore(ctx, jobRepo{st.DB()}); err != nil {
		st.Close()
		return failure.Errorf(failure.CodeFailed, "gateway state database: %w", err)
	}
	s.db = st
	s.pairing.persist = pairedDB{st}
	md := media.New(dir)
	s.sweeper = media.NewSweeper(md, s.Config, s.log.Warnf)
	s.svc.mu.Lock()
	s.svc.store, s.svc.media = st, md
	s.svc.mu.Unlock()
	return nil
}

// startState starts the state's own background work for the gateway's
// lifetime (ctx): the media sweeper, which applies attachments.ttlHours and
// attachments.maxTotalMb at start and hourly, with the config in force.
func (s *Server) startState(ctx context.Context) error {
	if s.sweeper == nil {
		return nil
	}
	return s.sweeper.Start(ctx)
}

// closeState stops the sweeper and closes the database after the services
// have stopped.
func (s *Server) closeState() {
	if s.sweeper != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.sweeper.Stop(ctx); err != nil {
			s.log.Warnf("%v", err)
		}
		cancel()
	}
	if s.db == nil {
		return
	}
	if err := s.db.Close(); err != nil {
		s.log.Warnf("%v", err)
	}
	s.db = nil
}

// pairedDB keeps approved devices in the state database (the pairedStore
// the pairing code persists through).
type pairedDB struct{ st *store.Store }

func (p pairedDB) Load() (map[string]*pairedDevice, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	devs, err := p.st.PairedDevices(ctx)
	if err != nil {
		return nil, err
	}
	m := make(map[string]*pairedDevice, len(devs))
	for _, d := range devs {
		pd := pairedDevice(d)
		m[d.DeviceID] = &pd
	}
	return m, nil
}

// Save makes the table match the in-memory set in one transaction.
func (p pairedDB) Save(paired map[string]*pairedDevice) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	devs := make([]store.PairedDevice, 0, len(paired))
	for id, d := range paired {
		sd := store.PairedDevice(*d)
		sd.DeviceID = id
		devs = append(devs, sd)
	}
	return p.st.ReplacePairedDevices(ctx, devs)
}
