package protocol

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// A real node-host connect captured from openclaw@2026.9.6
// (spec/captures/node-host-to-gateway.frames.log).
const (
	capDeviceID  = "eeb824558b1d72c923aa78dcfb47e725518df417cafafbeb72786bbf313a792a"
	capPublicKey = "gdBY52wNIsBJo8Tur2Jj9p2uv0ug7JvGEgG9CGJlwJM"
	capSignature = "TY5aFtmbiHV73qVYbq2zL2ka949t5AoXLFqhhAVfptqsW6j5Awt9UtR4xM2Ag0SZQ6JHfMO3UORu_pFikjwXAQ"
)

func TestDevicePayloadMatchesCapture(t *testing.T) {
	f := DeviceAuthFields{
		DeviceID: capDeviceID, ClientID: "node-host", ClientMode: "node", Role: "node", Scopes: []string{},
		SignedAtMs: 1795983827418, Token: "testtoken123", Nonce: "46483361-58da-4c53-85c9-4aeea714f2ba",
		Platform: "linux", DeviceFamily: " Linux ",
	}
	want := "v3|" + capDeviceID + "|node-host|node|node||1795983827418|testtoken123|46483361-58da-4c53-85c9-4aeea714f2ba|linux|linux"
	if got := DeviceAuthPayloadV3(f); got != want {
		t.Fatalf("v3 payload\n got %s\nwant %s", got, want)
	}
	if got := DeviceAuthPayloadV2(f); got != "v2"+strings.TrimSuffix(want[2:], "|linux|linux") {
		t.Errorf("v2 payload %s", got)
	}
	pub, err := DecodePublicKey(capPublicKey)
	if err != nil {
		t.Fatal(err)
	}
	if DeviceIDFromPublicKey(pub) != capDeviceID {
		t.Error("device id is not sha256(pub)")
	}
	if v, ok := VerifyDeviceSignature(pub, f, capSignature); !ok || v != 3 {
		t.Errorf("captured signature: v%d %v", v, ok)
	}
	f.Nonce = "other"
	if _, ok := VerifyDeviceSignature(pub, f, capSignature); ok {
		t.Error("signature verified against the wrong nonce")
	}
}

func TestDevicePayloadScopesAndV2(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	id := DeviceIDFromPublicKey(pub)
	f := DeviceAuthFields{DeviceID: id, ClientID: "cli", ClientMode: "cli", Role: "operator",
		Scopes: []string{"operator.read", "operator.write"}, SignedAtMs: 7, Nonce: "n", Platform: "DARWIN", DeviceFamily: "Mac"}
	want := fmt.Sprintf("v3|%s|cli|cli|operator|operator.read,operator.write|7||n|darwin|mac", id)
	if got := DeviceAuthPayloadV3(f); got != want {
		t.Errorf("got %s", got)
	}
	v2 := base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, []byte(DeviceAuthPayloadV2(f))))
	if v, ok := VerifyDeviceSignature(pub, f, v2); !ok || v != 2 {
		t.Errorf("v2 signature: v%d %v", v, ok)
	}
}

func TestDecodePublicKeyForms(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	for _, s := range []string{base64.RawURLEncoding.EncodeToString(pub), base64.StdEncoding.EncodeToString(pub), base64.URLEncoding.EncodeToString(pub)} {
		k, err := DecodePublicKey(s)
		if err != nil || !k.Equal(pub) {
			t.Errorf("DecodePublicKey(%q) = %v", s, err)
		}
	}
	if _, err := DecodePublicKey("abcd"); err == nil {
		t.Error("short key accepted")
	}
}
