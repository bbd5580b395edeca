package store

import (
	"context"
	"errors"
	"time"
)

// sqliteBusy and sqliteLocked are SQLite's primary result codes for a lock
// held by another connection.
const (
	sqliteBusy   = 5
	sqliteLocked = 6
)

// isBusy says whether err is SQLite refusing for another connection's lock.
func isBusy(err error) bool {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return false
	}
	switch coded.Code() & 0xff { // extended codes keep the primary in the low byte
	case sqliteBusy, sqliteLocked:
		return true
	}
	return false
}

// retryBusy runs fn again while it fails on a lock, within BusyTimeout.
// The busy timeout covers statements, not every step of opening: turning
// on WAL while another process is closing the database (and deleting its
// WAL) answers SQLITE_BUSY at once, without waiting. Before, one of two
// processes opening the state together could fail "database is locked".
func retryBusy(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(BusyTimeout)
	delay := 2 * time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) || !time.Now().Before(deadline) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		delay = min(2*delay, 100*time.Millisecond)
	}
}
