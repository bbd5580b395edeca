package gateway

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/store/media"
)

// Issue 7 (a store): a gateway started on a state dir holding
// devices/paired.json imports it once into the database, keeps the JSON as
// paired.json.migrated, and the pairing (and a new approval) survives
// restarts.
func TestPairedJSONImportedIntoStoreAndKeptAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	paths := config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}
	old := newDeviceKey(t)
	legacy := filepath.Join(dir, "devices", "paired.json")
	if err := os.MkdirAll(filepath.Dir(legacy), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, legacy, fmt.Sprintf(`{%q: {"deviceId": %q, "publicKey": %q, "roles": ["operator"],
		"scopes": ["operator.read"], "clientId": "openclaw-tui", "createdAtMs": 1, "approvedAtMs": 2}}`,
		old.id, old.id, base64.RawURLEncoding.EncodeToString(old.pub)))

	ts := startServer(t, Options{Paths: paths})
	if _, f := remoteConnect(t, ts.url, old); !f.OK {
		t.Fatalf("device from paired.json refused: %+v", f.Error)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Fatalf("paired.json not moved: %v", err)
	}
	if _, err := os.Stat(legacy + ".migrated"); err != nil {
		t.Fatalf("paired.json.migrated: %v", err)
	}
	// Approve a second device through the pairing flow: it lands in the DB.
	fresh := newDeviceKey(t)
	_, f := remoteConnect(t, ts.url, fresh)
	reqID, _ := f.Error.Details.(map[string]any)["requestId"].(string)
	admin := dialConnected(t, ts.url)
	if r := admin.call("device.pair.approve", map[string]any{"requestId": reqID}); !r.OK {
		t.Fatalf("approve: %+v", r.Error)
	}
	admin.close()
	ts.stop()

	for round := range 2 {
		ts = startServer(t, Options{Paths: paths})
		for _, k := range []deviceKey{old, fresh} {
			if _, f := remoteConnect(t, ts.url, k); !f.OK {
				t.Fatalf("restart %d: device %s refused: %+v", round, k.id[:8], f.Error)
			}
		}
		ts.stop()
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Fatal("paired.json came back")
	}
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	devs, err := st.PairedDevices(context.Background())
	if err != nil || len(devs) != 2 {
		t.Fatalf("store holds %d devices (%v), want 2", len(devs), err)
	}
	if err := st.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Issue 7 (media): the media route serves files from <state>/media only
// with the gateway secret as a bearer token, and never outside that dir.
func TestMediaRouteAuthAndConfinement(t *testing.T) {
	ts := startServer(t, Options{})
	md := media.New(ts.dir)
	ref, err := md.Save(context.Background(), strings.NewReader("PNGDATA"), "image/png", "")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ts.dir, "secret.txt"), "do not serve")
	if err := os.Symlink(filepath.Join(ts.dir, "secret.txt"), filepath.Join(md.Root(), "link.png")); err != nil {
		t.Fatal(err)
	}
	get := func(path, auth string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.http+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	good := MediaRoute + media.Name(ref.Path)
	if code, body, _ := get(good, ""); code != 401 || strings.Contains(body, "PNGDATA") {
		t.Errorf("no auth: %d %q", code, body)
	}
	if code, _, _ := get(good, "Bearer wrong"); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	if code, _, _ := get(good, "Basic "+testToken); code != 401 {
		t.Errorf("non-bearer scheme: %d", code)
	}
	code, body, h := get(good, "Bearer "+testToken)
	if code != 200 || body != "PNGDATA" || h.Get("Content-Type") != "image/png" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("authorised fetch: %d %q %v", code, body, h)
	}
	for _, p := range []string{
		MediaRoute + "../secret.txt", MediaRoute + "..%2fsecret.txt", MediaRoute + "%2e%2e/secret.txt",
		MediaRoute + "..%2F..%2Fetc%2Fpasswd", MediaRoute + "link.png", MediaRoute, MediaRoute + ".",
		MediaRoute + "sub/" + media.Name(ref.Path), MediaRoute + "..\\secret.txt",
	} {
		if code, body, _ := get(p, "Bearer "+testToken); code == 200 || strings.Contains(body, "do not serve") {
			t.Errorf("%s: %d %q", p, code, body)
		}
	}
	// Raw request line: no client-side path cleaning.
	if code := rawGet(t, ts.s.Addr(), MediaRoute+"../secret.txt"); code == 200 {
		t.Errorf("raw traversal served (%d)", code)
	}
	req, _ := http.NewRequest("POST", ts.http+good, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 405 {
		t.Errorf("POST: %v %v", resp, err)
	}
}

// rawGet sends a request line verbatim and returns the status code.
func rawGet(t *testing.T, addr, path string) int {
	t.Helper()
	c, err := (&netDialer{}).dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n", path, testToken)
	var code int
	fmt.Fscanf(c, "HTTP/1.1 %d", &code)
	return code
}

type netDialer struct{}

func (netDialer) dial(addr string) (io.ReadWriteCloser, error) { return net.Dial("tcp", addr) }
