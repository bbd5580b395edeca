// Package gateway is `openclaw serve`: one loopback port for HTTP and the
// OpenClaw Gateway WebSocket protocol (v4). It authenticates connections,
// checks roles and scopes, and dispatches every request into the tool
// registry through Action.Invoke, so the gateway runs the very handlers the
// CLI runs locally.
package gateway

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

// Options configure a Server. Zero values fall back to the config file
// (gateway.bind, gateway.auth.*), then the environment, then defaults.
type Options struct {
	// Host is the address to bind; "127.0.0.1" unless Bind says otherwise.
	Host string
	// Port is the TCP port; 0 picks a free port (tests). Use ResolvePort for
	// the CLI's precedence rules.
	Port int
	// Bind is loopback (default), lan (0.0.0.0) or custom (Host, else
	// gateway.customBindHost).
	Bind string
	// AuthMode is none, token or password; empty derives it from the
	// config (gateway.auth.mode), else from the secrets: password if one is
	// set, else token. With no secret anywhere New generates a token and
	// stores it in the config file (GenerateToken); none only when asked.
	AuthMode string
	// Token and Password are the shared secrets; empty falls back to
	// gateway.auth.token/password, then OPENCLAW_GATEWAY_TOKEN/PASSWORD.
	Token, Password string
	// Paths locate the config file and the state dir (logs, devices).
	Paths config.Paths
	// Config is the loaded config; nil loads it from Paths.ConfigPath.
	Config *config.Config
	// Version is reported in hello-ok.server.version and presence.
	Version string
	// Verbose adds debug lines to the log.
	Verbose bool
	// Log receives log lines besides <state>/logs/gateway.log; nil: none.
	Log io.Writer

	// TickInterval is the tick event period (default 30 s); tests shorten it.
	TickInterval time.Duration
	// HealthInterval is the period of health broadcasts (default 60 s).
	HealthInterval time.Duration
	// HandshakeTimeout bounds challenge→hello (default 15 s, or
	// OPENCLAW_HANDSHAKE_TIMEOUT_MS).
	HandshakeTimeout time.Duration
	// DrainTimeout bounds how long shutdown waits for in-flight requests
	// (default 5 s).
	DrainTimeout time.Duration
	// ConfigPollInterval is how often the config file is checked for
	// changes (default 500 ms); negative disables hot reload.
	ConfigPollInterval time.Duration
	// MaxPreAuthPerIP caps concurrent un-authenticated sockets per client
	// IP (default 32, or OPENCLAW_MAX_PREAUTH_CONNECTIONS_PER_IP).
	MaxPreAuthPerIP int
	// MaxInflightPerConn bounds concurrently running requests of one
	// connection (default 64); further frames wait (TCP back-pressure).
	MaxInflightPerConn int
	// MaxBufferedBytes bounds one connection's unsent output (default
	// 50 MiB, advertised in hello-ok policy.maxBufferedBytes). Past half of
	// it the connection's requests are no longer read (back-pressure).
	MaxBufferedBytes int64
	// SlowConsumerStall is how long output may stay over budget with no
	// write completing before the client counts as no longer reading and
	// is closed 1008 "slow consumer" (default 10 s).
	SlowConsumerStall time.Duration
	// Getenv replaces os.Getenv (tests); nil means os.Getenv.
	Getenv func(string) string
}

// Auth modes (gateway.auth.mode).
const (
	AuthNone     = "none"
	AuthToken    = "token"
	AuthPassword = "password"
)

// authConfig is the resolved shared-secret setup; swapped atomically on
// config reload when it came from the config file.
type authConfig struct {
	mode     string
	token    string
	password string
}

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// resolveBindHost turns Bind/Host (and gateway.bind) into the listen host.
func resolveBindHost(o *Options, cfg *config.Config) (string, error) {
	bind := strings.ToLower(strings.TrimSpace(o.Bind))
	if bind == "" {
		bind = strings.ToLower(cfg.String("gateway.bind", ""))
	}
	if bind == "" && o.Host != "" && !isLoopbackHost(o.Host) {
		bind = "custom"
	}
	switch bind {
	case "", "loopback", "auto":
		if o.Host != "" && !isLoopbackHost(o.Host) {
			return "", fmt.Errorf("gateway bind %q: host %s is not a loopback address (use bind custom)", bind, o.Host)
		}
		if o.Host != "" {
			return o.Host, nil
		}
		return "127.0.0.1", nil
	case "lan":
		return "0.0.0.0", nil
	case "custom":
		h := o.Host
		if h == "" {
			h = cfg.String("gateway.customBindHost", "")
		}
		if h == "" {
			return "", errors.New("gateway bind custom needs a host (--host or gateway.customBindHost)")
		}
		return h, nil
	default:
		return "", fmt.Errorf("gateway bind %q is not supported (use loopback, lan or custom)", bind)
	}
}

