package commands

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

// `openclaw devices rename|rotate|revoke` (device.pair.rename,
// device.token.rotate/revoke) against a real gateway: the label shows in
// `devices list`, a rotation by the CLI withholds the token and closes the
// device's connection, a revocation is listed; the original's --device and
// --name flags work too.
func TestDevicesRenameRotateRevoke(t *testing.T) {
	g := startGateway(t, "")
	id, err := client.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dev := client.Options{URL: g.url, Token: "sig", Identity: id, Scopes: []string{protocol.ScopeRead}}
	conn, err := client.Dial(ctx, dev) // loopback: paired silently
	if err != nil {
		t.Fatalf("device connect: %v", err)
	}
	defer conn.Close()

	out, stderr, code := runCLI(t, g, "devices", "rename", "--device", id.DeviceID, "--name", " Kitchen ", "--json")
	if code != 0 || gjson.Get(out, "label").String() != "Kitchen" {
		t.Fatalf("rename: exit %d %s %s", code, out, stderr)
	}
	if _, stderr, code := runCLI(t, g, "devices", "rename", id.DeviceID, " "); code != 1 || !strings.Contains(stderr, "label required") {
		t.Errorf("blank label: exit %d %s", code, stderr)
	}
	out, _, _ = runCLI(t, g, "devices", "list", "--json")
	if got := gjson.Get(out, "paired.#(deviceId==\""+id.DeviceID+"\").operatorLabel").String(); got != "Kitchen" {
		t.Errorf("listed label %q: %s", got, out)
	}
	if out, _, _ := runCLI(t, g, "devices", "list"); !strings.Contains(out, "Kitchen") {
		t.Errorf("human list without the label: %s", out)
	}

	out, stderr, code = runCLI(t, g, "devices", "rotate", id.DeviceID, "operator", "--json")
	if code != 0 || gjson.Get(out, "tokenDelivery").String() != "withheld-cross-device" || gjson.Get(out, "token").Exists() ||
		gjson.Get(out, "scopes.0").String() != protocol.ScopeRead {
		t.Fatalf("rotate: exit %d %s %s", code, out, stderr)
	}
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatal("device still connected after its token was rotated")
	}
	out, stderr, code = runCLI(t, g, "devices", "rotate", "--device", id.DeviceID, "--role", "operator", "--no-scopes", "--json")
	if code != 0 || gjson.Get(out, "scopes.#").Int() != 0 || !gjson.Get(out, "scopes").IsArray() {
		t.Fatalf("rotate --no-scopes: exit %d %s %s", code, out, stderr)
	}
	out, stderr, code = runCLI(t, g, "devices", "revoke", "--device", id.DeviceID, "--role", "operator", "--json")
	if code != 0 || gjson.Get(out, "revokedAtMs").Int() == 0 || gjson.Get(out, "role").String() != "operator" {
		t.Fatalf("revoke: exit %d %s %s", code, out, stderr)
	}
	out, _, _ = runCLI(t, g, "devices", "list", "--json")
	if gjson.Get(out, "paired.0.tokens.#(role==\"operator\").revokedAtMs").Int() == 0 {
		t.Errorf("revocation not listed: %s", out)
	}
	if _, stderr, code := runCLI(t, g, "devices", "revoke", "no-such-device", "operator"); code != 1 || !strings.Contains(stderr, "device token revocation denied") {
		t.Errorf("unknown device: exit %d %s", code, stderr)
	}
}
