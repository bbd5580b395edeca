package client

import (
	"crypto/tls"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/protocol"
)

// DefaultURL is the local gateway.
const DefaultURL = "ws://127.0.0.1:18789"

const (
	defaultTimeout          = 10 * time.Second
	connectChallengeTimeout = 15 * time.Second // §3.6, upper bound
	connectResponseTimeout  = 15 * time.Second
	writeTimeout            = 10 * time.Second
)

// Options configure Dial and Connect. Zero values take the documented
// defaults.
type Options struct {
	URL         string // default DefaultURL; http(s):// is turned into ws(s)://, a bare host:port gets ws://
	Token       string // shared gateway token → auth.token
	Password    string // shared gateway password → auth.password
	DeviceToken string // → auth.deviceToken, only when Token is empty
	// BootstrapToken (setup code / --pair) → auth.bootstrapToken, only when
	// Token, DeviceToken and Password are all empty.
	BootstrapToken string
	// Identity, when set, signs the connect (v3 payload) and sends
	// connect.params.device.
	Identity *Identity

	ClientID     string // "cli" default; "node-host", "gateway-client", …
	ClientMode   string // "cli" default; "node", "backend", "probe"
	DisplayName  string
	Version      string // client.version, default "dev"
	Platform     string // default like Node's process.platform (linux, darwin, win32)
	DeviceFamily string // default Linux / Mac / Windows from runtime.GOOS
	InstanceID   string // default a fresh uuid v4
	Role         string // "operator" default, or "node"
	// Scopes requested. nil → ["operator.admin"] for an operator (the
	// reference client's default) and [] for a node; a non-nil empty slice
	// sends [].
	Scopes   []string
	Caps     []string // always sent, [] when empty
	Commands []string // node role
	PathEnv  string   // node role

	MinProtocol, MaxProtocol int // default 4..4

	// Timeout bounds dial + handshake (default 10 s). The challenge wait is
	// at most 15 s and the connect response wait at most 15 s within it.
	Timeout time.Duration
	// TLSConfig is used for wss:// URLs.
	TLSConfig *tls.Config
	// Header adds HTTP headers to the upgrade request.
	Header http.Header

	// OnEvent receives every event after hello (never connect.challenge), in
	// order, on a dispatcher goroutine owned by the connection: it may call
	// Conn.Call. It must not block forever, since later events wait for it.
	OnEvent func(ev protocol.Event)

	// OnDisconnect (Session only) is told why a dial failed or a live
	// connection ended, and how long the session waits before the next try.
	OnDisconnect func(err error, retryIn time.Duration)

	// test hooks (Session backoff, tick watchdog check period)
	backoffBase, backoffMax time.Duration
	tickCheckMin            time.Duration
}

func (o Options) withDefaults() Options {
	if o.URL == "" {
		o.URL = DefaultURL
	}
	o.URL = normalizeURL(o.URL)
	if o.ClientID == "" {
		o.ClientID = "cli"
	}
	if o.ClientMode == "" {
		o.ClientMode = "cli"
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Platform == "" {
		o.Platform = nodePlatform(runtime.GOOS)
	}
	if o.DeviceFamily == "" {
		o.DeviceFamily = deviceFamily(runtime.GOOS)
	}
	if o.InstanceID == "" {
		o.InstanceID = uuid.NewString()
	}
	if o.Role == "" {
		o.Role = protocol.RoleOperator
	}
	if o.Scopes == nil {
		o.Scopes = []string{}
		if o.Role == protocol.RoleOperator {
			o.Scopes = []string{protocol.ScopeAdmin}
		}
	}
	if o.Caps == nil {
		o.Caps = []string{}
	}
	if o.MinProtocol == 0 {
		o.MinProtocol = protocol.Version
	}
	if o.MaxProtocol == 0 {
		o.MaxProtocol = protocol.Version
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.tickCheckMin <= 0 {
		o.tickCheckMin = time.Second
	}
	return o
}

func normalizeURL(u string) string {
	u = strings.TrimSpace(u)
	switch {
	case strings.HasPrefix(u, "http://"):
		return "ws://" + strings.TrimPrefix(u, "http://")
	case strings.HasPrefix(u, "https://"):
		return "wss://" + strings.TrimPrefix(u, "https://")
	case !strings.Contains(u, "://"):
		return "ws://" + u
	}
	return u
}

func nodePlatform(goos string) string {
	if goos == "windows" {
		return "win32"
	}
	return goos
}

func deviceFamily(goos string) string {
	switch goos {
	case "linux":
		return "Linux"
	case "darwin":
		return "Mac"
	case "windows":
		return "Windows"
	}
	return ""
}

// connectParams is the wire form of the connect params. It differs from
// protocol.ConnectParams in always sending caps and scopes (the reference
// client sends "caps":[] and nodes send "scopes":[]).
type connectParams struct {
	MinProtocol int                   `json:"minProtocol"`
	MaxProtocol int                   `json:"maxProtocol"`
	Client      protocol.ClientInfo   `json:"client"`
	Caps        []string              `json:"caps"`
	Commands    []string              `json:"commands,omitempty"`
	PathEnv     string                `json:"pathEnv,omitempty"`
	Auth        *protocol.ConnectAuth `json:"auth,omitempty"`
	Role        string                `json:"role"`
	Scopes      []string              `json:"scopes"`
	Device      *protocol.DeviceProof `json:"device,omitempty"`
}

// buildConnect assembles auth (§4.3) and, with an Identity, the signed
// device proof (§3.5).
func buildConnect(o *Options, ch *protocol.Challenge) connectParams {
	p := connectParams{
		MinProtocol: o.MinProtocol,
		MaxProtocol: o.MaxProtocol,
		Client: protocol.ClientInfo{
			ID: o.ClientID, DisplayName: o.DisplayName, Version: o.Version, Platform: o.Platform,
			DeviceFamily: o.DeviceFamily, Mode: o.ClientMode, InstanceID: o.InstanceID,
		},
		Caps: o.Caps, Commands: o.Commands, PathEnv: o.PathEnv, Role: o.Role, Scopes: o.Scopes,
	}
	a := protocol.ConnectAuth{Token: o.Token, Password: o.Password}
	if a.Token == "" {
		a.DeviceToken = o.DeviceToken
	}
	if a.Token == "" && a.DeviceToken == "" && a.Password == "" {
		a.BootstrapToken = o.BootstrapToken
	}
	if a != (protocol.ConnectAuth{}) {
		p.Auth = &a
	}
	if id := o.Identity; id != nil {
		payload := protocol.DeviceAuthPayloadV3(protocol.DeviceAuthFields{
			DeviceID: id.DeviceID, ClientID: o.ClientID, ClientMode: o.ClientMode, Role: o.Role,
			Scopes: o.Scopes, SignedAtMs: ch.TS, Token: a.SignatureToken(), Nonce: ch.Nonce,
			Platform: o.Platform, DeviceFamily: o.DeviceFamily,
		})
		p.Device = &protocol.DeviceProof{
			ID: id.DeviceID, PublicKey: id.PublicKeyString(), Signature: id.Sign(payload),
			SignedAt: ch.TS, Nonce: ch.Nonce,
		}
	}
	return p
}
