package gateway

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"slices"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
)

// Device tokens (§4.4): once a paired device connects, it gets a bearer
// token for its role in hello-ok.auth.deviceToken; it may then connect
// with only that token (plus its signed device proof), and fetch media
// with it. Only the token's SHA-256 is kept, with the device's record, so
// removing the device revokes its tokens. A token grants at most the
// device's current pairing: its role must still be approved, and its
// scopes are the device's approved scopes at the time of use (an approved
// scope upgrade applies, a removed scope is gone), narrowed to the scopes
// a rotation named (device_rotate.go). device.token.revoke ends a token.

// deviceTokenGrant is what a valid device token stands for.
type deviceTokenGrant struct {
	deviceID string
	role     string
	scopes   []string
}

// hashToken is the stored form of a token.
func hashToken(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }

// issueToken returns a new token for the device and role when it has no
// usable one ("" when it has one, or is not paired for role). A revoked
// token, or one a cross-device rotation withheld, is replaced: the device
// has just proved its key, so it is given a fresh token (the original
// hands over its current one here; we keep only hashes). A new token
// records the device's approved scopes (none for a node; informational,
// see checkToken); a withheld rotation's scopes carry over. It is saved
// before it is returned.
func (p *pairingStore) issueToken(devID, role string, now int64) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.paired[devID]
	if d == nil || !slices.Contains(d.Roles, role) {
		return "", nil
	}
	i := slices.IndexFunc(d.Tokens, func(t store.DeviceToken) bool { return t.Role == role })
	next := store.DeviceToken{Role: role, IssuedAtMs: now}
	if i >= 0 {
		old := d.Tokens[i]
		if old.RevokedAtMs == 0 && !old.Withheld {
			return "", nil
		}
		next.IssuedAtMs, next.RotatedAtMs = old.IssuedAtMs, now
		if old.Withheld {
			next.Scopes, next.Bound = slices.Clone(old.Scopes), old.Bound
		}
	}
	if next.Scopes == nil && role == protocol.RoleOperator {
		next.Scopes = slices.Clone(d.Scopes)
	}
	next.Scopes = nonNil(next.Scopes)
	tok, err := p.putTokenLocked(d, i, next)
	if err != nil {
		return "", err
	}
	return tok, nil
}

// putTokenLocked makes a new random token, stores its hash in entry at
// index i of the device's tokens (appended when i < 0) and saves; the
// device is left unchanged when the save fails.
func (p *pairingStore) putTokenLocked(d *pairedDevice, i int, entry store.DeviceToken) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(raw[:])
	h := hashToken(tok)
	entry.Hash = hex.EncodeToString(h[:])
	if err := p.setTokenLocked(d, i, entry); err != nil {
		return "", err
	}
	return tok, nil
}

// setTokenLocked puts entry at index i of the device's tokens (appended
// when i < 0) and saves; the device is left unchanged when the save fails.
func (p *pairingStore) setTokenLocked(d *pairedDevice, i int, entry store.DeviceToken) error {
	prev := d.Tokens
	d.Tokens = slices.Clone(d.Tokens)
	if i < 0 {
		d.Tokens = append(d.Tokens, entry)
	} else {
		d.Tokens[i] = entry
	}
	if err := p.saveLocked(); err != nil {
		d.Tokens = prev
		return err
	}
	return nil
}

// checkToken finds the paired device a token was issued to. Every stored
// hash is compared in constant time; a token whose device is gone, whose
// role is no longer approved, that was revoked or whose hash does not
// decode is refused. An operator token grants the device's approved scopes
// at the time of use, or, when a rotation bound it to scopes, those of
// them the approval still covers.
func (p *pairingStore) checkToken(tok string) (deviceTokenGrant, bool) {
	if tok == "" {
		return deviceTokenGrant{}, false
	}
	h := hashToken(tok)
	p.mu.Lock()
	defer p.mu.Unlock()
	var found deviceTokenGrant
	ok := false
	for id, d := range p.paired {
		for _, t := range d.Tokens {
			want, err := hex.DecodeString(t.Hash)
			if err != nil || len(want) != len(h) {
				continue
			}
			if subtle.ConstantTimeCompare(h[:], want) == 1 && t.RevokedAtMs == 0 && slices.Contains(d.Roles, t.Role) {
				found, ok = deviceTokenGrant{deviceID: id, role: t.Role, scopes: grantScopes(d, t)}, true
			}
		}
	}
	return found, ok
}

// grantScopes is what token t of device d grants now (see checkToken).
func grantScopes(d *pairedDevice, t store.DeviceToken) []string {
	if t.Role != protocol.RoleOperator {
		return []string{}
	}
	if !t.Bound {
		return nonNil(slices.Clone(d.Scopes))
	}
	out := []string{}
	for _, sc := range t.Scopes {
		if protocol.ScopeSatisfied(d.Scopes, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// bindDeviceToken checks that a device token (grant, nil when the connect
// used none) belongs to the device that proved its key, for the role it
// asks, and covers every scope it asks; nil when it does or no token was
// used, else the auth failure to answer with.
func bindDeviceToken(g *deviceTokenGrant, deviceID string, p *protocol.ConnectParams) *authResult {
	if g == nil {
		return nil
	}
	fail := &authResult{reason: "device_token_mismatch", provided: "device-token"}
	if g.deviceID != deviceID || g.role != p.Role {
		return fail
	}
	if p.Role == protocol.RoleOperator {
		for _, sc := range p.Scopes {
			if !protocol.ScopeSatisfied(g.scopes, sc) {
				fail.reason = "scope_mismatch"
				return fail
			}
		}
	}
	return nil
}
