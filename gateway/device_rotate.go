package gateway

import (
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/store"
)

// Token rotation and revocation (device.token.rotate / revoke), as the
// original's: a new token replaces the role's old one at once; a revoked
// one stays listed with revokedAtMs until the device is given a new one.
// Scopes may only narrow: to what the device was approved for, and for an
// operator token to what the caller holds itself, so a pairing-only
// operator cannot mint an admin token.

// Why a rotation or revocation was refused. The wire says only "device
// token rotation denied" (or "revocation"), as the original; the reason
// goes to the log.
var (
	errTokenUnknown     = errors.New("unknown-device-or-role")
	errTokenOutsideBase = errors.New("scope-outside-approved-baseline")
	errTokenCallerScope = errors.New("caller-missing-scope")
)

// tokenScopeError names the scope a refusal is about.
type tokenScopeError struct {
	err   error
	scope string
}

func (e *tokenScopeError) Error() string { return e.err.Error() + " scope=" + e.scope }
func (e *tokenScopeError) Unwrap() error { return e.err }

// rotatedToken is a rotation's outcome.
type rotatedToken struct {
	token string // "" when withheld
	entry store.DeviceToken
}

// rotateToken issues a new token for the device's role, replacing the old
// one. scopes nil keeps the current token's (a bound one's) or the
// device's approved scopes. callerScopes, for an operator token, caps
// them (nil: no cap). withhold records that nobody receives the token.
func (p *pairingStore) rotateToken(devID, role string, scopes, callerScopes []string, withhold bool, now int64) (rotatedToken, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.paired[devID]
	if d == nil || !slices.Contains(d.Roles, role) {
		return rotatedToken{}, errTokenUnknown
	}
	i := slices.IndexFunc(d.Tokens, func(t store.DeviceToken) bool { return t.Role == role })
	if scopes == nil {
		switch {
		case i >= 0 && d.Tokens[i].Bound:
			scopes = d.Tokens[i].Scopes
		case role == protocol.RoleOperator:
			scopes = d.Scopes
		}
	}
	scopes = normalizeScopes(scopes)
	if err := scopesWithin(role, scopes, d.Scopes, errTokenOutsideBase); err != nil {
		return rotatedToken{}, err
	}
	if callerScopes != nil {
		if err := scopesWithin(role, scopes, callerScopes, errTokenCallerScope); err != nil {
			return rotatedToken{}, err
		}
	}
	entry := store.DeviceToken{Role: role, Scopes: scopes, IssuedAtMs: now, RotatedAtMs: now, Bound: true, Withheld: withhold}
	if i >= 0 {
		entry.IssuedAtMs = d.Tokens[i].IssuedAtMs
	}
	tok, err := p.putTokenLocked(d, i, entry)
	if err != nil {
		return rotatedToken{}, err
	}
	if withhold {
		tok = ""
	}
	return rotatedToken{token: tok, entry: entry}, nil
}

// revokeToken ends the device's token for role. callerScopes, for an
// operator token, must cover the scopes it grants (nil: no check).
func (p *pairingStore) revokeToken(devID, role string, callerScopes []string, now int64) (store.DeviceToken, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.paired[devID]
	if d == nil || !slices.Contains(d.Roles, role) {
		return store.DeviceToken{}, errTokenUnknown
	}
	i := slices.IndexFunc(d.Tokens, func(t store.DeviceToken) bool { return t.Role == role })
	if i < 0 {
		return store.DeviceToken{}, errTokenUnknown
	}
	if callerScopes != nil {
		if err := scopesWithin(role, normalizeScopes(grantScopes(d, d.Tokens[i])), callerScopes, errTokenCallerScope); err != nil {
			return store.DeviceToken{}, err
		}
	}
	t := d.Tokens[i]
	t.RevokedAtMs = now
	if err := p.setTokenLocked(d, i, t); err != nil {
		return store.DeviceToken{}, err
	}
	return t, nil
}

// scopesWithin checks that allowed covers every requested scope of the
// role: operator scopes by the operator implication rules, another role's
// only when named exactly and prefixed with the role ("node.").
func scopesWithin(role string, requested, allowed []string, why error) error {
	for _, sc := range requested {
		ok := false
		if role == protocol.RoleOperator {
			ok = strings.HasPrefix(sc, "operator.") && protocol.ScopeSatisfied(allowed, sc)
		} else {
			ok = strings.HasPrefix(sc, role+".") && slices.Contains(allowed, sc)
		}
		if !ok {
			return &tokenScopeError{err: why, scope: sc}
		}
	}
	return nil
}

// normalizeScopes trims, drops empties and duplicates, adds the scopes
// admin and write imply (read), and sorts: the form the original stores.
func normalizeScopes(in []string) []string {
	set := map[string]bool{}
	for _, sc := range in {
		if sc = strings.TrimSpace(sc); sc != "" {
			set[sc] = true
		}
	}
	if set[protocol.ScopeAdmin] {
		set[protocol.ScopeRead], set[protocol.ScopeWrite] = true, true
	} else if set[protocol.ScopeWrite] {
		set[protocol.ScopeRead] = true
	}
	out := make([]string, 0, len(set))
	for sc := range set {
		out = append(out, sc)
	}
	sort.Strings(out)
	return out
}
