package nodehost

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/client"
)

// Files of the node host under the state dir (the classic layout of the
// original: node.json beside identity/device.json).
const (
	nodeFileName   = "node.json"
	statusFileName = "node-status.json"
	lockFileName   = "node.lock"
	maxStateBytes  = 1 << 20
)

// IdentityPath is the node host's Ed25519 device identity.
func IdentityPath(stateDir string) string {
	return filepath.Join(stateDir, "identity", "device.json")
}

// NodeFile is node.json: who this node is and where it last connected.
type NodeFile struct {
	Version     int          `json:"version"`
	NodeID      string       `json:"nodeId"`
	DisplayName string       `json:"displayName,omitempty"`
	Gateway     *GatewayAddr `json:"gateway,omitempty"`
	// DeviceToken is the token the gateway issued to this device
	// (hello-ok.auth.deviceToken), for the gateway it names.
	DeviceToken *SavedToken `json:"deviceToken,omitempty"`
	// Commands is a saved --commands allowlist (nil: the default surface).
	Commands []string `json:"commands,omitempty"`
}

// GatewayAddr is where the node host connects.
type GatewayAddr struct {
	Host           string `json:"host"`
	Port           int    `json:"port"`
	TLS            bool   `json:"tls,omitempty"`
	TLSFingerprint string `json:"tlsFingerprint,omitempty"`
	ContextPath    string `json:"contextPath,omitempty"`
}

// SavedToken is a device token and the gateway URL it was issued by.
type SavedToken struct {
	URL        string `json:"url"`
	Token      string `json:"token"`
	Role       string `json:"role,omitempty"`
	IssuedAtMs int64  `json:"issuedAtMs,omitempty"`
}

// Redacted is the file without its secret (for `node status`).
func (f NodeFile) Redacted() NodeFile {
	if f.DeviceToken != nil {
		t := *f.DeviceToken
		t.Token = "(saved)"
		f.DeviceToken = &t
	}
	return f
}

// LoadNodeFile reads node.json; a missing file is an empty one (ok false).
func LoadNodeFile(stateDir string) (*NodeFile, bool, error) {
	b, err := atomicfile.ReadCapped(filepath.Join(stateDir, nodeFileName), maxStateBytes)
	if errors.Is(err, os.ErrNotExist) {
		return &NodeFile{Version: 1}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("node host state: %w", err)
	}
	var f NodeFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, false, fmt.Errorf("node host state %s: %w", filepath.Join(stateDir, nodeFileName), err)
	}
	if f.Version == 0 {
		f.Version = 1
	}
	return &f, true, nil
}

// Save writes node.json atomically (0600 in a 0700 directory).
func (f *NodeFile) Save(stateDir string) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("node host state: %w", err)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("node host state: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(stateDir, nodeFileName), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("node host state: %w", err)
	}
	return nil
}

// ensureNodeID gives the file a node instance id (a uuid, as the
// original's) when it has none.
func (f *NodeFile) ensureNodeID() bool {
	if f.NodeID != "" {
		return false
	}
	f.NodeID = uuid.NewString()
	return true
}

// LoadIdentity reads the device identity without creating one (for
// `node identity` and `node status`).
func LoadIdentity(stateDir string) (*client.Identity, error) {
	p := IdentityPath(stateDir)
	if _, err := os.Lstat(p); err != nil {
		return nil, err
	}
	return client.LoadOrCreateIdentity(p)
}

// Status is node-status.json: what the running node host reports about
// its connection, for `openclaw node status`.
type Status struct {
	PID               int      `json:"pid"`
	StartedAtMs       int64    `json:"startedAtMs"`
	GatewayURL        string   `json:"gatewayUrl"`
	Connected         bool     `json:"connected"`
	LastConnectedAtMs int64    `json:"lastConnectedAtMs,omitempty"`
	LastDisconnectMs  int64    `json:"lastDisconnectedAtMs,omitempty"`
	LastError         string   `json:"lastError,omitempty"`
	Stopped           string   `json:"stopped,omitempty"`
	Commands          []string `json:"commands"`
	UpdatedAtMs       int64    `json:"updatedAtMs"`
}

// ReadStatus reads node-status.json (ok false when there is none).
func ReadStatus(stateDir string) (*Status, bool, error) {
	b, err := atomicfile.ReadCapped(filepath.Join(stateDir, statusFileName), maxStateBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("node host status: %w", err)
	}
	var s Status
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, false, fmt.Errorf("node host status: %w", err)
	}
	return &s, true, nil
}

func writeStatus(stateDir string, s *Status) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(stateDir, statusFileName), append(b, '\n'), 0o600)
}
