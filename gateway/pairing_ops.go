package gateway

import (
	"errors"
	"slices"
	"sort"

	"github.com/openclaw-go/openclaw/protocol"
)

// Errors of the device.pair.* operations, worded as the original's.
var (
	errUnknownRequest = errors.New("unknown requestId")
	errUnknownDevice  = errors.New("unknown deviceId")
	errApprovalDenied = errors.New("device pairing approval denied")
)

// pairingList is device.pair.list's result.
type pairingList struct {
	Pending []*pendingPairing `json:"pending"`
	Paired  []*pairedDevice   `json:"paired"`
}

// list returns the live (unexpired) requests, oldest first, and the paired
// devices by id.
func (p *pairingStore) list(now int64) pairingList {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked(now, "", false)
	out := pairingList{Pending: []*pendingPairing{}, Paired: []*pairedDevice{}}
	for _, pr := range p.pending {
		c := *pr
		out.Pending = append(out.Pending, &c)
	}
	for _, d := range p.paired {
		c := *d
		out.Paired = append(out.Paired, &c)
	}
	sort.Slice(out.Pending, func(i, j int) bool {
		a, b := out.Pending[i], out.Pending[j]
		return a.TS < b.TS || (a.TS == b.TS && a.RequestID < b.RequestID)
	})
	sort.Slice(out.Paired, func(i, j int) bool { return out.Paired[i].DeviceID < out.Paired[j].DeviceID })
	return out
}

// approve turns a pending request into (or adds its role and scopes to) a
// paired device. A caller without operator.admin may approve only
// operator-role requests whose scopes it holds itself: pairing is not a
// way to mint a more powerful device than the approver.
func (p *pairingStore) approve(requestID string, callerScopes []string, now int64) (*pairedDevice, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked(now, "", false)
	pr := p.pending[requestID]
	if pr == nil {
		return nil, errUnknownRequest
	}
	if !protocol.ScopeSatisfied(callerScopes, protocol.ScopeAdmin) {
		if pr.Role != protocol.RoleOperator {
			return nil, errApprovalDenied
		}
		for _, sc := range pr.Scopes {
			if !protocol.ScopeSatisfied(callerScopes, sc) {
				return nil, errApprovalDenied
			}
		}
	}
	d := p.paired[pr.DeviceID]
	if d == nil {
		d = &pairedDevice{DeviceID: pr.DeviceID, PublicKey: pr.PublicKey, CreatedAtMs: now, Scopes: []string{}}
		p.paired[pr.DeviceID] = d
	}
	if !slices.Contains(d.Roles, pr.Role) {
		d.Roles = append(d.Roles, pr.Role)
	}
	for _, sc := range pr.Scopes {
		if !slices.Contains(d.Scopes, sc) {
			d.Scopes = append(d.Scopes, sc)
		}
	}
	d.ClientID, d.ClientMode, d.DisplayName, d.Platform = pr.ClientID, pr.ClientMode, pr.DisplayName, pr.Platform
	d.ApprovedAtMs = now
	delete(p.pending, requestID)
	if err := p.saveLocked(); err != nil {
		return nil, err
	}
	c := *d
	return &c, nil
}

// reject drops a pending request.
func (p *pairingStore) reject(requestID string, now int64) (*pendingPairing, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked(now, "", false)
	pr := p.pending[requestID]
	if pr == nil {
		return nil, errUnknownRequest
	}
	delete(p.pending, requestID)
	return pr, nil
}

// remove forgets a paired device and its pending requests.
func (p *pairingStore) remove(deviceID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paired[deviceID] == nil {
		return errUnknownDevice
	}
	delete(p.paired, deviceID)
	for id, pr := range p.pending {
		if pr.DeviceID == deviceID {
			delete(p.pending, id)
		}
	}
	return p.saveLocked()
}
