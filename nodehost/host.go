package nodehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/flock"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

const (
	defaultStatsInterval = 60 * time.Second
	defaultConcurrent    = 16
	resultTimeout        = 30 * time.Second
)

// Host is one node host: its identity, its command surface and, while Run
// runs, its gateway session.
type Host struct {
	opts   Options
	getenv func(string) string
	cfg    *config.Config
	url    string

	id   *client.Identity
	node *NodeFile

	reg      *tools.Registry
	caps     []string
	commands []string // declared, sorted
	declared map[string]bool

	sem chan struct{}

	mu         sync.Mutex
	conn       *client.Conn
	canvasBase string // the canvas host's origin from hello-ok (or the gateway's)
	invokes    map[string]context.CancelFunc
	status     Status
	pairingMsg string     // last pairing wait logged (logged once per request)
	pubs       *publisher // the live connection's publications

	canvas *canvasState
	wg     sync.WaitGroup
	logMu  sync.Mutex
}

// New prepares a node host: it resolves the gateway address (flags, then
// node.json, then the defaults), loads or creates the device identity and
// the node id, and computes the command surface. Nothing connects yet.
func New(opts Options) (*Host, error) {
	if opts.StateDir == "" {
		return nil, failure.Errorf(failure.CodeUsage, "node host: no state dir")
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Config == nil {
		opts.Config = config.Empty()
	}
	if opts.Workdir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, failure.Wrap(failure.CodeFailed, "node host: working directory", err)
		}
		opts.Workdir = wd
	}
	if opts.StatsInterval <= 0 {
		opts.StatsInterval = defaultStatsInterval
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = defaultConcurrent
	}
	nf, _, err := LoadNodeFile(opts.StateDir)
	if err != nil {
		return nil, err
	}
	fillGateway(&opts, nf, opts.Config)
	if err := checkPlaintext(opts, opts.Getenv); err != nil {
		return nil, err
	}
	if _, err := tlsConfig(opts); err != nil {
		return nil, err
	}
	id, err := client.LoadOrCreateIdentity(IdentityPath(opts.StateDir))
	if err != nil {
		return nil, failure.Wrap(failure.CodeFailed, "node host: device identity", err)
	}
	nf.ensureNodeID()
	if opts.NodeID != "" {
		nf.NodeID = opts.NodeID
	}
	if opts.DisplayName != "" {
		nf.DisplayName = opts.DisplayName
	}
	if nf.DisplayName == "" {
		nf.DisplayName = machineName()
	}
	if opts.Commands != nil {
		nf.Commands = opts.Commands
	}
	nf.Gateway = &GatewayAddr{Host: opts.Host, Port: opts.Port, TLS: opts.TLS,
		TLSFingerprint: normalizeFingerprint(opts.TLSFingerprint), ContextPath: opts.ContextPath}
	h := &Host{opts: opts, getenv: opts.Getenv, cfg: opts.Config, url: opts.GatewayURL(), id: id, node: nf,
		sem: make(chan struct{}, opts.MaxConcurrent), invokes: map[string]context.CancelFunc{}}
	h.canvas = &canvasState{}
	if err := h.buildSurface(nf.Commands); err != nil {
		return nil, err
	}
	return h, nil
}

