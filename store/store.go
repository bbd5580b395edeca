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
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/openclaw-go/openclaw/atomicfile"
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

// OpenFile opens the database at path (see Open). A missing file is
// created whole (see create); an existing one that is empty, truncated or
// not SQLite is refused with ErrUnusable and never replaced.
func OpenFile(ctx context.Context, path string, fams ...Family) (*Store, error) {
	all := append([]Family{{Name: CoreFamily, Migrations: migrations}}, fams...)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := create(ctx, path, all); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	case fi.Size() == 0:
		// Not what this package leaves behind: a copy or a restore that
		// failed, a full disk. Opening it would silently start a fresh
		// store over whatever the user expected to find.
		return nil, unusable(path, "is empty (0 bytes)")
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := retryBusy(ctx, func() error { return db.PingContext(ctx) }); err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	if err := retryBusy(ctx, func() error { return migrate(ctx, db, all) }); err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	return s, nil
}

// create makes a new database at path whole: it is built and migrated
// under a temporary name, then linked into place, so path never exists
// empty or half-initialised (a crash leaves only the temporary file, which
// the next start removes). When another opener linked first, its database
// is the one used.
func create(ctx context.Context, path string, all []Family) error {
	dir := filepath.Dir(path)
	stale, _ := filepath.Glob(filepath.Join(dir, "."+filepath.Base(path)+".new-*"))
	for _, f := range stale {
		if fi, err := os.Stat(f); err == nil && time.Since(fi.ModTime()) > time.Minute {
			_ = os.Remove(f) // a crashed creation's leftover
		}
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".new-*") // 0600 from the first byte
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	tmp := f.Name()
	_ = f.Close()
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(tmp + suffix)
		}
	}()
	db, err := sql.Open("sqlite", dsn(tmp))
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	err = migrate(ctx, db, all)
	if err == nil {
		_, err = db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	return atomicfile.SyncDir(dir)
}

// ErrUnusable: the database file exists but is not a database this binary
// can open (empty, truncated, corrupt, not SQLite). It is a state error
// (exit 1), not a usage one.
var ErrUnusable = errors.New("state database unusable")

// unusable is the one-line refusal, saying what to do.
func unusable(path, what string) error {
	return unusableError(fmt.Sprintf("state database %s %s: move it aside to start with a fresh store (mv %s %s.broken), or restore it from a backup, then start again",
		path, what, path, path))
}

type unusableError string

func (e unusableError) Error() string        { return string(e) }
func (e unusableError) Is(target error) bool { return target == ErrUnusable }

// SQLite's primary result codes for a file that is not a (whole) database.
const (
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)

// openError names a corrupt or foreign file as unusable; other errors
// (permissions, a newer schema) keep their own words.
func openError(path string, err error) error {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		switch coded.Code() & 0xff {
		case sqliteCorrupt, sqliteNotADB:
			return unusable(path, "is not a usable SQLite database ("+err.Error()+")")
		}
	}
	return fmt.Errorf("store: %s: %w", path, err)
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
