package gateway

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
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
	pub, err := decodePublicKey(d.PublicKey)
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
	sig, err := decodeB64(d.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fail(protocol.DetailDeviceSigInvalid, "device signature invalid")
	}
	f := protocol.DeviceAuthFields{
		DeviceID: protocol.DeviceIDFromPublicKey(pub), ClientID: p.Client.ID, ClientMode: p.Client.Mode,
		Role: role, Scopes: p.Scopes, SignedAtMs: d.SignedAt, Token: p.Auth.SignatureToken(),
		Nonce: d.Nonce, Platform: p.Client.Platform, DeviceFamily: p.Client.DeviceFamily,
	}
	if ed25519.Verify(pub, []byte(protocol.DeviceAuthPayloadV3(f)), sig) ||
		ed25519.Verify(pub, []byte(protocol.DeviceAuthPayloadV2(f)), sig) {
		return pub, nil
	}
	return fail(protocol.DetailDeviceSigInvalid, "device signature invalid")
}

// decodePublicKey accepts base64url (the wire form), standard base64 and
// PEM SPKI, as the reference normalises all three.
func decodePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----BEGIN") {
		blk, _ := pem.Decode([]byte(s))
		if blk == nil {
			return nil, errors.New("bad PEM")
		}
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, err
		}
		pk, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, errors.New("not an Ed25519 key")
		}
		return pk, nil
	}
	raw, err := decodeB64(s)
	if err != nil {
		return nil, err
	}
	if len(raw) != ed25519.PublicKeySize {
		return nil, errors.New("public key must be 32 bytes")
	}
	return ed25519.PublicKey(raw), nil
}

func decodeB64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}
