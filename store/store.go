// Package store is the gateway's one durable database: SQLite (the pure-Go
// modernc driver, so CGO_ENABLED=0 builds) in <state>/openclaw.db, opened
// once and handed to services. WAL keeps readers off the writer's back, the
// busy timeout absorbs a second process (a CLI command) writing at the same
// time, and synchronous=FULL makes every committed transaction durable
// before the caller is told so.
//
// Only commands that need durable state import this package: the CLI's
// start-up path must not pay for the driver.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// FileName is the database file inside the state dir.
const FileName = "openclaw.db"

// BusyTimeout is how long a statement waits for another connection's write
// lock before failing with SQLITE_BUSY.
const BusyTimeout = 5 * time.Second

// Store is an open database with its schema migrated to the latest version.
type Store struct {
	db   *sql.DB
	path string
}

// Path is the database file for a state dir.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// Open opens (creating if needed) <stateDir>/openclaw.db and applies pending
// migrations: the core family's, then each of fams in the order given. The
// state dir is created 0700 and the file is 0600.
func Open(ctx context.Context, stateDir string, fams ...Family) (*Store, error) {
	if stateDir == "" {
		return nil, fmt.Errorf("store: no state dir")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, fmt.Errorf("store: state dir: %w", err)
	}
	return OpenFile(ctx, Path(stateDir), fams...)
}

// OpenFile opens the database at path (see Open).
func OpenFile(ctx context.Context, path string, fams ...Family) (*Store, error) {
	// Create the file ourselves so its mode is 0600 from the first byte.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	_ = f.Close()
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := retryBusy(ctx, func() error { return db.PingContext(ctx) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	all := append([]Family{{Name: CoreFamily, Migrations: migrations}}, fams...)
	if err := retryBusy(ctx, func() error { return migrate(ctx, db, all) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

// dsn sets the pragmas on every new connection of the pool (pragmas are
// per connection in SQLite) and makes BEGIN take the write lock at once, so
// two writers queue on the busy timeout instead of failing on upgrade.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// DB is the connection pool services run their queries on.
func (s *Store) DB() *sql.DB { return s.db }

// FilePath is the database file.
func (s *Store) FilePath() string { return s.path }

// Close checkpoints the WAL and closes the pool.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return nil
	}
	_, _ = s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// Tx runs fn in one transaction (BEGIN IMMEDIATE): committed when fn returns
// nil, rolled back otherwise. When Tx returns nil the change is durable.
func (s *Store) Tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns an error listing
// the problems unless SQLite answers "ok".
func (s *Store) IntegrityCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("store: integrity_check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("store: integrity_check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: integrity_check: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("store: integrity_check: %v", problems)
	}
	return nil
}
