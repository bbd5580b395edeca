package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Migration is one schema step. Version numbers start at 1 and increase by
// one; a released migration is never edited, only followed by a new one.
type Migration struct {
	Version int
	Name    string
	Up      func(ctx context.Context, tx *sql.Tx) error
}

// execAll is a migration body made of plain statements.
func execAll(stmts ...string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
}

// SchemaVersion is PRAGMA user_version: the last migration applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	return userVersion(ctx, s.db)
}

type queryer interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// migrate applies every migration newer than user_version, each in its own
// transaction together with the user_version bump, so a crash leaves the
// database at a whole step. The version is re-read inside each transaction
// (BEGIN IMMEDIATE holds the write lock), so two processes opening a fresh
// database at once apply each step exactly once. A database written by a
// newer binary is refused rather than guessed at.
func migrate(ctx context.Context, db *sql.DB, ms []Migration) error {
	for i, m := range ms {
		if m.Version != i+1 {
			return fmt.Errorf("migration %q has version %d, want %d", m.Name, m.Version, i+1)
		}
	}
	cur, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if cur > len(ms) {
		return fmt.Errorf("database schema version %d is newer than this binary knows (%d): upgrade openclaw", cur, len(ms))
	}
	for _, m := range ms[cur:] {
		if err := applyOne(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func applyOne(ctx context.Context, db *sql.DB, m Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %d (%s): begin: %w", m.Version, m.Name, err)
	}
	defer tx.Rollback()
	cur, err := userVersion(ctx, tx)
	if err != nil {
		return err
	}
	if cur >= m.Version {
		return nil // another process got there first
	}
	if err := m.Up(ctx, tx); err != nil {
		return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
	}
	// PRAGMA takes no bind parameters; Version is an int from our own table.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
		return fmt.Errorf("migration %d (%s): set version: %w", m.Version, m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %d (%s): commit: %w", m.Version, m.Name, err)
	}
	return nil
}
