package gateway

import (
	"errors"
	"testing"
	"time"
)

// Issue 8 item 9: a stop is clean (Serve returns nil, serve exits 0) only
// when every in-flight request finished within the drain; otherwise Serve
// says how many were cut off (serve exits 1).
func TestDrainTimeoutIsAnError(t *testing.T) {
	ts := startServer(t, Options{DrainTimeout: 100 * time.Millisecond})
	drain(blockStarted)
	c := dialConnected(t, ts.url)
	c.send("test.block", nil)
	<-blockStarted
	ts.cancel()
	select {
	case err := <-ts.done:
		ts.done <- err
		if !errors.Is(err, ErrDrainTimeout) {
			t.Errorf("Serve = %v, want ErrDrainTimeout", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return")
	}
}
