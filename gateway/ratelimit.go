package gateway

import (
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

// rateLimit is gateway.auth.rateLimit (§4.1): after maxAttempts failed
// shared-secret checks from one IP within window, that IP is locked out
// for lockout. Loopback is exempt unless configured otherwise.
type rateLimit struct {
	maxAttempts    int
	window         time.Duration
	lockout        time.Duration
	exemptLoopback bool
}

func rateLimitFrom(cfg *config.Config) rateLimit {
	return rateLimit{
		maxAttempts:    cfg.Int("gateway.auth.rateLimit.maxAttempts", 10),
		window:         time.Duration(cfg.Int("gateway.auth.rateLimit.windowMs", 60000)) * time.Millisecond,
		lockout:        time.Duration(cfg.Int("gateway.auth.rateLimit.lockoutMs", 300000)) * time.Millisecond,
		exemptLoopback: cfg.Bool("gateway.auth.rateLimit.exemptLoopback", true),
	}
}

// maxTrackedIPs bounds the limiter's memory under a flood of addresses.
const maxTrackedIPs = 10000

// authLimiter counts failed authentications per client IP.
type authLimiter struct {
	mu    sync.Mutex
	byIP  map[string]*authAttempts
	limit func() rateLimit
}

type authAttempts struct {
	fails       []time.Time
	lockedUntil time.Time
}

// blocked reports whether ip is locked out, and for how long.
func (l *authLimiter) blocked(ip string, local bool, now time.Time) (time.Duration, bool) {
	rl := l.limit()
	if rl.maxAttempts <= 0 || (local && rl.exemptLoopback) {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.byIP[ip]
	if a == nil || !now.Before(a.lockedUntil) {
		return 0, false
	}
	return a.lockedUntil.Sub(now), true
}

// fail records a failed check; the attempt that reaches maxAttempts starts
// the lockout.
func (l *authLimiter) fail(ip string, local bool, now time.Time) {
	rl := l.limit()
	if rl.maxAttempts <= 0 || (local && rl.exemptLoopback) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byIP == nil {
		l.byIP = map[string]*authAttempts{}
	}
	a := l.byIP[ip]
	if a == nil {
		if len(l.byIP) >= maxTrackedIPs {
			l.prune(now, rl)
		}
		a = &authAttempts{}
		l.byIP[ip] = a
	}
	kept := a.fails[:0]
	for _, t := range a.fails {
		if now.Sub(t) < rl.window {
			kept = append(kept, t)
		}
	}
	a.fails = append(kept, now)
	if len(a.fails) >= rl.maxAttempts {
		a.lockedUntil = now.Add(rl.lockout)
		a.fails = a.fails[:0]
	}
}

// succeed forgets an IP's failures after a good check.
func (l *authLimiter) succeed(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byIP, ip)
}

// prune drops entries with no recent failure and no running lockout; if
// that frees nothing, the map is reset rather than allowed to grow.
func (l *authLimiter) prune(now time.Time, rl rateLimit) {
	for ip, a := range l.byIP {
		recent := len(a.fails) > 0 && now.Sub(a.fails[len(a.fails)-1]) < rl.window
		if !recent && !now.Before(a.lockedUntil) {
			delete(l.byIP, ip)
		}
	}
	if len(l.byIP) >= maxTrackedIPs {
		l.byIP = map[string]*authAttempts{}
	}
}
