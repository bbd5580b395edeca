package gateway

import (
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/store"
)

// pairedView is a paired device as device.pair.list shows it: the record,
// whether it is connected now, and its tokens without their hashes.
type pairedView struct {
	store.PairedDevice
	Connected bool           `json:"connected"`
	Tokens    []tokenSummary `json:"tokens,omitempty"`
}

// tokenSummary is a device token's metadata (never the token or its hash),
// with the original's field names.
type tokenSummary struct {
	Role        string   `json:"role"`
	Scopes      []string `json:"scopes"`
	CreatedAtMs int64    `json:"createdAtMs"`
	RotatedAtMs int64    `json:"rotatedAtMs,omitempty"`
	RevokedAtMs int64    `json:"revokedAtMs,omitempty"`
}

// pairingListView is device.pair.list's result.
type pairingListView struct {
	Pending []*pendingPairing `json:"pending"`
	Paired  []pairedView      `json:"paired"`
}

// listDevices is device.pair.list for this caller: a device caller without
// operator.admin sees only its own device and requests, as the original.
func (s *Server) listDevices(dc deviceCaller, now int64) pairingListView {
	l := s.pairing.list(now)
	connected := map[string]bool{}
	for _, c := range s.readyConns() {
		if c.sess != nil && c.sess.deviceID != "" {
			connected[c.sess.deviceID] = true
		}
	}
	own := func(id string) bool { return dc.deviceID == "" || dc.admin || strings.TrimSpace(id) == dc.deviceID }
	out := pairingListView{Pending: []*pendingPairing{}, Paired: []pairedView{}}
	for _, pr := range l.Pending {
		if own(pr.DeviceID) {
			out.Pending = append(out.Pending, pr)
		}
	}
	for _, d := range l.Paired {
		if !own(d.DeviceID) {
			continue
		}
		v := pairedView{PairedDevice: *d, Connected: connected[d.DeviceID]}
		for _, t := range d.Tokens {
			v.Tokens = append(v.Tokens, tokenSummary{Role: t.Role, Scopes: nonNil(t.Scopes),
				CreatedAtMs: t.IssuedAtMs, RotatedAtMs: t.RotatedAtMs, RevokedAtMs: t.RevokedAtMs})
		}
		sort.Slice(v.Tokens, func(i, j int) bool { return v.Tokens[i].Role < v.Tokens[j].Role })
		out.Paired = append(out.Paired, v)
	}
	return out
}

// rename sets the device's operator label. denyNonOperator (a device
// caller without admin) refuses a device that holds a non-operator role.
func (p *pairingStore) rename(devID, label string, denyNonOperator bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.paired[devID]
	if d != nil && denyNonOperator && hasNonOperatorRole(d) {
		return errRenameDenied
	}
	if d == nil {
		return errUnknownDevice
	}
	prev := d.OperatorLabel
	d.OperatorLabel = label
	if err := p.saveLocked(); err != nil {
		d.OperatorLabel = prev
		return err
	}
	return nil
}
