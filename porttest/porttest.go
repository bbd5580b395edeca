// Package porttest picks a loopback TCP port for a test to hand to another
// process (a gateway, a Chromium) that binds it later.
//
// A port from listen(":0"), once closed, is the kernel's to hand out again
// before the other process binds it: to another test's listen(":0"), or as
// the source port of any outgoing connection, which both come from the
// ephemeral range. Two suites at once saw `openclaw serve` fail "bind:
// address already in use" on such a port. The ports picked here are below
// that range (and above the gateway's 18789 and the browser's 18800-18899
// defaults), where only another explicit pick can land.
package porttest

import (
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/flock"
)

// low is the bottom of the picked range.
const low = 20000

// Pick returns a port that was free on 127.0.0.1 just now.
func Pick() (int, error) {
	high := ephemeralStart()
	if high-low < 1000 { // an unusual ephemeral range: fall back to the kernel's pick
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port, nil
	}
	for range 200 {
		p := low + rand.IntN(high-low)
		if !claim(p) {
			continue // another test process (a second suite at once) has it
		}
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, errors.New("porttest: no free port below the ephemeral range")
}

// Free is Pick, failing the test when no port is free.
func Free(t testing.TB) int {
	t.Helper()
	p, err := Pick()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ephemeralStart is the first port of the kernel's ephemeral range
// (Linux's default is 32768 to 60999; other systems start at 49152).
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	if f := strings.Fields(string(b)); len(f) == 2 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			return n
		}
	}
	return 32768
}

// claims are the ports this process picked, each held by a file lock until
// the process exits, so that two test processes (two suites at once) never
// hand out the same port: the gateway one started, killed and restarted on
// its port could otherwise meet the other's server there ("bind: address
// already in use", then a client talking to the wrong gateway).
var claims struct {
	sync.Mutex
	held []func()
}

// ClaimDir is where the port claims live.
func ClaimDir() string { return filepath.Join(os.TempDir(), "openclaw-porttest") }

// claim takes port p's lock for the life of this process; false when
// another process holds it.
func claim(p int) bool {
	dir := ClaimDir()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return true // no claims possible here: the listen check alone decides
	}
	unlock, err := flock.TryLock(filepath.Join(dir, strconv.Itoa(p)+".lock"))
	if err != nil {
		return false
	}
	claims.Lock()
	claims.held = append(claims.held, unlock)
	claims.Unlock()
	return true
}
