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

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
)

// pairedDevice is one approved device identity (§4.4). The record is the
// store's, so what the gateway holds and what it persists are one type.
type pairedDevice = store.PairedDevice

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

// Pending pairing requests are bounded: they expire after the original's
// DEVICE_PAIRING_PENDING_TTL_MS (5 min), one remote address holds at most
// maxPendingPerIP and the gateway at most maxPending (the oldest go first),
// so a flood of fresh device keys cannot grow the gateway's memory.
const (
	pendingPairingTTL = 5 * 60 * 1000 // ms
	maxPendingPerIP   = 8
	maxPending        = 64
)

// pairedStore persists approved devices between restarts. The JSON file
// below is today's implementation; a database table is a drop-in.
type pairedStore interface {
	Load() (map[string]*pairedDevice, error)
	Save(map[string]*pairedDevice) error
}

// pairingStore keeps device pairings: approved devices (persisted through a
// pairedStore) and pending requests (in memory, bounded, expiring).
type pairingStore struct {
	mu      sync.Mutex
	persist pairedStore
	paired  map[string]*pairedDevice
	pending map[string]*pendingPairing // by requestId
}

func newPairingStore(stateDir string) *pairingStore {
	p := &pairingStore{paired: map[string]*pairedDevice{}, pending: map[string]*pendingPairing{}}
	if stateDir != "" {
		p.persist = pairedFile{path: filepath.Join(stateDir, "devices", "paired.json")}
	}
	return p
}

func (p *pairingStore) load() error {
	if p.persist == nil {
		return nil
	}
	m, err := p.persist.Load()
	if err != nil {
		return err
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

func (p *pairingStore) saveLocked() error {
	if p.persist == nil {
		return nil
	}
	return p.persist.Save(p.paired)
}

// pairedFile is <state>/devices/paired.json.
type pairedFile struct{ path string }

func (f pairedFile) Load() (map[string]*pairedDevice, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.path, err)
	}
	m := map[string]*pairedDevice{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", f.path, err)
	}
	return m, nil
}

// Save writes paired.json atomically (atomicfile: temp file, fsync,
// rename, fsync of the dir), so a crash never leaves a torn file.
func (f pairedFile) Save(paired map[string]*pairedDevice) error {
	b, err := json.MarshalIndent(paired, "", "  ")
	if err != nil {
		return fmt.Errorf("encode pairings: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("pairing dir: %w", err)
	}
	if err := atomicfile.WriteFile(f.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write pairings: %w", err)
	}
	return nil
}

// pruneLocked drops expired requests, then the oldest ones beyond the
// per-address and global caps (room is left for one more when adding).
func (p *pairingStore) pruneLocked(now int64, ip string, adding bool) {
	for id, pr := range p.pending {
		if now-pr.TS > pendingPairingTTL {
			delete(p.pending, id)
		}
	}
	room := 0
	if adding {
		room = 1
	}
	for {
		var fromIP []*pendingPairing
		for _, pr := range p.pending {
			if pr.RemoteIP == ip {
				fromIP = append(fromIP, pr)
			}
		}
		switch {
		case len(fromIP)+room > maxPendingPerIP:
			delete(p.pending, oldest(fromIP).RequestID)
		case len(p.pending)+room > maxPending:
			all := make([]*pendingPairing, 0, len(p.pending))
			for _, pr := range p.pending {
				all = append(all, pr)
			}
			delete(p.pending, oldest(all).RequestID)
		default:
			return
		}
	}
}

func oldest(list []*pendingPairing) *pendingPairing {
	o := list[0]
	for _, pr := range list[1:] {
		if pr.TS < o.TS || (pr.TS == o.TS && pr.RequestID < o.RequestID) {
			o = pr
		}
	}
	return o
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
	p.pruneLocked(now, ip, false)
	for _, pr := range p.pending {
		if pr.DeviceID == devID && pr.Role == role && slices.Equal(pr.Scopes, scopes) {
			return pairingDecision{pending: pr, reason: reason, message: pairingMessage(reason)}, nil
		}
	}
	p.pruneLocked(now, ip, true)
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
