package cron

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
)

// clock is a fake clock the scheduler reads (tests move it by hand).
type clock struct{ ms atomic.Int64 }

func (c *clock) now() int64          { return c.ms.Load() }
func (c *clock) set(ms int64)        { c.ms.Store(ms) }
func (c *clock) add(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// recorder collects published events.
type recorder struct {
	mu     sync.Mutex
	events []map[string]any
}

func (r *recorder) Publish(event string, payload any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, payload.(map[string]any))
	return nil
}

func (r *recorder) actions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e["action"].(string))
	}
	return out
}

// harness is a scheduler on a real SQLite store in a temp dir, with a
// fake clock and no timer loop: tests call tick themselves.
type harness struct {
	t      *testing.T
	dir    string
	s      *Service
	clk    *clock
	events *recorder
	env    *tools.Env
	store  *store.Store
}

func family() store.Family {
	f := store.Family{Name: "cron"}
	for _, m := range migrations {
		f.Migrations = append(f.Migrations, store.Migration{Version: m.Version, Name: m.Name, Up: m.Up})
	}
	return f
}

func loadConfig(t *testing.T, dir, cfgJSON string) *config.Config {
	t.Helper()
	if cfgJSON == "" {
		return config.Empty()
	}
	p := filepath.Join(dir, "openclaw.json")
	if err := os.WriteFile(p, []byte(cfgJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func newHarness(t *testing.T, cfgJSON string) *harness {
	t.Helper()
	dir := t.TempDir()
	return openHarness(t, dir, cfgJSON, 1_800_000_000_000)
}

// openHarness opens (or reopens, for restart tests) the scheduler in dir.
func openHarness(t *testing.T, dir, cfgJSON string, start int64) *harness {
	t.Helper()
	st, err := store.Open(context.Background(), dir, family())
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, dir, cfgJSON)
	clk := &clock{}
	clk.set(start)
	s := newScheduler(repo{db: st.DB()}, cfg, dir)
	s.now = clk.now
	rec := &recorder{}
	s.events = rec
	if err := s.load(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: dir, s: s, clk: clk, events: rec, store: st}
	h.env = &tools.Env{Config: cfg, StateDir: dir, Services: map[string]tools.Service{"cron": s}}
	t.Cleanup(h.close)
	return h
}

func (h *harness) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = h.s.Stop(ctx)
	h.store.Close()
}

// call invokes a method through the one door.
func (h *harness) call(method, params string) (gjson.Result, error) {
	h.t.Helper()
	out, err := tools.Invoke(context.Background(), h.env, tools.Call{Method: method, Args: json.RawMessage(params)})
	return gjson.ParseBytes(out), err
}

func (h *harness) must(method, params string) gjson.Result {
	h.t.Helper()
	r, err := h.call(method, params)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, params, err)
	}
	return r
}

// settle runs a tick at the current fake time and waits until no run is
// in progress (runs happen on goroutines).
func (h *harness) settle() {
	h.t.Helper()
	h.s.tick()
	h.idle()
}

func (h *harness) idle() {
	h.t.Helper()
	done := make(chan struct{})
	go func() { h.s.runs.Wait(); close(done) }() // every launched run has finished and published
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		h.t.Fatal("runs still in progress after 30 s")
	}
}

func (h *harness) job(id string) gjson.Result {
	h.t.Helper()
	return h.must("cron.get", `{"id":"`+id+`"}`)
}
