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
// removing the device revokes its tokens. A token grants exactly the
// device's current pairing: its role must still be approved, and its
// scopes are the device's approved scopes at the time of use (an approved
// scope upgrade applies, a removed scope is gone).

// deviceTokenGrant is what a valid device token stands for.
type deviceTokenGrant struct {
	deviceID string
	role     string
	scopes   []string
}

// hashToken is the stored form of a token.
func hashToken(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }

// issueToken returns a new token for the device and role when it has none
// yet ("" when it has one, or is not paired for role). It records the
// device's approved scopes at issue (none for a node; informational, see
// checkToken) and is saved before it is returned.
func (p *pairingStore) issueToken(devID, role string, now int64) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.paired[devID]
	if d == nil || !slices.Contains(d.Roles, role) {
		return "", nil
	}
	for _, t := range d.Tokens {
		if t.Role == role {
			return "", nil
		}
	}
	var scopes []string
	if role == protocol.RoleOperator {
		scopes = slices.Clone(d.Scopes)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(raw[:])
	h := hashToken(tok)
	prev := d.Tokens
	d.Tokens = append(slices.Clone(d.Tokens), store.DeviceToken{
		Role: role, Hash: hex.EncodeToString(h[:]), Scopes: nonNil(scopes), IssuedAtMs: now,
	})
	if err := p.saveLocked(); err != nil {
		d.Tokens = prev
		return "", err
	}
	return tok, nil
}

// checkToken finds the paired device a token was issued to. Every stored
// hash is compared in constant time; a token whose device is gone, whose
// role is no longer approved or whose hash does not decode is refused.
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
			if subtle.ConstantTimeCompare(h[:], want) == 1 && slices.Contains(d.Roles, t.Role) {
				var scopes []string
				if t.Role == protocol.RoleOperator {
					scopes = slices.Clone(d.Scopes)
				}
				found, ok = deviceTokenGrant{deviceID: id, role: t.Role, scopes: nonNil(scopes)}, true
			}
		}
	}
	return found, ok
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
