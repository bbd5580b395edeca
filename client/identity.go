package client

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Identity is an Ed25519 device identity (§3.5). DeviceID is the lowercase
// hex SHA-256 of the raw 32-byte public key.
type Identity struct {
	DeviceID   string
	PublicKey  ed25519.PublicKey
	PrivateKey ed25519.PrivateKey
}

// NewIdentity generates a fresh device identity.
func NewIdentity() (*Identity, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Identity{DeviceID: DeviceIDFromPublicKey(pub), PublicKey: pub, PrivateKey: priv}, nil
}

// DeviceIDFromPublicKey is the device id of a public key: hex SHA-256 of the
// raw 32 bytes.
func DeviceIDFromPublicKey(pub ed25519.PublicKey) string {
	h := sha256.Sum256(pub)
	return hex.EncodeToString(h[:])
}

// PublicKeyString is the public key as sent in connect.params.device.publicKey:
// base64url without padding of the raw 32 bytes.
func (id *Identity) PublicKeyString() string {
	return base64.RawURLEncoding.EncodeToString(id.PublicKey)
}

// Sign signs payload (UTF-8) and returns the base64url (no padding) signature.
func (id *Identity) Sign(payload string) string {
	return base64.RawURLEncoding.EncodeToString(ed25519.Sign(id.PrivateKey, []byte(payload)))
}

// identityFile is the on-disk form: keys are base64url without padding; the
// private key is the 32-byte seed.
type identityFile struct {
	Version     int    `json:"version"`
	DeviceID    string `json:"deviceId"`
	PublicKey   string `json:"publicKey"`
	PrivateKey  string `json:"privateKey"`
	CreatedAtMs int64  `json:"createdAtMs,omitempty"`
}

// LoadOrCreateIdentity reads the identity stored at path, or creates one
// there (directory 0700, file 0600, written to a temp file and linked into
// place so concurrent creators agree on one identity).
func LoadOrCreateIdentity(path string) (*Identity, error) {
	id, err := loadIdentity(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return id, err
	}
	id, err = NewIdentity()
	if err != nil {
		return nil, err
	}
	data, _ := json.MarshalIndent(identityFile{
		Version:     1,
		DeviceID:    id.DeviceID,
		PublicKey:   id.PublicKeyString(),
		PrivateKey:  base64.RawURLEncoding.EncodeToString(id.PrivateKey.Seed()),
		CreatedAtMs: time.Now().UnixMilli(),
	}, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("device identity: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".device-identity-*")
	if err != nil {
		return nil, fmt.Errorf("device identity: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := writeSync(tmp, append(data, '\n')); err != nil {
		return nil, fmt.Errorf("device identity: %w", err)
	}
	switch err := os.Link(tmp.Name(), path); {
	case err == nil:
		return id, nil
	case errors.Is(err, os.ErrExist):
		return loadIdentity(path) // another process won the race
	default: // file systems without hard links
		if err := os.Rename(tmp.Name(), path); err != nil {
			return nil, fmt.Errorf("device identity: %w", err)
		}
		return id, nil
	}
}

func writeSync(f *os.File, data []byte) error {
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func loadIdentity(path string) (*Identity, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f identityFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("device identity %s: %w", path, err)
	}
	seed, err := decodeB64(f.PrivateKey)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("device identity %s: privateKey is not a base64url 32-byte Ed25519 seed", path)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	if f.PublicKey != "" {
		stored, err := DecodePublicKey(f.PublicKey)
		if err != nil || !stored.Equal(pub) {
			return nil, fmt.Errorf("device identity %s: publicKey does not match privateKey", path)
		}
	}
	return &Identity{DeviceID: DeviceIDFromPublicKey(pub), PublicKey: pub, PrivateKey: priv}, nil
}

// DecodePublicKey accepts the encodings the gateway normalizes: base64url
// (padded or not) or standard base64 of the raw 32 bytes, or a PEM SPKI
// "PUBLIC KEY" block.
func DecodePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----BEGIN") {
		block, _ := pem.Decode([]byte(s))
		if block == nil {
			return nil, errors.New("invalid PEM public key")
		}
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, err
		}
		pub, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, errors.New("public key is not Ed25519")
		}
		return pub, nil
	}
	b, err := decodeB64(s)
	if err != nil {
		return nil, err
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("public key has %d bytes, want %d", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// decodeB64 decodes base64url or standard base64, with or without padding.
func decodeB64(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	s = strings.NewReplacer("+", "-", "/", "_").Replace(s)
	return base64.RawURLEncoding.DecodeString(s)
}

// DevicePayloadParams are the inputs of the signed device payload (§3.5).
type DevicePayloadParams struct {
	DeviceID   string
	ClientID   string   // connect.params.client.id
	ClientMode string   // connect.params.client.mode
	Role       string   // connect.params.role
	Scopes     []string // connect.params.scopes, in the order sent
	SignedAtMs int64    // device.signedAt (the challenge ts)
	// Token is the first non-empty of auth.token, auth.deviceToken,
	// auth.bootstrapToken ("" when none).
	Token string
	Nonce string // the challenge nonce
	// Platform and DeviceFamily (v3 only) are trimmed and ASCII-lowercased here.
	Platform     string
	DeviceFamily string
}

// DevicePayload builds the exact string that is signed for
// connect.params.device, for version 3:
//
//	v3|deviceId|clientId|clientMode|role|scopes,joined|signedAtMs|token|nonce|platform|deviceFamily
//
// or version 2 (the same without the last two fields). Any other version
// returns "".
func DevicePayload(version int, p DevicePayloadParams) string {
	if version != 2 && version != 3 {
		return ""
	}
	parts := []string{
		"v" + strconv.Itoa(version), p.DeviceID, p.ClientID, p.ClientMode, p.Role,
		strings.Join(p.Scopes, ","), strconv.FormatInt(p.SignedAtMs, 10), p.Token, p.Nonce,
	}
	if version == 3 {
		parts = append(parts, asciiLower(strings.TrimSpace(p.Platform)), asciiLower(strings.TrimSpace(p.DeviceFamily)))
	}
	return strings.Join(parts, "|")
}

// VerifyDeviceSignature checks a base64url signature against the v3 payload,
// then the v2 payload, as the gateway does, and returns the version that
// verified (0 and false when neither does).
func VerifyDeviceSignature(pub ed25519.PublicKey, p DevicePayloadParams, signature string) (int, bool) {
	sig, err := decodeB64(signature)
	if err != nil || len(sig) != ed25519.SignatureSize || len(pub) != ed25519.PublicKeySize {
		return 0, false
	}
	for _, v := range []int{3, 2} {
		if ed25519.Verify(pub, []byte(DevicePayload(v, p)), sig) {
			return v, true
		}
	}
	return 0, false
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
