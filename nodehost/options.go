// Package nodehost is the headless node host (`openclaw node run`): a
// long-lived process that connects to a gateway with role node and an
// Ed25519 device identity kept in the state dir, declares what this
// machine can do (caps and commands), answers node.invoke.request events
// with node.invoke.result, publishes what the original node host publishes
// (node.host.stats every 60 s, its skills, plugin tools and runner
// inventory) and reconnects with backoff (client.Session) until the gateway
// refuses it for good (credentials, pairing).
//
// Its commands are actions of a registry of its own, reached through
// Registry.Invoke as every front door reaches actions; the ones that do
// real work go on through tools.Invoke to the families the binary links:
// system.run to exec (under this node's own exec approvals), browser.proxy
// to the browser's routes, canvas.* to a headless Chromium page driven
// with browser actions. The package imports no family.
package nodehost

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
)

// DefaultPort is the gateway port when neither a flag, node.json nor the
// config names one.
const DefaultPort = 18789

// Options configure a node host run. Zero values take the defaults.
type Options struct {
	// Gateway address: host (default 127.0.0.1), port, TLS, pinned
	// certificate fingerprint (sha256 hex), WebSocket context path.
	Host           string
	Port           int
	TLS            bool
	NoTLS          bool // --no-tls: never reuse a saved TLS setting
	TLSFingerprint string
	ContextPath    string

	// DisplayName (default the host name) and NodeID (the instance id
	// sent as client.instanceId; default the one saved in node.json).
	DisplayName string
	NodeID      string

	// Commands, when non-nil, is the exact list of commands to declare
	// (it must be a subset of what this host supports).
	Commands []string

	// Token / Password are the shared gateway secret from the
	// environment; they win. Without them the device token the gateway
	// issued to this node is used, and only without one ConfigToken /
	// ConfigPassword (this machine's config).
	Token, Password             string
	ConfigToken, ConfigPassword string

	// StateDir holds node.json, the identity and the exec approvals file.
	StateDir string
	// Config is this machine's openclaw.json (exec policy, browser,
	// nodeHost.*); nil is the defaults.
	Config *config.Config
	// Workdir is where commands run when they name no cwd (default the
	// node host's working directory, as the original).
	Workdir string
	// Media stores result files (browser screenshots); nil: none.
	Media tools.Media
	// Version is client.version (the CLI's version).
	Version string
	// Log receives the node host's log lines (stderr).
	Log io.Writer
	// Getenv reads the environment (default os.Getenv).
	Getenv func(string) string

	// StatsInterval is how often node.host.stats is published (60 s).
	StatsInterval time.Duration
	// MaxConcurrent bounds the invocations running at once (16).
	MaxConcurrent int
}

// GatewayURL is the WebSocket URL these options name.
func (o Options) GatewayURL() string {
	scheme := "ws"
	if o.TLS {
		scheme = "wss"
	}
	host := o.Host
	if host == "" {
		host = "127.0.0.1"
	}
	port := o.Port
	if port == 0 {
		port = DefaultPort
	}
	path := strings.TrimSpace(o.ContextPath)
	if path != "" && !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port)) + strings.TrimRight(path, "/")
}

// checkPlaintext refuses ws:// to a host that is neither loopback, a
// private address, .local nor *.ts.net, as the original does, unless
// OPENCLAW_ALLOW_INSECURE_PRIVATE_WS=1: the token would cross the network
// in the clear.
func checkPlaintext(o Options, getenv func(string) string) error {
	if o.TLS {
		return nil
	}
	h := strings.ToLower(strings.Trim(o.Host, "[]"))
	if h == "" || h == "localhost" || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".ts.net") {
		return nil
	}
	if ip := net.ParseIP(h); ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()) {
		return nil
	}
	if getenv("OPENCLAW_ALLOW_INSECURE_PRIVATE_WS") == "1" {
		return nil
	}
	return failure.Errorf(failure.CodeUsage,
		"refusing plaintext ws:// to %s: use --tls (and --tls-fingerprint to pin the certificate), or set OPENCLAW_ALLOW_INSECURE_PRIVATE_WS=1", o.Host)
}

// tlsConfig pins the gateway's leaf certificate when a fingerprint is
// given (self-signed gateways), else verifies it normally.
func tlsConfig(o Options) (*tls.Config, error) {
	if !o.TLS {
		return nil, nil
	}
	fp := normalizeFingerprint(o.TLSFingerprint)
	if o.TLSFingerprint != "" && len(fp) != 64 {
		return nil, failure.Errorf(failure.CodeUsage, "--tls-fingerprint must be a sha256 fingerprint (64 hex digits, colons allowed)")
	}
	if fp == "" {
		return &tls.Config{MinVersion: tls.VersionTLS12}, nil
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // replaced by the pin below
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return fmt.Errorf("gateway sent no certificate")
			}
			sum := sha256.Sum256(raw[0])
			if got := hex.EncodeToString(sum[:]); got != fp {
				return fmt.Errorf("gateway certificate fingerprint %s does not match --tls-fingerprint %s", got, fp)
			}
			return nil
		},
	}, nil
}

func normalizeFingerprint(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "sha256:")
	return strings.ReplaceAll(s, ":", "")
}

// httpBase is the gateway's HTTP origin for a WebSocket URL (the canvas
// host lives on the same port).
func httpBase(wsURL string) string {
	u, err := url.Parse(wsURL)
	if err != nil {
		return ""
	}
	switch u.Scheme {
	case "wss":
		u.Scheme = "https"
	default:
		u.Scheme = "http"
	}
	u.Path, u.RawQuery = "", ""
	return strings.TrimRight(u.String(), "/")
}
