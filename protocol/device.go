package protocol

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Device identity (§3.5): one implementation for the client that signs and
// the gateway that verifies, so the two can never drift apart.

// DeviceIDFromPublicKey is the device id for a raw 32-byte Ed25519 public
// key: lowercase hex SHA-256 (§3.5).
func DeviceIDFromPublicKey(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// DeviceAuthFields are the inputs of the signed device-auth payload.
type DeviceAuthFields struct {
	DeviceID     string
	ClientID     string
	ClientMode   string
	Role         string
	Scopes       []string
	SignedAtMs   int64
	Token        string
	Nonce        string
	Platform     string
	DeviceFamily string
}

// DeviceAuthPayloadV3 is the string a device signs (v3, tried first).
func DeviceAuthPayloadV3(f DeviceAuthFields) string {
	return strings.Join([]string{"v3", f.DeviceID, f.ClientID, f.ClientMode, f.Role,
		strings.Join(f.Scopes, ","), strconv.FormatInt(f.SignedAtMs, 10), f.Token, f.Nonce,
		asciiLower(strings.TrimSpace(f.Platform)), asciiLower(strings.TrimSpace(f.DeviceFamily))}, "|")
}

// DeviceAuthPayloadV2 is the older signed string without platform fields.
func DeviceAuthPayloadV2(f DeviceAuthFields) string {
	return strings.Join([]string{"v2", f.DeviceID, f.ClientID, f.ClientMode, f.Role,
		strings.Join(f.Scopes, ","), strconv.FormatInt(f.SignedAtMs, 10), f.Token, f.Nonce}, "|")
}

// asciiLower lower-cases A-Z only, as the reference does, so non-ASCII
// platform names sign identically on both sides.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// DecodePublicKey accepts the encodings the reference normalises: base64url
// (the wire form, padded or not), standard base64, or a PEM SPKI block.
func DecodePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----BEGIN") {
		blk, _ := pem.Decode([]byte(s))
		if blk == nil {
			return nil, errors.New("invalid PEM public key")
		}
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, err
		}
		pub, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, errors.New("public key is not Ed25519")
		}
		return pub, nil
	}
	raw, err := DecodeB64(s)
	if err != nil {
		return nil, err
	}
	if len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("public key has %d bytes, want %d", len(raw), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

// DecodeB64 decodes base64url or standard base64, with or without padding.
func DecodeB64(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	s = strings.NewReplacer("+", "-", "/", "_").Replace(s)
	return base64.RawURLEncoding.DecodeString(s)
}

// VerifyDeviceSignature checks a base64url signature against the v3
// payload, then v2, as the gateway does; it returns the version that
// verified (0 and false when neither does).
func VerifyDeviceSignature(pub ed25519.PublicKey, f DeviceAuthFields, signature string) (int, bool) {
	sig, err := DecodeB64(signature)
	if err != nil || len(sig) != ed25519.SignatureSize || len(pub) != ed25519.PublicKeySize {
		return 0, false
	}
	if ed25519.Verify(pub, []byte(DeviceAuthPayloadV3(f)), sig) {
		return 3, true
	}
	if ed25519.Verify(pub, []byte(DeviceAuthPayloadV2(f)), sig) {
		return 2, true
	}
	return 0, false
}
