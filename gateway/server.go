package gateway

import (
	"context"
	"errors"
	"fmt"
	"github.com/google/uuid"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/store/media"
	"github.com/openclaw-go/openclaw/tools"
)

// Server is one running gateway: a listener, its connections and the state
// the gateway-native methods read.
type Server struct {
	opts    Options
	host    string
	paths   config.Paths
	log     *logger
	bootID  string
	started time.Time

	cfg          atomic.Pointer[config.Config]
	auth         atomic.Pointer[authConfig]
	authFromOpts bool // auth came from Options: config reloads leave it alone

	upgrader websocket.Upgrader
	httpSrv  *http.Server
	ln       net.Listener

	mu          sync.Mutex
	conns       map[*conn]struct{} // every open socket
	byID        map[string]*conn   // the same, by connection id (conns.go)
	ready       map[*conn]struct{} // sockets past hello-ok (broadcast targets)
	preauthByIP map[string]int

	connWG          sync.WaitGroup
	inflight        atomic.Int64
	serving         atomic.Bool
	stopping        atomic.Bool
	presenceVer     atomic.Int64
	presencePending atomic.Bool
	healthVer       atomic.Int64
	heartbeats      atomic.Bool

	configMu sync.Mutex // serialises config.set/apply/patch
	dedupe   *dedupeCache
	pairing  *pairingStore
	limiter  authLimiter
	restart  restartState
	watch    configWatch
	// Test hooks on a connect: helloQueued runs once hello-ok is queued
	// (the connection is ready: listed, a broadcast target), before
	// presence is announced; afterHello after that, before it dispatches
	// requests (tests pause the connect there).
	helloQueued, afterHello atomic.Pointer[func(*conn)]
	svc                     provided            // typed services for handlers (services.go)
	specs                   []tools.ServiceSpec // the registered services this gateway runs
	routes                  *routes             // HTTP routes, the gateway's and its services' (routes.go)
	jobs                    *jobRunner          // background work outliving its request (jobs.go)
	db                      *store.Store        // state database (state.go), nil without a state dir
	sweeper                 *media.Sweeper
}

// New validates the options and prepares a server; it does not bind yet.
// It refuses to expose the gateway beyond loopback without a shared secret.
func New(opts Options) (*Server, error) {
	pollSet := opts.ConfigPollInterval != 0
	opts = opts.withDefaults()
	cfg := opts.Config
	if cfg == nil {
		loaded, err := loadConfig(opts.Paths, opts.Getenv)
		if err != nil {
			return nil, err
		}
		cfg = loaded
	}
	if !pollSet && cfg.String("gateway.reload.mode", "") == "off" {
		opts.ConfigPollInterval = -1 // as the original: no file watching; SIGUSR1 still reloads
	}
	host, err := resolveBindHost(&opts, cfg)
	if err != nil {
		return nil, err
	}
	auth, err := resolveAuth(&opts, cfg)
	if err != nil {
		return nil, err
	}
	generated := false
	if auth.mode == AuthToken && auth.token == "" && opts.AuthMode == "" {
		tok, fresh, err := storeGeneratedToken(opts.Paths, opts.Getenv)
		if err != nil {
			return nil, err
		}
		auth.token, cfg, generated = tok, fresh, true
	}
	if !isLoopbackHost(host) && !auth.secured() {
		return nil, fmt.Errorf("refusing to bind the gateway to %s without auth: set gateway.auth.token or gateway.auth.password (or --token/--password); only loopback may run without a shared secret", host)
	}
	if auth.mode == AuthToken && auth.token == "" {
		return nil, errors.New("gateway auth mode token needs a token: set gateway.auth.token, OPENCLAW_GATEWAY_TOKEN or --token")
	}
	if auth.mode == AuthPassword && auth.password == "" {
		return nil, errors.New("gateway auth mode password needs a password: set gateway.auth.password, OPENCLAW_GATEWAY_PASSWORD or --password")
	}
	lg, err := newLogger(logPath(opts.Paths.StateDir), opts.Log, opts.Verbose)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:         opts,
		host:         host,
		paths:        opts.Paths,
		log:          lg,
		bootID:       uuid.NewString(),
		started:      time.Now(),
		authFromOpts: opts.AuthMode != "" || opts.Token != "" || opts.Password != "",
		conns:        map[*conn]struct{}{},
		byID:         map[string]*conn{},
		ready:        map[*conn]struct{}{},
		preauthByIP:  map[string]int{},
		dedupe:       newDedupeCache(5*time.Minute, 1000),
		pairing:      newPairingStore(opts.Paths.StateDir),
	}
	s.cfg.Store(cfg)
	s.auth.Store(&auth)
	s.heartbeats.Store(true)
	s.specs = tools.Services()
	s.routes = newRoutes(s)
	s.jobs = newJobRunner(s.Broadcast, s.log.Warnf)
	s.svc.jobs = s.jobs
	s.limiter.limit = func() rateLimit { return rateLimitFrom(s.Config()) }
	s.upgrader = websocket.Upgrader{
		EnableCompression: false,
		CheckOrigin:       checkOrigin,
		HandshakeTimeout:  10 * time.Second,
	}
	if generated {
		s.log.Infof("no gateway auth was configured: generated a gateway token and stored it in %s (gateway.auth.token); local openclaw commands use it automatically, remote clients need --token", opts.Paths.ConfigPath)
	}
	if auth.mode == AuthNone {
		s.log.Warnf("auth none: any local process can connect with full access (loopback only)")
	}
	if err := s.openState(); err != nil {
		return nil, err
	}
	if err := s.pairing.load(); err != nil {
		s.log.Warnf("device pairing store: %v (starting empty)", err)
	}
	s.watch.init(cfg)
	return s, nil
}

