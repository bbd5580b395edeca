package client

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/protocol"
)

func TestIdentitySignedConnect(t *testing.T) {
	id, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	gw := newFakeGW(t)
	checked := make(chan error, 1)
	gw.onConnect = func(s *fakeSess, req *protocol.Request, ch map[string]any) (any, *protocol.ErrorShape, int, string) {
		checked <- verifyConnect(req, ch)
		return defaultHello(), nil, 0, ""
	}
	dial(t, gw, Options{
		Identity: id, Token: "tok", ClientID: "node-host", ClientMode: "node", Role: "node",
		Platform: "Linux", DeviceFamily: "Linux", Caps: []string{"system"}, Commands: []string{"system.run"},
		PathEnv: "/usr/bin", DisplayName: "box", InstanceID: "node-1",
	})
	if err := <-checked; err != nil {
		t.Fatal(err)
	}
}

// verifyConnect checks the device proof the way the gateway does, building
// the v3 payload by hand.
func verifyConnect(req *protocol.Request, ch map[string]any) error {
	var p struct {
		Client                 struct{ ID, Mode, Platform, DeviceFamily, InstanceID, DisplayName string }
		Caps, Commands, Scopes []string
		PathEnv, Role          string
		Auth                   struct{ Token string }
		Device                 *struct {
			ID, PublicKey, Signature, Nonce string
			SignedAt                        int64
		}
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return err
	}
	d := p.Device
	if d == nil {
		return fmt.Errorf("no device in %s", req.Params)
	}
	pub, err := base64.RawURLEncoding.DecodeString(d.PublicKey)
	if err != nil || len(pub) != 32 {
		return fmt.Errorf("publicKey %q is not base64url raw 32 bytes", d.PublicKey)
	}
	sum := sha256.Sum256(pub)
	if d.ID != hex.EncodeToString(sum[:]) {
		return fmt.Errorf("device id %s != sha256(pub)", d.ID)
	}
	if d.Nonce != ch["nonce"] || float64(d.SignedAt) != ch["ts"] {
		return fmt.Errorf("nonce/signedAt %s/%d != challenge %v", d.Nonce, d.SignedAt, ch)
	}
	payload := strings.Join([]string{"v3", d.ID, p.Client.ID, p.Client.Mode, p.Role, strings.Join(p.Scopes, ","),
		fmt.Sprint(d.SignedAt), p.Auth.Token, d.Nonce, strings.ToLower(p.Client.Platform), strings.ToLower(p.Client.DeviceFamily)}, "|")
	sig, err := base64.RawURLEncoding.DecodeString(d.Signature)
	if err != nil || !ed25519.Verify(pub, []byte(payload), sig) {
		return fmt.Errorf("signature does not verify over %q", payload)
	}
	if p.Role != "node" || p.Scopes == nil || len(p.Scopes) != 0 || p.PathEnv != "/usr/bin" ||
		strings.Join(p.Commands, ",") != "system.run" || strings.Join(p.Caps, ",") != "system" ||
		p.Client.InstanceID != "node-1" || p.Client.DisplayName != "box" {
		return fmt.Errorf("node connect params %s", req.Params)
	}
	return nil
}

func TestLoadOrCreateIdentity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "identity", "device.json")
	var wg sync.WaitGroup
	ids := make([]*Identity, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := LoadOrCreateIdentity(path)
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id == nil || id.DeviceID != ids[0].DeviceID {
			t.Fatal("concurrent creators got different identities")
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v %v", st.Mode(), err)
	}
	var f map[string]any
	data, _ := os.ReadFile(path)
	json.Unmarshal(data, &f)
	if f["deviceId"] != ids[0].DeviceID || f["publicKey"] != ids[0].PublicKeyString() ||
		f["privateKey"] != base64.RawURLEncoding.EncodeToString(ids[0].PrivateKey.Seed()) {
		t.Errorf("file %s", data)
	}
	again, err := LoadOrCreateIdentity(path)
	if err != nil || !again.PrivateKey.Equal(ids[0].PrivateKey) || again.DeviceID != ids[0].DeviceID {
		t.Fatalf("reload: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}

	os.WriteFile(path, []byte(`{"privateKey":"short"}`), 0o600)
	if _, err := LoadOrCreateIdentity(path); err == nil {
		t.Error("corrupt identity accepted")
	}
	other, _ := NewIdentity()
	f["publicKey"] = other.PublicKeyString()
	data, _ = json.Marshal(f)
	os.WriteFile(path, data, 0o600)
	if _, err := LoadOrCreateIdentity(path); err == nil {
		t.Error("mismatched key pair accepted")
	}
}

func TestDialRejectsIncompleteIdentity(t *testing.T) {
	_, err := Dial(context.Background(), Options{URL: "ws://127.0.0.1:1", Identity: &Identity{}})
	if err == nil {
		t.Fatal("incomplete identity accepted")
	}
}
