package gateway

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

func connectWith(t *testing.T, url, token string) frame {
	t.Helper()
	c := dial(t, url)
	defer c.close()
	return c.connect(connectParams(func(p map[string]any) { p["auth"] = map[string]any{"token": token} }))
}

// Failed shared-secret checks lock an IP out; the lockout answers with
// AUTH_RATE_LIMITED, retryable, with retryAfterMs — even for the right token.
func TestAuthRateLimit(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{gateway: {auth: {rateLimit: {maxAttempts: 3, windowMs: 60000, lockoutMs: 60000, exemptLoopback: false}}}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, Token: testToken})

	for i := 0; i < 3; i++ {
		if res := connectWith(t, ts.url, "wrong"); res.OK || res.Error.Details.(map[string]any)["code"] != protocol.DetailAuthTokenMismatch {
			t.Fatalf("attempt %d: %+v", i, res.Error)
		}
	}
	res := connectWith(t, ts.url, testToken)
	if res.OK {
		t.Fatal("locked-out IP was admitted")
	}
	d := res.Error.Details.(map[string]any)
	if d["code"] != protocol.DetailAuthRateLimited || d["recommendedNextStep"] != "wait_then_retry" ||
		res.Error.Retryable == nil || !*res.Error.Retryable || res.Error.RetryAfterMs == nil || *res.Error.RetryAfterMs <= 0 {
		t.Fatalf("lockout answer: %+v %+v", res.Error, d)
	}
}

// Loopback is exempt by default: many failures, then the right token works.
func TestAuthRateLimitLoopbackExempt(t *testing.T) {
	ts := startServer(t, Options{Token: testToken})
	for i := 0; i < 15; i++ {
		if res := connectWith(t, ts.url, "wrong"); res.OK {
			t.Fatal("wrong token admitted")
		}
	}
	if res := connectWith(t, ts.url, testToken); !res.OK {
		t.Fatalf("loopback client locked out: %+v", res.Error)
	}
}

func TestAuthLimiterWindowAndBound(t *testing.T) {
	rl := rateLimit{maxAttempts: 2, window: time.Second, lockout: time.Minute}
	l := &authLimiter{limit: func() rateLimit { return rl }}
	now := time.Now()
	l.fail("a", false, now)
	l.fail("a", false, now.Add(2*time.Second)) // the first fell out of the window
	if _, locked := l.blocked("a", false, now.Add(2*time.Second)); locked {
		t.Fatal("failures outside the window counted")
	}
	l.fail("a", false, now.Add(2500*time.Millisecond))
	if wait, locked := l.blocked("a", false, now.Add(3*time.Second)); !locked || wait <= 0 {
		t.Fatal("two failures in the window did not lock")
	}
	if _, locked := l.blocked("a", false, now.Add(2*time.Minute)); locked {
		t.Fatal("lockout did not expire")
	}
	for i := 0; i < maxTrackedIPs+50; i++ {
		l.fail(time.Duration(i).String(), false, now.Add(time.Hour))
	}
	if len(l.byIP) > maxTrackedIPs {
		t.Fatalf("limiter grew to %d entries", len(l.byIP))
	}
}
