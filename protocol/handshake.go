package protocol

import "encoding/json"

// Challenge is the payload of the connect.challenge event the server sends
// first on every connection.
type Challenge struct {
	Nonce        string   `json:"nonce"`
	TS           int64    `json:"ts"`
	Capabilities []string `json:"capabilities,omitempty"`
}

// ClientInfo identifies the connecting program.
type ClientInfo struct {
	ID              string `json:"id"`
	DisplayName     string `json:"displayName,omitempty"`
	Version         string `json:"version"`
	BuildID         string `json:"buildId,omitempty"`
	Platform        string `json:"platform"`
	DeviceFamily    string `json:"deviceFamily,omitempty"`
	ModelIdentifier string `json:"modelIdentifier,omitempty"`
	TimeZone        string `json:"timeZone,omitempty"`
	Mode            string `json:"mode"`
	InstanceID      string `json:"instanceId,omitempty"`
}

// DeviceProof is the Ed25519 device identity proof (§3.5).
type DeviceProof struct {
	ID        string `json:"id"`
	PublicKey string `json:"publicKey"`
	Signature string `json:"signature"`
	SignedAt  int64  `json:"signedAt"`
	Nonce     string `json:"nonce"`
}

// ConnectAuth carries the shared secret or device/bootstrap tokens.
type ConnectAuth struct {
	Token          string `json:"token,omitempty"`
	BootstrapToken string `json:"bootstrapToken,omitempty"`
	DeviceToken    string `json:"deviceToken,omitempty"`
	Password       string `json:"password,omitempty"`
}

// ConnectParams are the params of the connect request (§3.2). Unknown keys
// are tolerated by our server.
type ConnectParams struct {
	MinProtocol int             `json:"minProtocol"`
	MaxProtocol int             `json:"maxProtocol"`
	Client      ClientInfo      `json:"client"`
	Caps        []string        `json:"caps,omitempty"`
	Commands    []string        `json:"commands,omitempty"`
	Permissions map[string]bool `json:"permissions,omitempty"`
	PathEnv     string          `json:"pathEnv,omitempty"`
	Role        string          `json:"role,omitempty"`
	Scopes      []string        `json:"scopes,omitempty"`
	Device      *DeviceProof    `json:"device,omitempty"`
	Auth        *ConnectAuth    `json:"auth,omitempty"`
	Locale      string          `json:"locale,omitempty"`
	UserAgent   string          `json:"userAgent,omitempty"`
}

// HelloOK is the payload of a successful connect response (§3.3).
type HelloOK struct {
	Type     string     `json:"type"`
	Protocol int        `json:"protocol"`
	Server   ServerInfo `json:"server"`
	Features Features   `json:"features"`
	Snapshot Snapshot   `json:"snapshot"`
	Auth     HelloAuth  `json:"auth"`
	Policy   Policy     `json:"policy"`
	// CanvasHostURL is sent to node connections when the gateway serves a
	// canvas host: http://<the host:port the node connected to>.
	CanvasHostURL string `json:"canvasHostUrl,omitempty"`
}

// ServerInfo names the server build and this connection.
type ServerInfo struct {
	Version string `json:"version"`
	ConnID  string `json:"connId"`
	BuildID string `json:"buildId,omitempty"`
	BootID  string `json:"bootId,omitempty"`
}

// Features lists what the server serves.
type Features struct {
	Methods      []string `json:"methods"`
	Events       []string `json:"events"`
	Capabilities []string `json:"capabilities"`
}

// Snapshot is the initial state sent with hello-ok.
type Snapshot struct {
	Presence        []json.RawMessage `json:"presence"`
	Health          json.RawMessage   `json:"health"`
	StateVersion    StateVersion      `json:"stateVersion"`
	UptimeMs        int64             `json:"uptimeMs"`
	ConfigPath      string            `json:"configPath,omitempty"`
	StateDir        string            `json:"stateDir,omitempty"`
	SessionDefaults *SessionDefaults  `json:"sessionDefaults,omitempty"`
	AuthMode        string            `json:"authMode,omitempty"`
}

// SessionDefaults tell clients the default agent and main session key.
type SessionDefaults struct {
	DefaultAgentID string `json:"defaultAgentId"`
	MainKey        string `json:"mainKey"`
	MainSessionKey string `json:"mainSessionKey"`
	Scope          string `json:"scope,omitempty"`
}

// HelloAuth is the effective authorization of the connection.
type HelloAuth struct {
	Method      string   `json:"method,omitempty"`
	Role        string   `json:"role"`
	Scopes      []string `json:"scopes"`
	DeviceToken string   `json:"deviceToken,omitempty"`
	IssuedAtMs  int64    `json:"issuedAtMs,omitempty"`
}

// Policy tells the client the server's limits and tick interval.
type Policy struct {
	MaxPayload       int64 `json:"maxPayload"`
	MaxBufferedBytes int64 `json:"maxBufferedBytes"`
	TickIntervalMs   int64 `json:"tickIntervalMs"`
}
