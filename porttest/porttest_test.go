package porttest

import (
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/openclaw-go/openclaw/flock"
)

// Picks land below the ephemeral range, above the fixed defaults, and are
// free to bind.
func TestPickIsBelowTheEphemeralRange(t *testing.T) {
	high := ephemeralStart()
	for range 50 {
		p := Free(t)
		if high-low >= 1000 && (p < low || p >= high) {
			t.Fatalf("port %d outside %d-%d", p, low, high-1)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d: %v", p, err)
		}
		l.Close()
	}
}

// A picked port stays claimed by this process: another open of its lock
// (what a second test process would try) finds it held.
func TestPickClaimsThePort(t *testing.T) {
	if ephemeralStart()-low < 1000 {
		t.Fatal("unusual ephemeral range on this machine: the claim path is not taken")
	}
	p := Free(t)
	_, err := flock.TryLock(filepath.Join(ClaimDir(), strconv.Itoa(p)+".lock"))
	if !errors.Is(err, flock.ErrHeld) {
		t.Fatalf("port %d's claim: %v", p, err)
	}
}
