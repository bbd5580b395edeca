package gateway

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
)

// These tests pin pairing and rate-limit lines that a one-line mutation
// (gremlins, `make mutate`) could change with every other test still
// passing (issue 17, item 20).

// Without a state dir pairings stay in memory (nothing is written to the
// working directory); with one they go under it.
func TestPairingStorePersistsOnlyUnderAStateDir(t *testing.T) {
	if p := newPairingStore(""); p.persist != nil {
		t.Errorf("no state dir, yet pairings persist to %#v", p.persist)
	}
	dir := t.TempDir()
	if f, ok := newPairingStore(dir).persist.(pairedFile); !ok || f.path != filepath.Join(dir, "devices", "paired.json") {
		t.Errorf("state dir %s: persist %#v", dir, newPairingStore(dir).persist)
	}
}

// A pending request lives exactly pendingPairingTTL.
func TestPendingPairingTTLBoundary(t *testing.T) {
	p := newPairingStore("")
	p.pending["a"] = &pendingPairing{RequestID: "a", TS: 1000}
	p.pruneLocked(1000+pendingPairingTTL, "", false)
	if p.pending["a"] == nil {
		t.Fatal("dropped at exactly its TTL")
	}
	p.pruneLocked(1000+pendingPairingTTL+1, "", false)
	if p.pending["a"] != nil {
		t.Fatal("kept past its TTL")
	}
}

// The oldest request is the earliest, ties broken by the smaller id; the
// list shows pending requests in that order and paired devices by id.
func TestPendingOrder(t *testing.T) {
	reqs := []*pendingPairing{{RequestID: "b", TS: 5}, {RequestID: "z", TS: 3}, {RequestID: "c", TS: 3}, {RequestID: "y", TS: 4}}
	for i := range reqs {
		rot := append(append([]*pendingPairing{}, reqs[i:]...), reqs[:i]...)
		if o := oldest(rot); o.RequestID != "c" {
			t.Errorf("order %d: oldest %s, want c", i, o.RequestID)
		}
	}
	p := newPairingStore("")
	for _, pr := range reqs {
		p.pending[pr.RequestID] = pr
	}
	for _, id := range []string{"dev-b", "dev-a", "dev-c"} {
		p.paired[id] = &pairedDevice{DeviceID: id}
	}
	// list copies out of maps, so each call sorts another arrangement.
	for range 32 {
		l := p.list(10)
		var got []string
		for _, pr := range l.Pending {
			got = append(got, pr.RequestID)
		}
		for _, d := range l.Paired {
			got = append(got, d.DeviceID)
		}
		if fmt.Sprint(got) != "[c z y b dev-a dev-b dev-c]" {
			t.Fatalf("list order %v", got)
		}
	}
}

// A remote device's request for another role is its own request, even
// with the same (empty) scopes; the same request again reuses it.
func TestPendingRequestPerRole(t *testing.T) {
	p := newPairingStore("")
	client := protocol.ClientInfo{ID: "x", Mode: "ui"}
	op, _ := p.admit("dev", "pk", protocol.RoleOperator, []string{}, client, "10.0.0.9", false, 100)
	again, _ := p.admit("dev", "pk", protocol.RoleOperator, []string{}, client, "10.0.0.9", false, 101)
	node, _ := p.admit("dev", "pk", protocol.RoleNode, nil, client, "10.0.0.9", false, 102)
	if op.ok || op.pending == nil || again.pending != op.pending {
		t.Fatalf("operator request %+v, again %+v", op, again)
	}
	if node.pending == nil || node.pending == op.pending || node.pending.Role != protocol.RoleNode {
		t.Errorf("node request answered with %+v", node.pending)
	}
}

