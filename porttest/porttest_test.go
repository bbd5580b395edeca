package porttest

import (
	"net"
	"strconv"
	"testing"
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