// fillGateway completes the address: flags win, then node.json's saved
// gateway, then 127.0.0.1 and the config's gateway.port.
func fillGateway(o *Options, nf *NodeFile, cfg *config.Config) {
	saved := nf.Gateway
	if saved == nil {
		saved = &GatewayAddr{}
	}
	if o.Host == "" {
		o.Host = saved.Host
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Port == 0 {
		o.Port = saved.Port
	}
	if o.Port == 0 {
		o.Port = cfg.Int("gateway.port", DefaultPort)
	}
	if !o.TLS && !o.NoTLS && saved.TLS && o.Host == saved.Host {
		o.TLS = true
	}
	if o.TLSFingerprint == "" && o.Host == saved.Host {
		o.TLSFingerprint = saved.TLSFingerprint
	}
	if o.ContextPath == "" {
		o.ContextPath = saved.ContextPath
	}
}

func machineName() string {
	if n, err := os.Hostname(); err == nil && n != "" {
		return n
	}
	return "openclaw-node"
}

// DeviceID is this node's id on the gateway (the device identity's).
func (h *Host) DeviceID() string { return h.id.DeviceID }

// URL is the gateway URL this host connects to.
func (h *Host) URL() string { return h.url }

// Surface returns the declared caps and commands (sorted).
func (h *Host) Surface() (caps, commands []string) {
	return append([]string{}, h.caps...), append([]string{}, h.commands...)
}

// NodeFile returns the node.json this host saves.
func (h *Host) NodeFile() NodeFile { return *h.node }

func (h *Host) logf(format string, args ...any) {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	fmt.Fprintf(h.opts.Log, format+"\n", args...)
}

// Run connects and serves until ctx ends (nil) or the gateway refuses this
// node for good: bad or missing credentials, a pairing the gateway will
// not wait for, a protocol mismatch (a *failure.Error saying what to do).
// Only one node host runs per state dir.
func (h *Host) Run(ctx context.Context) error {
	if err := os.MkdirAll(h.opts.StateDir, 0o700); err != nil {
		return failure.Wrap(failure.CodeFailed, "node host state dir", err)
	}
	unlock, err := tryLock(filepath.Join(h.opts.StateDir, lockFileName))
	if err != nil {
		pid := ""
		if st, ok, _ := ReadStatus(h.opts.StateDir); ok {
			pid = fmt.Sprintf(" (pid %d)", st.PID)
		}
		return failure.Errorf(failure.CodeFailed, "another node host is running with state dir %s%s", h.opts.StateDir, pid)
	}
	defer unlock()
	if err := h.node.Save(h.opts.StateDir); err != nil {
		return err
	}
	h.mu.Lock()
	h.status = Status{PID: os.Getpid(), StartedAtMs: nowMs(), GatewayURL: h.url, Commands: h.commands}
	h.mu.Unlock()
	h.saveStatus(nil)
	h.logf("node host %s (device %s) advertised commands: %s", h.node.DisplayName, short(h.id.DeviceID), strings.Join(h.commands, ", "))

	copts, err := h.clientOptions()
	if err != nil {
		return err
	}
	sess := client.Connect(ctx, copts, h.onConnect)
	<-sess.Done()
	h.wg.Wait()
	h.canvas.close(h)
	stopErr := sess.Err()
	h.saveStatus(func(s *Status) {
		s.Connected = false
		if stopErr != nil {
			s.Stopped = stopErr.Error()
		} else {
			s.Stopped = "stopped"
		}
	})
	if stopErr != nil {
		return h.refusal(stopErr)
	}
	return nil
}

func tryLock(path string) (func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // one non-blocking attempt
	return flock.Lock(ctx, path)
}

// Running reports whether a node host holds the state dir's lock.
func Running(stateDir string) bool {
	unlock, err := tryLock(filepath.Join(stateDir, lockFileName))
	if err != nil {
		_, statErr := os.Stat(filepath.Join(stateDir, lockFileName))
		return statErr == nil
	}
	unlock()
	return false
}

func (h *Host) clientOptions() (client.Options, error) {
	tc, err := tlsConfig(h.opts)
	if err != nil {
		return client.Options{}, err
	}
	o := client.Options{
		URL: h.url, Token: h.opts.Token, Password: h.opts.Password, Identity: h.id,
		ClientID: protocol.ClientIDNodeHost, ClientMode: protocol.ModeNode, Role: protocol.RoleNode, Scopes: []string{},
		DisplayName: h.node.DisplayName, Version: h.opts.Version, Platform: nodePlatform(), InstanceID: h.node.NodeID,
		Caps: h.caps, Commands: h.commands, PathEnv: h.getenv("PATH"),
		MinProtocol: protocol.Version, MaxProtocol: protocol.Version,
		TLSConfig: tc, Timeout: 20 * time.Second,
		OnEvent:      h.onEvent,
		OnDisconnect: h.onDisconnect,
	}
	if o.Token == "" && o.Password == "" {
		if t := h.node.DeviceToken; t != nil && t.URL == h.url && t.Token != "" {
			o.DeviceToken = t.Token
		} else {
			o.Token, o.Password = h.opts.ConfigToken, h.opts.ConfigPassword
		}
	}
	return o, nil
}

func nodePlatform() string {
	switch runtime.GOOS {
	case "darwin":
		return "macos"
	case "windows":
		return "windows"
	}
	return runtime.GOOS
}

// onConnect runs on every new connection: it remembers the connection,
// keeps a device token the gateway issued, and starts the publications.
func (h *Host) onConnect(c *client.Conn) error {
	hello := c.Hello()
	raw := c.HelloRaw()
	base := helloCanvasBase(raw, h.url)
	h.mu.Lock()
	h.conn = c
	h.canvasBase = base
	h.pairingMsg = ""
	h.mu.Unlock()
	if tok := hello.Auth.DeviceToken; tok != "" {
		h.node.DeviceToken = &SavedToken{URL: h.url, Token: tok, Role: hello.Auth.Role, IssuedAtMs: hello.Auth.IssuedAtMs}
		if err := h.node.Save(h.opts.StateDir); err != nil {
			h.logf("node host: could not save the device token: %v", err)
		}
	}
	h.logf("node host gateway connected: %s", h.url)
	h.saveStatus(func(s *Status) { s.Connected, s.LastConnectedAtMs, s.LastError = true, nowMs(), "" })
	p := newPublisher(h, c)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		p.run()
	}()
	return nil
}