// Listen binds the port; Addr is valid afterwards.
func (s *Server) Listen() error {
	if s.ln != nil {
		return nil
	}
	addr := net.JoinHostPort(s.host, strconv.Itoa(s.opts.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("gateway listen %s: %w", addr, err)
	}
	s.ln = ln
	return nil
}

// Addr is the bound host:port ("" before Listen).
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Port is the bound TCP port (0 before Listen).
func (s *Server) Port() int {
	if s.ln == nil {
		return 0
	}
	if a, ok := s.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Config is the config in force (swapped on reload; never nil).
func (s *Server) Config() *config.Config { return s.cfg.Load() }

// Paths are the state and config locations the server was started with.
func (s *Server) Paths() config.Paths { return s.paths }

// Serve runs until ctx is cancelled, then shuts down gracefully: a
// shutdown event, a bounded drain of in-flight requests, and close 1012 on
// every socket.
func (s *Server) Serve(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	s.httpSrv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
	}
	loops, stopLoops := context.WithCancel(context.Background())
	if err := s.startServices(loops); err != nil {
		stopLoops()
		_ = s.ln.Close()
		return err
	}
	var loopWG sync.WaitGroup
	for _, loop := range []func(context.Context){s.tickLoop, s.healthLoop, s.watchConfigLoop} {
		loopWG.Add(1)
		go func() { defer loopWG.Done(); loop(loops) }()
	}
	errc := make(chan error, 1)
	go func() { errc <- s.httpSrv.Serve(s.ln) }()
	s.serving.Store(true)
	s.log.Infof("listening on ws://%s (auth %s, protocol %d, version %s)", s.Addr(), s.auth.Load().mode, protocol.Version, s.opts.Version)

	var serveErr error
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			serveErr = fmt.Errorf("gateway serve: %w", err)
		}
	}
	if n := s.shutdown(); n > 0 && serveErr == nil {
		serveErr = fmt.Errorf("%w: %d request(s) still running after %s", ErrDrainTimeout, n, s.opts.DrainTimeout)
	}
	stopLoops()
	loopWG.Wait()
	s.stopServices()
	s.closeState()
	s.restart.stop()
	s.log.Infof("stopped")
	if err := s.log.close(); err != nil && serveErr == nil {
		serveErr = err
	}
	return serveErr
}

// ErrDrainTimeout: the gateway stopped with requests still running (they
// were cancelled when their sockets closed).
var ErrDrainTimeout = errors.New("gateway drain timed out")

// shutdown is the SIGTERM path: stop accepting, tell clients, drain, close.
// It returns how many requests were still running at the drain deadline.
func (s *Server) shutdown() int64 {
	s.serving.Store(false)
	s.stopping.Store(true)
	s.log.Infof("shutting down: draining in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_ = s.httpSrv.Shutdown(sctx) // closes the listener; hijacked sockets are ours
	cancel()

	s.broadcast(protocol.EventShutdown, protocol.ShutdownPayload{Reason: protocol.ReasonGatewayStopping}, nil, false)
	s.jobs.stop(jobStopGrace) // cancel background work (and streams) before the drain waits on them

	deadline := time.Now().Add(s.opts.DrainTimeout)
	dctx, dcancel := context.WithDeadline(context.Background(), deadline)
	defer dcancel()
	s.drainServices(dctx) // services whose calls wait on outside processes end them by the deadline
	for s.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	unfinished := s.inflight.Load()
	if unfinished > 0 {
		s.log.Warnf("drain timeout: %d request(s) still running", unfinished)
	}
	s.mu.Lock()
	all := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		all = append(all, c)
	}
	s.mu.Unlock()
	for _, c := range all {
		c.closeWith(protocol.CloseServiceRestart, protocol.ReasonServiceRestart)
	}
	done := make(chan struct{})
	go func() { s.connWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeGrace + 2*time.Second):
		s.log.Warnf("some connections did not close in time")
	}
	return unfinished
}

// uptimeMs is time since New.
func (s *Server) uptimeMs() int64 { return time.Since(s.started).Milliseconds() }

// readyConns snapshots the broadcast targets.
func (s *Server) readyConns() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*conn, 0, len(s.ready))
	for c := range s.ready {
		out = append(out, c)
	}
	return out
}

func nowMs() int64 { return time.Now().UnixMilli() }
