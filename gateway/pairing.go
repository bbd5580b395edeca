package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/google/uuid"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/openclaw-go/openclaw/protocol"
)

// pairedDevice is one approved device identity (§4.4): its key, the roles
// and scopes it may use, and the client metadata it paired with.
type pairedDevice struct {
	DeviceID          string   `json:"deviceId"`
	PublicKey         string   `json:"publicKey"`
	Roles             []string `json:"roles"`
	Scopes            []string `json:"scopes"`
	ClientID          string   `json:"clientId,omitempty"`
	ClientMode        string   `json:"clientMode,omitempty"`
	DisplayName       string   `json:"displayName,omitempty"`
	Platform          string   `json:"platform,omitempty"`
	DeviceFamily      string   `json:"deviceFamily,omitempty"`
	CreatedAtMs       int64    `json:"createdAtMs"`
	ApprovedAtMs      int64    `json:"approvedAtMs"`
	LastConnectedAtMs int64    `json:"lastConnectedAtMs,omitempty"`
}

// pendingPairing is a device waiting for an operator's approval.
type pendingPairing struct {
	RequestID       string   `json:"requestId"`
	DeviceID        string   `json:"deviceId"`
	PublicKey       string   `json:"publicKey"`
	Role            string   `json:"role"`
	Scopes          []string `json:"scopes"`
	ClientID        string   `json:"clientId,omitempty"`
	ClientMode      string   `json:"clientMode,omitempty"`
	DisplayName     string   `json:"displayName,omitempty"`
	Platform        string   `json:"platform,omitempty"`
	RemoteIP        string   `json:"remoteIp,omitempty"`
	Reason          string   `json:"reason"`
	TS              int64    `json:"ts"`
	ApprovedRoles   []string `json:"approvedRoles,omitempty"`
	ApprovedScopes  []string `json:"approvedScopes,omitempty"`
	RequestedScopes []string `json:"-"`
}

// pairingStore keeps device pairings in memory and, with a state dir, in
// <state>/devices/paired.json (written atomically).
type pairingStore struct {
	mu      sync.Mutex
	path    string
	paired  map[string]*pairedDevice
	pending map[string]*pendingPairing // by requestId
}

func newPairingStore(stateDir string) *pairingStore {
	p := &pairingStore{paired: map[string]*pairedDevice{}, pending: map[string]*pendingPairing{}}
	if stateDir != "" {
		p.path = filepath.Join(stateDir, "devices", "paired.json")
	}
	return p
}

func (p *pairingStore) load() error {
	if p.path == "" {
		return nil
	}
	b, err := os.ReadFile(p.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", p.path, err)
	}
	m := map[string]*pairedDevice{}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("parse %s: %w", p.path, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, d := range m {
		if d != nil {
			d.DeviceID = id
			p.paired[id] = d
		}
	}
	return nil
}

// saveLocked writes paired.json through a temp file and rename, so a crash
// never leaves a torn file.
func (p *pairingStore) saveLocked() error {
	if p.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(p.paired, "", "  ")
	if err != nil {
		return fmt.Errorf("encode pairings: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return fmt.Errorf("pairing dir: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.path), ".paired-*.json")
	if err != nil {
		return fmt.Errorf("write pairings: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write pairings: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write pairings: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write pairings: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("write pairings: %w", err)
	}
	if err := os.Rename(tmp.Name(), p.path); err != nil {
		return fmt.Errorf("write pairings: %w", err)
	}
	return nil
}

// pairingDecision is what admit decided for a device.
type pairingDecision struct {
	ok       bool
	pending  *pendingPairing
	message  string
	reason   string
	autoNote string
}

// admit checks a verified device against its pairing. Loopback devices are
// approved silently (new device, role or scope upgrade); remote ones get a
// pending request and must be approved.
func (p *pairingStore) admit(devID, pubKey, role string, scopes []string, client protocol.ClientInfo, ip string, local bool, now int64) (pairingDecision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.paired[devID]
	reason := ""
	switch {
	case d == nil:
		reason = "not-paired"
	case !slices.Contains(d.Roles, role):
		reason = "role-upgrade"
	default:
		for _, sc := range scopes {
			if !protocol.ScopeSatisfied(d.Scopes, sc) {
				reason = "scope-upgrade"
				break
			}
		}
	}
	if reason == "" {
		d.LastConnectedAtMs = now
		return pairingDecision{ok: true}, nil
	}
	if local {
		if d == nil {
			d = &pairedDevice{DeviceID: devID, PublicKey: pubKey, CreatedAtMs: now}
			p.paired[devID] = d
		}
		if !slices.Contains(d.Roles, role) {
			d.Roles = append(d.Roles, role)
		}
		for _, sc := range scopes {
			if !slices.Contains(d.Scopes, sc) {
				d.Scopes = append(d.Scopes, sc)
			}
		}
		if d.Scopes == nil {
			d.Scopes = []string{}
		}
		d.ClientID, d.ClientMode, d.DisplayName = client.ID, client.Mode, client.DisplayName
		d.Platform, d.DeviceFamily = client.Platform, client.DeviceFamily
		d.ApprovedAtMs, d.LastConnectedAtMs = now, now
		return pairingDecision{ok: true, autoNote: reason}, p.saveLocked()
	}
	for _, pr := range p.pending {
		if pr.DeviceID == devID && pr.Role == role && slices.Equal(pr.Scopes, scopes) {
			return pairingDecision{pending: pr, reason: reason, message: pairingMessage(reason)}, nil
		}
	}
	pr := &pendingPairing{
		RequestID: uuid.NewString(), DeviceID: devID, PublicKey: pubKey, Role: role, Scopes: append([]string{}, scopes...),
		ClientID: client.ID, ClientMode: client.Mode, DisplayName: client.DisplayName, Platform: client.Platform,
		RemoteIP: ip, Reason: reason, TS: now,
	}
	if d != nil {
		pr.ApprovedRoles, pr.ApprovedScopes = d.Roles, d.Scopes
	}
	p.pending[pr.RequestID] = pr
	return pairingDecision{pending: pr, reason: reason, message: pairingMessage(reason)}, nil
}

func pairingMessage(reason string) string {
	switch reason {
	case "role-upgrade":
		return "role upgrade pending approval"
	case "scope-upgrade":
		return "scope upgrade pending approval"
	case "metadata-upgrade":
		return "device metadata change pending approval"
	}
	return "device pairing required"
}

// pairingError is the NOT_PAIRED connect rejection for a pending request.
func pairingError(dec pairingDecision) *protocol.ErrorShape {
	pr := dec.pending
	details := map[string]any{
		"code":                protocol.DetailPairingRequired,
		"reason":              dec.reason,
		"requestId":           pr.RequestID,
		"deviceId":            pr.DeviceID,
		"requestedRole":       pr.Role,
		"requestedScopes":     pr.Scopes,
		"remediationHint":     "approve this device on the gateway host (openclaw devices approve " + pr.RequestID + ")",
		"recommendedNextStep": "wait_then_retry",
		"pauseReconnect":      false,
	}
	if pr.ApprovedRoles != nil {
		details["approvedRoles"] = pr.ApprovedRoles
		details["approvedScopes"] = pr.ApprovedScopes
	}
	return protocol.NewError(protocol.ErrNotPaired, dec.message, details)
}
