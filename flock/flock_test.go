package flock

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A held lock makes a second taker wait until its context ends; once
// released, the next taker gets it at once.
func TestLockWaitsForHolderAndHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, path); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Lock while held: %v, want the context's deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := Lock(context.Background(), path)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Lock did not get the released lock")
	}
}

// TryLock answers at once: ErrHeld while another description holds the
// lock, the lock once it is free.
func TestTryLockDoesNotWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("second TryLock while held: %v, want ErrHeld", err)
	}
	unlock()
	again, err := TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after release: %v", err)
	}
	again()
}