// NOT_PAIRED names what the device already holds when it asks for more.
func TestPairingErrorNamesApprovedRoles(t *testing.T) {
	pr := &pendingPairing{RequestID: "r", DeviceID: "d", Role: protocol.RoleNode,
		ApprovedRoles: []string{protocol.RoleOperator}, ApprovedScopes: []string{protocol.ScopeRead}}
	d := pairingError(pairingDecision{pending: pr, reason: "role-upgrade"}).Details.(map[string]any)
	if fmt.Sprint(d["approvedRoles"]) != "[operator]" || fmt.Sprint(d["approvedScopes"]) != "[operator.read]" {
		t.Errorf("details %v", d)
	}
	pr.ApprovedRoles, pr.ApprovedScopes = nil, nil
	d = pairingError(pairingDecision{pending: pr, reason: "not-paired"}).Details.(map[string]any)
	if _, ok := d["approvedRoles"]; ok {
		t.Errorf("a new device's details name approved roles: %v", d)
	}
}

func limiterWith(rl *rateLimit) *authLimiter {
	return &authLimiter{limit: func() rateLimit { return *rl }}
}

// maxAttempts 0 turns the limiter off: failures never lock out, and a
// lockout already running ends when it is switched off.
func TestRateLimitOffAtZero(t *testing.T) {
	rl := rateLimit{maxAttempts: 3, window: time.Minute, lockout: time.Hour}
	l := limiterWith(&rl)
	now := time.Unix(1000, 0)
	for range 3 {
		l.fail("10.0.0.1", false, now)
	}
	if _, blocked := l.blocked("10.0.0.1", false, now); !blocked {
		t.Fatal("not locked out after maxAttempts failures")
	}
	rl.maxAttempts = 0
	if _, blocked := l.blocked("10.0.0.1", false, now); blocked {
		t.Error("still locked out with the limiter off")
	}
	for range 5 {
		l.fail("10.0.0.2", false, now)
	}
	rl.maxAttempts = 3
	if _, blocked := l.blocked("10.0.0.2", false, now); blocked {
		t.Error("failures counted while the limiter was off")
	}
}

// A failure counts for exactly window: at window it has expired.
func TestRateLimitWindowBoundary(t *testing.T) {
	rl := rateLimit{maxAttempts: 2, window: time.Minute, lockout: time.Hour}
	l := limiterWith(&rl)
	t0 := time.Unix(1000, 0)
	l.fail("10.0.0.1", false, t0)
	l.fail("10.0.0.1", false, t0.Add(time.Minute))
	if _, blocked := l.blocked("10.0.0.1", false, t0.Add(time.Minute)); blocked {
		t.Error("a failure exactly window old still counted")
	}
	l.fail("10.0.0.1", false, t0.Add(time.Minute+time.Second))
	if _, blocked := l.blocked("10.0.0.1", false, t0.Add(time.Minute+time.Second)); !blocked {
		t.Error("two failures within the window did not lock out")
	}
}

// The limiter tracks at most maxTrackedIPs addresses; making room drops
// addresses whose failures expired (exactly window old included) and keeps
// running lockouts.
func TestRateLimitTrackedIPsCap(t *testing.T) {
	rl := rateLimit{maxAttempts: 2, window: time.Minute, lockout: time.Hour}
	l := limiterWith(&rl)
	t0 := time.Unix(1000, 0)
	l.fail("locked", false, t0)
	l.fail("locked", false, t0)
	for i := 1; i < maxTrackedIPs; i++ {
		l.fail(fmt.Sprint("ip-", i), false, t0)
	}
	if len(l.byIP) != maxTrackedIPs {
		t.Fatalf("%d tracked, want %d", len(l.byIP), maxTrackedIPs)
	}
	l.fail("one-more", false, t0)
	if len(l.byIP) > maxTrackedIPs {
		t.Errorf("%d tracked, past the cap %d", len(l.byIP), maxTrackedIPs)
	}
	// Refill, then add past the cap exactly a window later: the expired
	// entries go, the lockout stays.
	l.byIP = nil
	l.fail("locked", false, t0)
	l.fail("locked", false, t0)
	for i := 1; i < maxTrackedIPs; i++ {
		l.fail(fmt.Sprint("ip-", i), false, t0)
	}
	l.fail("late", false, t0.Add(time.Minute))
	if _, blocked := l.blocked("locked", false, t0.Add(time.Minute)); !blocked {
		t.Error("making room dropped a running lockout")
	}
	if len(l.byIP) != 2 {
		t.Errorf("%d tracked after pruning, want 2 (locked, late)", len(l.byIP))
	}
}
