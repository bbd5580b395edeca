package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// A write lock held by another connection is what isBusy recognises, from
// the driver's own error; other errors are not retried.
func TestIsBusyOnARealLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	holder, err := OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.DB().Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.Begin()
	if err == nil || !isBusy(err) {
		t.Fatalf("second writer: %v, want a busy error", err)
	}
	if isBusy(errors.New("database is locked")) || isBusy(sql.ErrNoRows) {
		t.Error("an error without SQLite's busy code counted as busy")
	}
}

type codedErr int

func (e codedErr) Error() string { return "sqlite error" }
func (e codedErr) Code() int     { return int(e) }

func TestRetryBusy(t *testing.T) {
	ctx := context.Background()
	calls := 0
	err := retryBusy(ctx, func() error {
		calls++
		if calls < 3 {
			return codedErr(sqliteBusy | 2<<8) // SQLITE_BUSY_SNAPSHOT, an extended code
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("busy twice, then fine: %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	err = retryBusy(ctx, func() error { calls++; return codedErr(1) })
	if err == nil || calls != 1 {
		t.Errorf("SQLITE_ERROR: %v after %d calls, want it returned after 1", err, calls)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	calls = 0
	err = retryBusy(cctx, func() error { calls++; return codedErr(sqliteLocked) })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancelled: %v after %d calls, want context.Canceled after 1", err, calls)
	}
}