// helloCanvasBase is the canvas host origin the gateway advertises
// (canvasHostUrl, or pluginSurfaceUrls.canvas), else the gateway's own
// HTTP origin: the canvas host is served on the gateway port.
func helloCanvasBase(raw json.RawMessage, wsURL string) string {
	for _, k := range []string{"canvasHostUrl", "pluginSurfaceUrls.canvas"} {
		if v := gjson.GetBytes(raw, k); v.Type == gjson.String && v.String() != "" {
			return strings.TrimRight(v.String(), "/")
		}
	}
	return httpBase(wsURL)
}

func (h *Host) onDisconnect(err error, retryIn time.Duration) {
	h.mu.Lock()
	h.conn = nil
	h.mu.Unlock()
	msg := describeDisconnect(err)
	if pr := pairingRequest(err); pr != "" {
		h.mu.Lock()
		seen := h.pairingMsg == pr
		h.pairingMsg = pr
		h.mu.Unlock()
		if !seen {
			h.logf("node host: the gateway has not approved this device yet (request %s): approve it on the gateway host with `openclaw devices approve %s`; retrying", pr, pr)
		}
	} else {
		h.logf("node host gateway disconnected: %s; reconnecting in %s", msg, retryIn.Round(100*time.Millisecond))
	}
	h.saveStatus(func(s *Status) { s.Connected, s.LastDisconnectMs, s.LastError = false, nowMs(), msg })
}

func describeDisconnect(err error) string {
	if err == nil {
		return "connection closed"
	}
	return err.Error()
}

// pairingRequest is the request id of a PAIRING_REQUIRED connect refusal.
func pairingRequest(err error) string {
	var ce *client.CallError
	if !errors.As(err, &ce) || ce.DetailCode() != protocol.DetailPairingRequired {
		return ""
	}
	if m, ok := ce.Details.(map[string]any); ok {
		if id, ok := m["requestId"].(string); ok && id != "" {
			return id
		}
	}
	return "pending"
}

// refusal turns the error that stopped the session into the message the
// user needs.
func (h *Host) refusal(err error) error {
	var ce *client.CallError
	if !errors.As(err, &ce) {
		return err
	}
	code := failure.CodeAuth
	var hint string
	switch dc := ce.DetailCode(); {
	case dc == protocol.DetailPairingRequired:
		hint = "approve this device on the gateway host (`openclaw devices approve` there, or `openclaw devices list` to find it), then start the node host again"
	case dc == protocol.DetailProtocolMismatch || ce.Message == protocol.ReasonProtocolMismatch:
		code, hint = failure.CodeFailed, "the gateway speaks another protocol version than this node host (4)"
	case dc == "AUTH_TOKEN_MISSING" || dc == "AUTH_PASSWORD_MISSING" || dc == protocol.DetailDeviceIdentityRequired:
		hint = "give the gateway's secret: OPENCLAW_GATEWAY_TOKEN (or OPENCLAW_GATEWAY_PASSWORD), or gateway.auth.token in this machine's config"
	case dc == "AUTH_DEVICE_TOKEN_MISMATCH":
		hint = "the gateway no longer accepts this device's token (revoked or removed): give the shared token with OPENCLAW_GATEWAY_TOKEN to pair again"
	case strings.HasPrefix(dc, "AUTH_"):
		hint = "check the gateway's token or password (OPENCLAW_GATEWAY_TOKEN / OPENCLAW_GATEWAY_PASSWORD, gateway.auth.* in this machine's config)"
	default:
		hint = "the gateway refused this node; fix the cause and start the node host again"
	}
	return failure.Errorf(code, "node host stopped: the gateway at %s refused the connection: %s; %s", h.url, ce.Message, hint).
		WithDetails(map[string]any{"gatewayCode": ce.Code, "details": ce.Details})
}

// saveStatus updates node-status.json.
func (h *Host) saveStatus(edit func(*Status)) {
	h.mu.Lock()
	if edit != nil {
		edit(&h.status)
	}
	h.status.UpdatedAtMs = nowMs()
	s := h.status
	h.mu.Unlock()
	if err := writeStatus(h.opts.StateDir, &s); err != nil {
		h.logf("node host: status file: %v", err)
	}
}

// current is the live connection, nil while disconnected.
func (h *Host) current() *client.Conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conn
}

func nowMs() int64 { return time.Now().UnixMilli() }

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func itoa(n int) string { return strconv.Itoa(n) }
