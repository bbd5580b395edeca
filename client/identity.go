package client

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/protocol"
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
	return &Identity{DeviceID: protocol.DeviceIDFromPublicKey(pub), PublicKey: pub, PrivateKey: priv}, nil
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
	// Linked, not renamed, into place: a second creator racing this one
	// must not replace the identity the first already handed out.
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return nil, fmt.Errorf("device identity: %w", err)
	}
	defer f.Abort()
	if _, err := f.Write(append(data, '\n')); err != nil {
		return nil, fmt.Errorf("device identity: %w", err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("device identity: %w", err)
	}
	switch err := os.Link(f.TempName(), path); {
	case err == nil:
		if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("device identity: %w", err)
		}
		return id, nil
	case errors.Is(err, os.ErrExist):
		return loadIdentity(path) // another process won the race
	default: // file systems without hard links
		if err := f.Commit(); err != nil {
			return nil, fmt.Errorf("device identity: %w", err)
		}
		return id, nil
	}
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
	seed, err := protocol.DecodeB64(f.PrivateKey)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("device identity %s: privateKey is not a base64url 32-byte Ed25519 seed", path)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	if f.PublicKey != "" {
		stored, err := protocol.DecodePublicKey(f.PublicKey)
		if err != nil || !stored.Equal(pub) {
			return nil, fmt.Errorf("device identity %s: publicKey does not match privateKey", path)
		}
	}
	return &Identity{DeviceID: protocol.DeviceIDFromPublicKey(pub), PublicKey: pub, PrivateKey: priv}, nil
}