// resolveAuth applies Options > config > environment, then derives the mode.
func resolveAuth(o *Options, cfg *config.Config) (authConfig, error) {
	a := authConfig{
		mode:     strings.ToLower(strings.TrimSpace(o.AuthMode)),
		token:    o.Token,
		password: o.Password,
	}
	if a.mode == "" {
		a.mode = strings.ToLower(cfg.String("gateway.auth.mode", ""))
	}
	if a.token == "" {
		a.token = cfg.String("gateway.auth.token", "")
	}
	if a.token == "" {
		a.token = o.getenv("OPENCLAW_GATEWAY_TOKEN")
	}
	if a.password == "" {
		a.password = cfg.String("gateway.auth.password", "")
	}
	if a.password == "" {
		a.password = o.getenv("OPENCLAW_GATEWAY_PASSWORD")
	}
	if a.mode == "" {
		// As the original: password when one is set, else token — also
		// when nothing is set, so a gateway without a secret fails closed
		// (New generates one on first start). Only an explicit
		// `--auth none` (or gateway.auth.mode "none") runs without auth.
		a.mode = AuthToken
		if a.password != "" {
			a.mode = AuthPassword
		}
	}
	switch a.mode {
	case AuthNone, AuthToken, AuthPassword:
	default:
		return a, fmt.Errorf("gateway auth mode %q is not supported (use none, token or password)", a.mode)
	}
	return a, nil
}

// secured reports whether auth really demands a secret.
func (a authConfig) secured() bool {
	return (a.mode == AuthToken && a.token != "") || (a.mode == AuthPassword && a.password != "")
}

func isLoopbackHost(h string) bool {
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ResolvePort applies the CLI's port precedence (§1.1): flag > env
// OPENCLAW_GATEWAY_PORT > config gateway.port > profile-derived port
// (20000 + FNV-1a-32(profile) mod 40000) > 19001 for --dev > 18789.
func ResolvePort(flagPort int, paths config.Paths, cfg *config.Config, getenv func(string) string) int {
	if flagPort > 0 {
		return flagPort
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if v, err := strconv.Atoi(strings.TrimSpace(getenv("OPENCLAW_GATEWAY_PORT"))); err == nil && v > 0 {
		return v
	}
	if p := cfg.Int("gateway.port", 0); p > 0 {
		return p
	}
	if paths.Dev {
		return protocol.DevPort
	}
	if paths.Profile != "" {
		h := fnv.New32a()
		_, _ = h.Write([]byte(paths.Profile))
		return 20000 + int(h.Sum32()%40000)
	}
	return protocol.DefaultPort
}

func envDurationMs(o *Options, key string) time.Duration {
	if v, err := strconv.Atoi(strings.TrimSpace(o.getenv(key))); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return 0
}

// withDefaults fills the timers and limits.
func (o Options) withDefaults() Options {
	if o.TickInterval <= 0 {
		o.TickInterval = protocol.TickIntervalMs * time.Millisecond
	}
	if o.HealthInterval <= 0 {
		o.HealthInterval = 60 * time.Second
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = envDurationMs(&o, "OPENCLAW_HANDSHAKE_TIMEOUT_MS")
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = protocol.HandshakeTimeoutMs * time.Millisecond
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 5 * time.Second
	}
	if o.ConfigPollInterval == 0 {
		o.ConfigPollInterval = 500 * time.Millisecond
	}
	if o.MaxPreAuthPerIP <= 0 {
		if v, err := strconv.Atoi(o.getenv("OPENCLAW_MAX_PREAUTH_CONNECTIONS_PER_IP")); err == nil && v > 0 {
			o.MaxPreAuthPerIP = v
		} else {
			o.MaxPreAuthPerIP = 32
		}
	}
	if o.MaxBufferedBytes <= 0 {
		o.MaxBufferedBytes = protocol.MaxBufferedBytes
	}
	if o.SlowConsumerStall <= 0 {
		o.SlowConsumerStall = writeWait
	}
	if o.MaxInflightPerConn <= 0 {
		o.MaxInflightPerConn = 64
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	return o
}
