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

// A real node-host connect captured from openclaw@2026.9.6
// (spec/captures/node-host-to-gateway.frames.log).
const (
	capDeviceID  = "eeb824558b1d72c923aa78dcfb47e725518df417cafafbeb72786bbf313a792a"
	capPublicKey = "gdBY52wNIsBJo8Tur2Jj9p2uv0ug7JvGEgG9CGJlwJM"
	capSignature = "TY5aFtmbiHV73qVYbq2zL2ka949t5AoXLFqhhAVfptqsW6j5Awt9UtR4xM2Ag0SZQ6JHfMO3UORu_pFikjwXAQ"
)

func TestDevicePayloadMatchesCapture(t *testing.T) {
	p := DevicePayloadParams{
		DeviceID: capDeviceID, ClientID: "node-host", ClientMode: "node", Role: "node", Scopes: []string{},
		SignedAtMs: 1795983827418, Token: "testtoken123", Nonce: "46483361-58da-4c53-85c9-4aeea714f2ba",
		Platform: "linux", DeviceFamily: " Linux ",
	}
	want := "v3|" + capDeviceID + "|node-host|node|node||1795983827418|testtoken123|46483361-58da-4c53-85c9-4aeea714f2ba|linux|linux"
	if got := DevicePayload(3, p); got != want {
		t.Fatalf("v3 payload\n got %s\nwant %s", got, want)
	}
	if got := DevicePayload(2, p); got != "v2"+strings.TrimSuffix(want[2:], "|linux|linux") {
		t.Errorf("v2 payload %s", got)
	}
	if DevicePayload(1, p) != "" {
		t.Error("v1 payload should be empty")
	}
	pub, err := DecodePublicKey(capPublicKey)
	if err != nil {
		t.Fatal(err)
	}
	if DeviceIDFromPublicKey(pub) != capDeviceID {
		t.Error("device id is not sha256(pub)")
	}
	if v, ok := VerifyDeviceSignature(pub, p, capSignature); !ok || v != 3 {
		t.Errorf("captured signature: v%d %v", v, ok)
	}
	p.Nonce = "other"
	if _, ok := VerifyDeviceSignature(pub, p, capSignature); ok {
		t.Error("signature verified against the wrong nonce")
	}
}

func TestDevicePayloadScopesAndV2(t *testing.T) {
	id, _ := NewIdentity()
	p := DevicePayloadParams{DeviceID: id.DeviceID, ClientID: "cli", ClientMode: "cli", Role: "operator",
		Scopes: []string{"operator.read", "operator.write"}, SignedAtMs: 7, Nonce: "n", Platform: "DARWIN", DeviceFamily: "Mac"}
	want := fmt.Sprintf("v3|%s|cli|cli|operator|operator.read,operator.write|7||n|darwin|mac", id.DeviceID)
	if got := DevicePayload(3, p); got != want {
		t.Errorf("got %s", got)
	}
	v2 := id.Sign(DevicePayload(2, p))
	if v, ok := VerifyDeviceSignature(id.PublicKey, p, v2); !ok || v != 2 {
		t.Errorf("v2 signature: v%d %v", v, ok)
	}
}

func TestDecodePublicKeyForms(t *testing.T) {
	id, _ := NewIdentity()
	std := base64.StdEncoding.EncodeToString(id.PublicKey)
	for _, s := range []string{id.PublicKeyString(), std, base64.URLEncoding.EncodeToString(id.PublicKey)} {
		k, err := DecodePublicKey(s)
		if err != nil || !k.Equal(id.PublicKey) {
			t.Errorf("DecodePublicKey(%q) = %v", s, err)
		}
	}
	if _, err := DecodePublicKey("abcd"); err == nil {
		t.Error("short key accepted")
	}
}

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
