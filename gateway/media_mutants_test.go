package gateway

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store/media"
)

// Wrong bearer tokens on the media route count as failed authentications,
// as on the WebSocket connect: after maxAttempts of them the IP is locked
// out of the route (429, Retry-After) even with the right token, and out of
// connect too (one limiter). Removing the route's limiter.fail survived
// every other test (issue 17, item 20).
func TestMediaRouteFailuresAreRateLimited(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{gateway: {auth: {rateLimit: {maxAttempts: 3, windowMs: 60000, lockoutMs: 60000, exemptLoopback: false}}}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, Token: testToken})
	ref, err := media.New(ts.dir).Save(context.Background(), strings.NewReader("PNGDATA"), "image/png", "")
	if err != nil {
		t.Fatal(err)
	}
	url := ts.http + MediaRoute + media.Name(ref.Path)
	get := func(token string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for i := range 3 {
		if resp := get("wrong"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d", i, resp.StatusCode)
		}
	}
	resp := get(testToken)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("after 3 failed media fetches the right token got %d (Retry-After %q), want 429", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// Retry-After rounds the 60 s lockout's remainder up to whole seconds.
	if ra := resp.Header.Get("Retry-After"); ra != "60" && ra != "59" {
		t.Errorf("Retry-After %q, want the lockout's remaining seconds (60, or 59 on a slow run)", ra)
	}
	if res := connectWith(t, ts.url, testToken); res.OK {
		t.Fatal("the media route's failures did not lock the IP out of connect")
	}
}
