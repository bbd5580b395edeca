package commands

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

// runCLI runs the real openclaw binary against a gateway and returns its
// stdout and exit code.
func runCLI(t *testing.T, g *gatewayProc, args ...string) (string, string, int) {
	t.Helper()
	exe, err := exec.LookPath("openclaw")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append(args, "--url", g.url, "--token", "sig")...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "OPENCLAW_STATE_DIR="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatalf("run: %v", err)
	return "", "", -1
}

// Issue 6 minor: the pairing hint's `openclaw devices approve` works end to
// end: a device from another host waits in `devices list`, `devices
// approve` lets it in, `devices remove` forgets it.
func TestDevicesCommands(t *testing.T) {
	g := startGateway(t, "")
	id, err := client.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	remote := client.Options{URL: g.url, Token: "sig", Identity: id, ClientID: "openclaw-tui", ClientMode: "ui",
		Scopes: []string{protocol.ScopeRead}, Header: http.Header{"X-Forwarded-For": {"203.0.113.9"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := client.Dial(ctx, remote); err == nil || !strings.Contains(err.Error(), "pairing required") {
		t.Fatalf("unpaired remote device: %v", err)
	}

	out, stderr, code := runCLI(t, g, "devices", "list", "--json")
	reqID := gjson.Get(out, "pending.0.requestId").String()
	if code != 0 || reqID == "" || gjson.Get(out, "pending.0.deviceId").String() != id.DeviceID {
		t.Fatalf("devices list: exit %d %s %s", code, out, stderr)
	}
	if _, stderr, code := runCLI(t, g, "devices", "approve", "no-such-request"); code != 1 || !strings.Contains(stderr, "unknown requestId") {
		t.Errorf("approve unknown: exit %d %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, g, "devices", "approve"); code != 2 {
		t.Errorf("approve without id: exit %d %s", code, stderr)
	}
	if out, stderr, code := runCLI(t, g, "devices", "approve", reqID, "--json"); code != 0 || gjson.Get(out, "device.deviceId").String() != id.DeviceID {
		t.Fatalf("approve: exit %d %s %s", code, out, stderr)
	}
	conn, err := client.Dial(ctx, remote)
	if err != nil {
		t.Fatalf("approved device: %v", err)
	}
	defer conn.Close()
	if _, stderr, code := runCLI(t, g, "devices", "remove", id.DeviceID); code != 0 {
		t.Fatalf("remove: exit %d %s", code, stderr)
	}
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatal("removed device still connected")
	}
	if out, _, _ := runCLI(t, g, "devices", "list", "--json"); len(gjson.Get(out, "paired").Array()) != 0 {
		t.Errorf("paired after remove: %s", out)
	}
}
