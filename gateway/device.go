package gateway

import (
	"crypto/ed25519"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
)

// verifyDevice checks a connect's Ed25519 device proof (§3.5): the key
// decodes, the id is its SHA-256, the nonce is this connection's challenge,
// the signature is fresh (±120 s) and signs the v3 or v2 payload.
func verifyDevice(p *protocol.ConnectParams, role, nonce string, now int64) (ed25519.PublicKey, *protocol.ErrorShape) {
	d := p.Device
	fail := func(code, msg string) (ed25519.PublicKey, *protocol.ErrorShape) {
		return nil, protocol.NewError(protocol.ErrInvalidRequest, msg, map[string]any{"code": code})
	}
	pub, err := protocol.DecodePublicKey(d.PublicKey)
	if err != nil {
		return fail(protocol.DetailDevicePubKeyInvalid, "device public key invalid")
	}
	if protocol.DeviceIDFromPublicKey(pub) != strings.ToLower(strings.TrimSpace(d.ID)) {
		return fail(protocol.DetailDeviceIDMismatch, "device identity mismatch")
	}
	if skew := now - d.SignedAt; skew > protocol.DeviceSignatureSkewMs || skew < -protocol.DeviceSignatureSkewMs {
		return fail(protocol.DetailDeviceSigExpired, "device signature expired")
	}
	if d.Nonce == "" {
		return fail(protocol.DetailDeviceNonceRequired, "device nonce required")
	}
	if d.Nonce != nonce {
		return fail(protocol.DetailDeviceNonceMismatch, "device nonce mismatch")
	}
	f := protocol.DeviceAuthFields{
		DeviceID: protocol.DeviceIDFromPublicKey(pub), ClientID: p.Client.ID, ClientMode: p.Client.Mode,
		Role: role, Scopes: p.Scopes, SignedAtMs: d.SignedAt, Token: p.Auth.SignatureToken(),
		Nonce: d.Nonce, Platform: p.Client.Platform, DeviceFamily: p.Client.DeviceFamily,
	}
	if _, ok := protocol.VerifyDeviceSignature(pub, f, d.Signature); ok {
		return pub, nil
	}
	return fail(protocol.DetailDeviceSigInvalid, "device signature invalid")
}
